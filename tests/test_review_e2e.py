"""Issue 51's check, end to end: the review of a hand never delays a tap or the next hand.

The bot runs as a process against the stand-in Bot API twice, with a worker process for the
computers and the review (`COMPUTER_WORKERS=1`; without one the review is skipped): once with
the table setting `review` off, once on, set with /settings as a person sets it. Five people
play chiamata hands at a fast pace: each taps as soon as their turn comes, and the first
taps the group's "Prossima mano" as soon as it shows. Measured in each run, on the
stand-in's clock:

- every tap's answer: the answerCallbackQuery's arrival minus the tap's time;
- each next hand's start: from the tap of the hand's last card to the next hand's first turn
  message (👉) in a private chat;
- each hand's result in the group: from the hand's last card to its message, which waits for
  the review (`REVIEW_WAIT`), and so says how long the review takes here and now.

With the review on, the review ran (every hand kept its review, the results name the hand's
key move), no tap waited past the stand-in's limit, and the taps and the next hands are not
slower than with it off by more than a loaded machine's noise: overall (the taps' p99, every
next hand's start) with a margin of a second; where the review runs (the taps that end a
hand or start the next one, the next hands' start), compared by their medians, by more than
half the review's own time (at least `SLACK`). A review on the event loop, or a next hand or
a hand's last tap that waits for the review, delays each of those by the review's time: it
fails.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median

from bench.rig.bot_process import WAIT, ProbedBot, bot_guard
from bench.rig.people import OK, Game, action_of, hand_over, open_table, start_bot, start_table
from bench.rig.stand_in import telegram
from bench.rig.telegram import FakeButton, FakeTelegram, FakeUser
from bot.engine import actions as A
from tests.test_e2e_evening import first_call_then_pass, logged, logs

HANDS = 5  # per run: four next hands
TAP_TTL = 15.0  # seconds after a tap that Telegram refuses its answer ("query is too old")
SLACK = 0.25  # seconds: the least margin where the review runs
NAMES = ("Mario", "Luigi", "Giulia", "Paolo", "Anna")
REVIEW_LINE = re.compile(r"^(🔎 Il colpo della mano|✨ La giocata migliore): ", re.MULTILINE)
ARTIFACT = Path(__file__).parent / "artifacts" / "review_pace.txt"


@dataclass(frozen=True)
class Tap:
    query_id: str
    at: float  # when the person tapped (time.monotonic, the stand-in's clock)
    what: str  # "bid", "card" or "next" (the group's "Prossima mano")
    hand: int  # the hand's number in the run, from 1


@dataclass
class TimedGame(Game):
    """`Game` that keeps the time of every tap, and starts each next hand at once."""

    taps: list[Tap] = field(default_factory=list)
    hand_no: int = 1

    async def press(self, user: FakeUser, button: FakeButton) -> str:
        data = button.callback_data or ""
        what = "next"
        if data.startswith("a:"):
            what = "card" if action_of(button) < A.CALL_RANK else "bid"
        shown = self.fake.message(button.chat_id, button.message_id)
        at = time.monotonic()
        qid = await self.fake.press(user, button)
        self.taps.append(Tap(qid, at, what, self.hand_no))
        answer = (await self.fake.answer_for(qid, WAIT)).text or ""
        self.acted(user, shown, answer)
        return answer

    async def next_hand_at_once(self) -> float:
        """The hand is over: "Prossima mano" tapped as soon as the group shows it. Returns the
        seconds from the tap of the hand's last card to the next hand's first turn message."""
        last = max(t.at for t in self.taps if t.hand == self.hand_no and t.what == "card")
        table = await self.fake.wait_for(
            lambda: m if (m := self.table()).button("Prossima mano") else None,
            WAIT,
            message="the group's Prossima mano",
        )
        mark = self.fake.mark()
        self.hand_no += 1
        assert await self.press(self.people[0], table.button("Prossima mano")) == OK
        turn = await self.fake.wait_for(
            lambda: first_turn(self.fake, mark), WAIT, message="the next hand's first turn"
        )
        await self.fake.wait_for(lambda: not hand_over(self.table()), WAIT, message="a new hand")
        return turn - last


def first_turn(fake: FakeTelegram, since: int) -> float | None:
    """When the first message that tells a person it is their turn (👉) came to a private
    chat after the call log's `since`."""
    for c in fake.calls_of("sendMessage", since=since):
        if c.ok and int(c.params["chat_id"]) > 0 and "👉" in str(c.params.get("text", "")):
            return c.arrived
    return None


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


@dataclass(frozen=True)
class Pace:
    """What one run measured, in seconds."""

    taps: list[tuple[Tap, float]]  # each tap and its answer's latency
    next_starts: list[float]  # each next hand's start, after the last card
    result_waits: list[float]  # each hand's result in the group, after the last card
    results: list[str]  # the hands' results
    reviews: int  # the hands whose review the bot kept

    def latencies(self, what: str | None = None, *, last: bool = False) -> list[float]:
        """The taps' latencies, sorted (of one kind; `last`: only each hand's last one)."""
        chosen = [(t, s) for t, s in self.taps if what is None or t.what == what]
        if last:
            final = {t.hand: t for t, _ in chosen}  # in the order of the taps
            chosen = [(t, s) for t, s in chosen if final[t.hand] is t]
        return sorted(s for _, s in chosen)

    def summary(self) -> str:
        lat, ends = self.latencies(), self.latencies("card", last=True)

        def secs(xs: list[float]) -> str:
            return " ".join(f"{x:.2f}" for x in xs)

        return (
            f"{len(lat)} taps p50 {pct(lat, 0.5):.3f} p99 {pct(lat, 0.99):.3f} "
            f"max {lat[-1]:.3f}; last cards {secs(ends)}; Prossima mano "
            f"{secs(self.latencies('next'))}; next hand {secs(self.next_starts)}; "
            f"result {secs(self.result_waits)} s"
        )


async def evening(workdir: Path, *, review: bool, base: int) -> Pace:
    """One run: five people at a chiamata table, `HANDS` hands one after the other."""
    workdir.mkdir()
    async with telegram(callback_query_ttl=TAP_TTL) as fake:
        people = [fake.user(base + i, name) for i, name in enumerate(NAMES, 1)]
        group = fake.group(-base, "Tavolo veloce", admins=people[:1], members=people)
        with bot_guard(ProbedBot(fake, workdir, COMPUTER_WORKERS="1")) as bot:
            store = await start_bot(bot, people)
            switch = "sì" if review else "no"
            await open_table(
                fake, group, people[0], people[1:], "chiamata", settings=f"target=0 review={switch}"
            )
            await start_table(fake, group, people[0])
            game = TimedGame(fake, group, people, store, bot=bot)
            starts = []
            for n in range(1, HANDS + 1):
                await game.play_hand(bidder=first_call_then_pass)
                if n < HANDS:
                    starts.append(await game.next_hand_at_once())
            await fake.wait_for(logged(fake, group, HANDS), WAIT, message="the hands' results")
            await bot.idle()

            answers = {
                str(c.params["callback_query_id"]): c.arrived
                for c in fake.calls_of("answerCallbackQuery")
                if c.ok
            }
            assert all(t.query_id in answers for t in game.taps), "a tap never answered"
            posted = [
                c.arrived
                for c in fake.calls_of("sendMessage")
                if c.ok
                and int(c.params["chat_id"]) == group.id
                and str(c.params.get("text", "")).startswith("🏁")
            ]
            ends = [
                max(t.at for t in game.taps if t.hand == n and t.what == "card")
                for n in range(1, HANDS + 1)
            ]
            (row,) = store.rows(
                "SELECT COUNT(*) AS n FROM hand_reviews WHERE table_id = ?", game.table_id()
            )
            pace = Pace(
                taps=[(t, answers[t.query_id] - t.at) for t in game.taps],
                next_starts=starts,
                result_waits=[p - e for p, e in zip(posted, ends, strict=True)],
                results=[m.text for m in logs(fake, group)],
                reviews=int(row["n"]),
            )
            assert await bot.stop() == 0
            bot.check_logs()
    return pace


async def test_the_review_delays_no_tap_and_no_next_hand(tmp_path: Path) -> None:
    off = await evening(tmp_path / "off", review=False, base=5100)
    on = await evening(tmp_path / "on", review=True, base=5200)
    # what the review takes here and now: the hand's result waits for it
    review_time = median(on.result_waits) - median(off.result_waits)
    slack = max(SLACK, review_time / 2)
    report = (
        f"[review pace] off: {off.summary()}\n[review pace] on:  {on.summary()}\n"
        f"[review pace] the review {review_time:.2f} s, slack {slack:.2f} s\n"
    )
    print("\n" + report)
    ARTIFACT.parent.mkdir(exist_ok=True)
    ARTIFACT.write_text(report, "utf-8")

    # the review ran with it on, for every hand that counts (a void one has none: §4.1)
    assert len(on.results) == len(off.results) == HANDS
    assert on.reviews == sum("nulla" not in text for text in on.results), on.reviews
    assert any(REVIEW_LINE.search(text) for text in on.results), on.results
    assert off.reviews == 0 and not any(REVIEW_LINE.search(text) for text in off.results)

    # no tap waited past the stand-in's limit (it would have refused the answer, too)
    assert max(on.latencies()) < TAP_TTL
    # overall: no slower than with the review off, give or take a loaded machine
    assert pct(on.latencies(), 0.99) <= max(1.0, 3 * pct(off.latencies(), 0.99)), report
    assert max(on.next_starts) <= max(off.next_starts) + 1.0, report
    # where the review runs, each hand's end: the taps that end a hand or start the next one,
    # and the next hand's start, by their medians (a review in the way delays each of them)
    for what in ("card", "next"):
        ours, theirs = on.latencies(what, last=True), off.latencies(what, last=True)
        assert median(ours) <= median(theirs) + slack, (what, report)
    assert median(on.next_starts) <= median(off.next_starts) + slack, report
