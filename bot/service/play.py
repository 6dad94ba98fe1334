"""The play: a person's move (`act`), the next hand, the bids' second screen, and what follows
every change (`save` writes it, the ledger with it when a hand ends; `settle` starts the
computer players' task and the table's timer, and lets a closed table go: `on_closed`). The
computer players think without the table's lock (`_play_computers`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime

from bot.engine import HandState
from bot.engine import actions as A
from bot.i18n import t
from bot.players import DEFAULT_LEVEL
from bot.players.review_data import Review
from bot.players.thinker import Job, Thinker
from bot.service.deadlines import Deadlines
from bot.service.registry import Registry
from bot.service.shown import Shown
from bot.service.types import (
    APPLYING_UPDATE,
    Outbox,
    Person,
    Reply,
    TableRef,
    refusal,
    reply_lang,
)
from bot.table.ledger import hand_key, match_key
from bot.table.plays import HandEnd, PlayRecord
from bot.table.stats import end_of_hand, review_costs
from bot.table.table import CANCELLED, FINISHED, PLAYING, Table, TableError
from bot.view.render import (
    Rendered,
    bid_pages,
    hand_log,
    kept_summary,
    match_end,
    match_ledger,
    points_text,
    review_lines,
    seat_short,
)
from storage import Database, LedgerRecord, Move, StaleMove

log = logging.getLogger(__name__)

# Seconds a hand's result waits for its review (issue 51: about 1 s of a core for chiamata);
# past them it goes without the line
REVIEW_WAIT = 8.0


def ledger_record(end: HandEnd) -> LedgerRecord | None:
    """What the group's ledger gets from a hand's end (§10.1 a chiamata hand, §10.2 a match),
    or None when nobody's balance moves; a computer never appears in it (§10.5)."""
    if not end.deltas:
        return None
    return LedgerRecord(
        chat_id=end.chat_id,
        hand_key=(
            hand_key(end.table_id, end.hand_index) if end.chiamata else match_key(end.table_id)
        ),
        table_id=end.table_id,
        variant=end.variant,
        deltas=dict(end.deltas),
        names=dict(end.names),
        finished_at=end.finished_at,
    )


def play_record(end: HandEnd) -> PlayRecord | None:
    """What `TableStore.save_move` stores for the stats with the move that ended the hand, or
    None for a table that writes nothing (§10.5)."""
    if end.hand is None:
        return None
    return PlayRecord(
        chat_id=end.chat_id,
        table_id=end.table_id,
        hand_index=end.hand_index,
        variant=end.variant,
        family=end.family,
        finished_at=end.finished_at,
        hand=end.hand,
        match=end.match,
    )


class Play:
    """Moves, written before they are shown; the computer players (`thinker`)."""

    def __init__(
        self,
        db: Database,
        outbox: Outbox,
        registry: Registry,
        shown: Shown,
        deadlines: Deadlines,
        thinker: Thinker,
    ) -> None:
        self.db = db
        self.out = outbox
        self.registry = registry
        self.shown = shown
        self.deadlines = deadlines
        self.thinker = thinker
        self.computers: dict[int, asyncio.Task[None]] = {}  # table -> its computers' task
        # told of every table that closes, once it is let go (`TableService`: the group's
        # tournament, which then plays its next match)
        self.on_closed: Callable[[Table], None] = lambda table: None
        # told of every move stored, and whether it ended the hand (the metrics)
        self.on_move: Callable[[int, bool], None] = lambda table_id, hand_over: None

    async def act(
        self,
        person: Person,
        table_id: int,
        hand_index: int,
        stamp: int,
        action: int,
        ply: int | None = None,
    ) -> Reply:
        """A person's move (a DM button, or a Mini App tap, which names the `ply` it was
        made on: `Table.check_action`)."""
        table = await self._known(table_id)
        if table is None:
            row = await self.db.tables.get_table(table_id)
            lang = (row.lang if row else None) or self.registry.default_lang
            return Reply(t(reply_lang(lang), "err_hand_over"))
        async with self.registry.lock(table_id):
            # With other workers, a write may find the table moved on since it was read:
            # it is read again and the tap checked once more against what it is now.
            for attempt in range(2 if self.registry.shared else 1):
                table = await self.registry.current(table_id)
                if table is None:
                    return Reply(t(reply_lang(self.registry.default_lang), "err_hand_over"))
                lang = self.shown.lang_for(table, person.user_id)
                try:
                    seat = table.check_action(person.user_id, hand_index, stamp, action, ply)
                    table.seats[seat].timeouts = 0  # they act: the timeouts in a row restart
                    await self.move(table, seat, action, person.user_id)
                except TableError as exc:
                    if exc.key == "err_busy" and attempt == 0 and self.registry.shared:
                        continue
                    return refusal(lang, exc)
                break
            self.settle(table)
            self.shown.render(table)
        return Reply(t(reply_lang(lang), "ok_played"), key="ok_played")

    async def _known(self, table_id: int) -> Table | None:
        """A first look before the table's lock: from memory, else (with other workers)
        from the database. Under the lock, `current` says what the table is now."""
        table = self.registry.by_id.get(table_id)
        if table is None and self.registry.shared:
            table = await self.registry.current(table_id)
        return table

    async def next_hand(self, person: Person, table_id: int, hand_index: int) -> Reply:
        if await self._known(table_id) is None:
            return Reply(t(reply_lang(self.registry.default_lang), "err_hand_over"))
        async with self.registry.lock(table_id):
            # Two taps at once on two workers: the loser of the write reads the table again
            # and finds the next hand dealt, which is what it asked for (a tap after the
            # hand was dealt, by a tap or by the timer, is a stale button as before).
            for attempt in range(2 if self.registry.shared else 1):
                table = await self.registry.current(table_id)
                if table is None:
                    return Reply(t(reply_lang(self.registry.default_lang), "err_hand_over"))
                lang = table.lang
                if table.seat_of(person.user_id) is None:
                    return Reply(t(reply_lang(lang), "err_not_your_table"))
                if attempt and table.hand is not None and table.hand.hand_index == hand_index + 1:
                    return Reply(t(reply_lang(lang), "ok_played"), key="ok_played")
                if table.hand is None or table.hand.hand_index != hand_index:
                    return Reply(t(reply_lang(lang), "err_stale"))
                kept = self.summaries(table)
                try:
                    table.next_hand()
                    await self.save(table, None)
                except TableError as exc:
                    if exc.key == "err_busy" and attempt == 0 and self.registry.shared:
                        continue
                    return refusal(lang, exc)
                self.keep_summaries(table, kept)
                break
            assert table is not None
            self.settle(table)
            self.shown.render(table)
        return Reply(t(reply_lang(lang), "ok_played"), key="ok_played")

    def summaries(self, table: Table) -> dict[int, Rendered]:
        """Before the next hand is dealt: each person's summary of the hand just over, as
        it stays in their chat (`keep_summaries`), a void hand's too (it was played: §4.1's
        60-60 is a result); none after a redeal (nothing was played)."""
        m = table.match
        if m is None or not m.records or m.records[-1].redeal:
            return {}
        return {
            s.user_id: kept_summary(table, seat, s.lang or table.lang)
            for seat, s in enumerate(table.seats)
            if s.user_id is not None
        }

    def keep_summaries(self, table: Table, kept: dict[int, Rendered]) -> None:
        """The next hand is dealt (and stored): each summary stays in its chat, without its
        button, and the new hand comes as a new message below it."""
        ref = TableRef.of(table)
        for user_id, content in kept.items():
            self.out.keep_private(ref, user_id, content)

    async def bid_page(
        self, person: Person, table_id: int, hand_index: int, stamp: int, page: int
    ) -> Reply:
        """The points bids' second screen (every legal value, `page` 1) or back to the
        first; only on one's own turn, and only in that person's hand message."""
        table = await self.registry.current(table_id)
        if table is None:
            return Reply(t(reply_lang(self.registry.default_lang), "err_hand_over"))
        async with self.registry.lock(table_id):
            table = await self.registry.current(table_id)
            if table is None:
                return Reply(t(reply_lang(self.registry.default_lang), "err_hand_over"))
            lang = self.shown.lang_for(table, person.user_id)
            seat = table.seat_of(person.user_id)
            hand = table.hand
            if seat is None:
                return Reply(t(reply_lang(lang), "err_not_your_table"))
            if table.status != PLAYING or hand is None or hand.is_terminal():
                return Reply(t(reply_lang(lang), "err_hand_over"))
            if hand.hand_index != hand_index:
                return Reply(t(reply_lang(lang), "err_hand_over"))
            if hand.current != seat:
                return Reply(t(reply_lang(lang), "err_not_your_turn"))
            if stamp != table.turn_start() or page not in bid_pages(hand.observation(seat)):
                return Reply(t(reply_lang(lang), "err_stale"))
            if page:
                self.shown.set_bid_page(table_id, seat, (table.move_no, stamp, page))
            else:
                self.shown.set_bid_page(table_id, seat, None)
            self.shown.render(table)  # only this person's message changes
        return Reply("")

    async def move(self, table: Table, seat: int, action: int, user_id: int | None) -> None:
        """A move, in three steps: the table takes it; if it ended the hand, the table ends
        the hand (the match records it: `end_of_hand`, computed once for the ledger and the
        stats); then `save` writes it all in one transaction."""
        assert table.hand is not None
        table.apply(seat, action)
        end = end_of_hand(table, datetime.now(UTC)) if table.hand.is_terminal() else None
        await self.save(
            table,
            Move(table.hand.hand_index, seat, action, user_id),
            urgent=user_id is not None,
            end=end,
        )
        rules = table.options.rules()
        if action == A.CALL_RANK + 2 and rules.chiamata and rules.overbid:
            self.registry.spawn(self._explain_due(table.chat_id, table.lang))

    async def _explain_due(self, chat_id: int, lang: str) -> None:
        """The first time a group's auction reaches the Due (§7.3): one line says what a
        points bid commits to."""
        try:
            if (await self.db.people.chat_settings(chat_id)).get("due_explained"):
                return
            await self.db.people.update_chat_settings(chat_id, due_explained=True)
        except Exception:  # a courtesy: never in the way of the game
            log.exception("chat %s: the Due's explanation failed", chat_id)
            return
        await self.out.announce(chat_id, Rendered(t(lang, "due_explained"), []), silent=True)

    def _announce_hand(self, table: Table, end: HandEnd) -> None:
        """A hand is over (and stored): its result goes to the group as a message of its
        own, silent (the evening's log); at the match's end a new message follows, which
        notifies, with the final standing, the ledger and the rematch button. Not at a
        tournament's match: the tournament's message after it says the result and the ledger
        with the standings and what comes next, one message that notifies (and no rematch:
        the tournament opens the next match). The hand's review, when it arrives, is also
        stored for /stats (`_store_review`)."""
        lang = table.lang
        hand, record = table.hand, table.match.records[-1] if table.match else None
        # issue 51.3: a button opens the hand's replay in the Mini App (on this message, sent
        # anyway: no call more)
        link = self.shown.replay_link(table.table_id, hand.hand_index) if hand else None
        content = hand_log(table, lang, replay_link=link)
        finished = table.status == FINISHED and table.tournament is None
        # issue 51: the review of the hand, off the event loop (`Thinker.review`); the table
        # moves on meanwhile: what the line needs is taken now
        reviewed = (
            hand.clone()
            if table.review and hand is not None and record and not (record.void or record.redeal)
            else None
        )
        names = [seat_short(table, s, lang) for s in range(len(table.seats))]
        seats = [(s.user_id, s.level) for s in table.seats]
        seed = f"{table.seed}:{table.table_id}:{hand.hand_index if hand else 0}"

        async def announce() -> None:
            shown = content
            review: Review | None = None
            if reviewed is not None:
                try:
                    review = await asyncio.wait_for(
                        self.thinker.review(reviewed, seed), REVIEW_WAIT
                    )
                except TimeoutError:
                    review = None
                if review is not None:  # the replay's marks (issue 51.3), before its button
                    await self._keep_review(table.table_id, reviewed.hand_index, review)
                lines = [] if review is None else review_lines(names, reviewed, review, lang)
                if lines:
                    shown = Rendered("\n".join([content.text, *lines]), content.keyboard)
            await self.out.announce(table.chat_id, shown, silent=True)
            if reviewed is not None and review is not None:
                await self._store_review(end, reviewed, seats, review)
            if finished:
                await self._announce_end(table)

        self.registry.spawn(announce())

    async def _store_review(
        self,
        end: HandEnd,
        hand: HandState,
        seats: list[tuple[int | None, str | None]],
        review: Review,
    ) -> None:
        """Issue 51, "in the numbers": what each seat gave away by the hand's review, for
        /stats (`bot.table.stats.review_costs`: a seat counts for the person who made every
        move of it, or for a computer). A courtesy: a failure is logged, never in the way."""
        try:
            movers = await self.db.tables.hand_movers(end.table_id, end.hand_index)
            costs = review_costs(end, hand, seats, movers, review)
            await self.db.stats.record_review_costs(costs)
        except Exception:
            log.exception("table %s: storing hand %s's review failed", end.table_id, end.hand_index)

    async def _keep_review(self, table_id: int, hand_index: int, review: Review) -> None:
        """A hand's review, kept for its replay in the Mini App (a courtesy: a failed write
        costs the replay its marks, never the hand's result)."""
        try:
            await self.db.replays.save_hand_review(table_id, hand_index, review.to_json())
        except Exception:
            log.exception("table %s: keeping the review of hand %s failed", table_id, hand_index)

    async def _announce_end(self, table: Table) -> None:
        """The match's end in the group (`match_end`), its id stored with the table (its
        rematch button goes once the rematch is open; a restarted bot that finds none
        announces it)."""
        lang = table.lang
        try:
            ledger = await self.ledger_lines(table, lang)
        except Exception:
            log.exception("table %s: reading the balances failed", table.table_id)
            ledger = ""
        message_id = await self.out.announce(table.chat_id, match_end(table, lang, ledger))
        if message_id is None:
            return
        table.final_message_id = message_id
        try:
            row = await self.db.tables.update_lobby(table.table_id, seats_json=table.seats_json())
        except Exception:
            log.exception("table %s: noting its final message failed", table.table_id)
            return
        # a new version of the table (its seats' row): the Mini App's pages follow it
        table.move_no = row.move_no
        if self.shown.live is not None:
            self.shown.live.publish(table)

    async def ledger_lines(self, table: Table, lang: str) -> str:
        """What the finished match wrote in the group's ledger, per person, and their
        balance now (HTML): "📒 Conti del gruppo: …"; or that it does not count (§10.5).
        The match's end says it, or a tournament's message after its match."""
        deltas = match_ledger(table)
        if deltas is None:
            return t(lang, "final_ledger_off")
        balances = {b.user_id: b.balance for b in await self.db.ledger.balances(table.chat_id)}
        names = {s.user_id: s.name for s in table.seats if s.user_id is not None}
        moved: dict[int, int] = {}
        for seat, s in enumerate(table.seats):
            if s.user_id is not None:
                moved[s.user_id] = moved.get(s.user_id, 0) + deltas[seat]
        order = sorted(moved, key=lambda u: (-moved[u], names[u]))
        rows = [
            t(
                lang,
                "final_ledger_row",
                who=names[u],
                delta=points_text(lang, moved[u], sign=True),
                balance=points_text(lang, balances.get(u, 0), sign=True),
            )
            for u in order
        ]
        return "\n".join([t(lang, "final_ledger_title"), *rows])

    async def save(
        self, table: Table, move: Move | None, *, urgent: bool = True, end: HandEnd | None = None
    ) -> None:
        """Persist the table after a change; the end of a hand (`end`, from `move`) writes
        the ledger and the hand's record for the stats (`ledger_record`, `play_record`) in
        the same transaction. On any failure the table is reloaded from the database and the
        error is raised as a TableError (the action is refused, nothing is half-written)."""
        ledger = ledger_record(end) if end is not None else None
        record = play_record(end) if end is not None else None
        self.deadlines.plan(table)  # the deadlines this state sets, stored with it
        try:
            table.move_no = await self.db.tables.save_move(
                table.table_id,
                table.move_no,
                match_json=table.match_json(),
                hand_json=table.hand_json(),
                status=table.status,
                move=move,
                ledger=ledger,
                urgent=urgent,  # a person waits for the answer to their tap
                seats_json=table.seats_json(),
                timers_json=table.pending.to_json(),
                record=record,
                update_id=APPLYING_UPDATE.get(),
            )
            if end is not None:  # the group's log hears of it (a table that writes nothing too)
                self._announce_hand(table, end)
            if move is not None:
                self.on_move(table.table_id, end is not None)
        except StaleMove:
            log.warning("table %s: stale write, reloading", table.table_id)
            await self.registry.reload(table.table_id)
            raise TableError("err_busy") from None
        except Exception:
            log.exception("table %s: write failed, reloading", table.table_id)
            await self.registry.reload(table.table_id)
            raise TableError("err_busy") from None

    def settle(self, table: Table) -> None:
        """After a change, under the table's lock: computer players to move get their task,
        the table's next deadline its timer, a closed table is let go."""
        tid = table.table_id
        if table.bot_to_act() is not None:
            task = self.computers.get(tid)
            if task is None or task.done():
                self.computers[tid] = asyncio.create_task(
                    self._play_computers(tid), name=f"computers:{tid}"
                )
        self.deadlines.arm(table)
        if table.status in (FINISHED, CANCELLED):
            self.deadlines.end_request(table, "cancel_moot")
            self.registry.by_id.pop(tid, None)
            self.on_closed(table)  # a tournament's match: the next one

    async def _play_computers(self, table_id: int) -> None:
        """Computer players move until a person must act or the hand ends. Each decision is
        taken without the lock (a tap on this table is answered meanwhile) from the seat's
        observation, and applied only if the table is still where it was."""
        me = asyncio.current_task()
        try:
            while True:
                async with self.registry.lock(table_id):
                    table = await self.registry.current(table_id)
                    seat = table.bot_to_act() if table is not None else None
                    if table is None or seat is None or table.hand is None:
                        if self.computers.get(table_id) is me:
                            del self.computers[table_id]
                        return
                    version = table.move_no
                    level = table.seats[seat].level or DEFAULT_LEVEL
                    job = Job(level, table.bot_seed(), table.hand.observation(seat))
                    # a person's last card, their one legal move: theirs, played for them
                    only = None if table.seats[seat].is_bot else table.hand.forced_action()
                    mover = table.seats[seat].user_id if only is not None else None
                if self.deadlines.bot_delay:
                    await asyncio.sleep(self.deadlines.bot_delay)
                try:
                    action = only if only is not None else await self.thinker.choose(job)
                except Exception:
                    log.exception("table %s: the %s player failed; playing normal", table_id, level)
                    action = await self.thinker.choose(
                        Job(DEFAULT_LEVEL, job.seed, job.observation)
                    )
                async with self.registry.lock(table_id):
                    table = await self.registry.current(table_id)
                    if table is None or table.move_no != version:
                        continue  # something else happened meanwhile: look again
                    try:
                        await self.move(table, seat, action, mover)
                    except TableError:
                        continue  # reloaded from the database: look again
                    self.settle(table)
                    self.shown.render(table)
        finally:
            if self.computers.get(table_id) is me:
                del self.computers[table_id]
