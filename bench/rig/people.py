"""What the scripted people of the end-to-end tests and of the benches (`bench.bot_load`,
`bench.pages`) see and do: the group's table message and their own hand message
(`table_message`, `hand_message`), their buttons, a tap or a command and the bot's answer
(`say`), a table opened and started, and `Game`, which plays hands as people would, reading
only what Telegram shows them."""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.rig.bot_process import BOT_NAME, WAIT, BotProcess, ProbedBot, Store
from bench.rig.cards import cards_named
from bench.rig.telegram import FakeButton, FakeChat, FakeMessage, FakeTelegram, FakeUser
from bot.cli.render import card_name
from bot.engine import DECK40, HandState
from bot.engine import actions as A

# Short answers (RULES-independent UI texts, Italian: the bot's default language).
OK = "Fatto."
OK_EN = "Done."  # to a person whose phone speaks English (issue 38 §3)
NOT_YOUR_TURN = "Non è il tuo turno."
HAND_OVER = "Quella mano è finita."
STALE = "Pulsante scaduto: usa quelli aggiornati."
BAD_DATA = "Pulsante non valido."
NOT_YOUR_TABLE = "Non giochi a questo tavolo."
REFUSALS = {NOT_YOUR_TURN, HAND_OVER, STALE, BAD_DATA, NOT_YOUR_TABLE}
# The Bot API methods that change what a chat shows.
MESSAGE_WRITES = frozenset(
    {
        "sendMessage",
        "editMessageText",
        "editMessageReplyMarkup",
        "deleteMessage",
        "deleteMessages",
        "pinChatMessage",
        "unpinChatMessage",
    }
)


# Names that break naive HTML or Markdown, an emoji among them.
TRICKY_NAMES = ("<Luigi & Co>", "Ana_Maria*", "🍕 Pino", "[x](y)", "Eve <b>")


def user_lang(user: FakeUser) -> str:
    """The language the bot answers `user` in, alone (no /lang): their phone's if English."""
    return "en" if (user.language_code or "").startswith("en") else "it"


def tricky_five(fake: FakeTelegram, base: int) -> list[FakeUser]:
    """Five people named `TRICKY_NAMES` (ids base+1 .. base+5), in seating order."""
    return [fake.user(base + i, name) for i, name in enumerate(TRICKY_NAMES, 1)]


def table_message(fake: FakeTelegram, group: FakeChat) -> FakeMessage:
    """The group's table message: the newest bot message that starts with the card emoji
    (or the settings panel, shown in its place)."""
    for m in reversed(fake.bot_messages(group)):
        if m.text.startswith(("🃏", "⚙️")):
            return m
    raise LookupError("no table message yet")


def lobby_message(fake: FakeTelegram, group: FakeChat) -> FakeMessage:
    """The group's table message itself, not a settings panel (issue 38: a panel is a
    message of its own, below the lobby)."""
    for m in reversed(fake.bot_messages(group)):
        if m.text.startswith("🃏"):
            return m
    raise LookupError("no table message yet")


def hand_message(fake: FakeTelegram, user: FakeUser) -> FakeMessage:
    for m in reversed(fake.bot_messages(user)):
        if m.text.startswith("🃏"):
            return m
    raise LookupError(f"no hand message for {user.first_name}")


def button_gone(fake: FakeTelegram, user: FakeUser, button: FakeButton) -> Callable[[], bool]:
    """For `wait_for`: `button` is no longer on `user`'s hand message (its move was made)."""
    data = button.callback_data
    return lambda: data not in [b.callback_data for b in hand_message(fake, user).buttons]


def hand_changed(fake: FakeTelegram, user: FakeUser, msg: FakeMessage) -> Callable[[], bool]:
    """For `wait_for`: `user`'s hand message is not `msg` as it was any more (a new one came
    on their turn, or it changed at a moment that matters to all, such as the hand's end). A
    person's own move leaves their message as it is until then."""
    return lambda: (lambda m: (m.message_id, m.text) != (msg.message_id, msg.text))(
        hand_message(fake, user)
    )


def your_turn(msg: FakeMessage) -> bool:
    """A hand message of its reader's turn ("👉 Tocca a te", or the prompt of a bid)."""
    return "👉" in msg.text


def untruths(fake: FakeTelegram, people: list[FakeUser], to_act: int | None) -> list[str]:
    """Issue 49: what the people's private chats show that is no longer true: a message
    that says it is its reader's turn when it is not (`to_act`: the user id of the one to act,
    None for nobody), or an older one than the newest; more than one message with live
    buttons in a chat. Empty when every chat tells the truth."""
    found = []
    for p in people:
        msgs = fake.bot_messages(p)
        live = [m.message_id for m in msgs if any(b.callback_data for b in m.buttons)]
        if len(live) > 1:
            found.append(f"{p.first_name}: {len(live)} messages with live buttons {live}")
        turns = [m for m in msgs if your_turn(m)]
        if turns and p.id != to_act:
            found.append(f"{p.first_name}: 'your turn' though it is not: {turns[-1].text!r}")
        if len(turns) > 1:
            found.append(f"{p.first_name}: {len(turns)} messages say 'your turn'")
    return found


def action_of(button: FakeButton) -> int:
    assert button.callback_data is not None
    return int(button.callback_data.split(":")[-1])


def act_buttons(msg: FakeMessage) -> list[FakeButton]:
    return [b for b in msg.buttons if (b.callback_data or "").startswith("a:")]


def card_buttons(msg: FakeMessage) -> list[FakeButton]:
    return [b for b in act_buttons(msg) if action_of(b) < A.CALL_RANK]


def bid_buttons(msg: FakeMessage) -> list[FakeButton]:
    return [b for b in act_buttons(msg) if action_of(b) >= A.CALL_RANK]


def hand_over(msg: FakeMessage) -> bool:
    return "Prossima mano" in str(msg.keyboard) or "Partita finita" in msg.text


@dataclass
class Game:
    fake: FakeTelegram
    group: FakeChat
    people: list[FakeUser]
    store: Store
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    presses: int = 0
    card_presses: int = 0
    bid_presses: int = 0
    bids_in_hand: int = 0
    first_card_mark: int | None = None  # the call log position at the hand's first card
    bot: ProbedBot | None = None  # for `assert_no_change`
    # the hand message each person last acted on, as it was then: their move leaves it so
    # until their next turn brings a new one (or a moment that matters changes it)
    acted_on: dict[int, tuple[int, str]] = field(default_factory=dict)

    @property
    def chat_id(self) -> int:
        return self.group.id

    def table(self) -> FakeMessage:
        return table_message(self.fake, self.group)

    def table_id(self) -> int:
        return int(self.store.table(self.chat_id)["table_id"])

    def whose_turn(self, text: str) -> FakeUser | None:
        for p in self.people:
            # Italian: "Tocca ad Ana", "Tocca a Mario" (issue 11 §6); in the auction "Asta:
            # tocca a Mario.", "Mario sceglie il seme", "Mario sceglie la carta da chiamare"
            name = p.first_name
            if any(f"{w} {name}." in text for w in ("Tocca a", "Tocca ad", "tocca a", "tocca ad")):
                return p
            if f"{name} sceglie " in text:
                return p
        return None

    async def press(self, user: FakeUser, button: FakeButton) -> str:
        shown = self.fake.message(button.chat_id, button.message_id)
        qid = await self.fake.press(user, button)
        answer = await self.fake.answer_for(qid, WAIT)
        self.acted(user, shown, answer.text or "")
        return answer.text or ""

    async def raw(self, user: FakeUser, chat: Any, message_id: int, data: str) -> str:
        shown = self.fake.message(chat, message_id)
        qid = await self.fake.press_raw(user, chat, message_id, data)
        answer = await self.fake.answer_for(qid, WAIT)
        self.acted(user, shown, answer.text or "")
        return answer.text or ""

    def acted(self, user: FakeUser, shown: FakeMessage, answer: str) -> None:
        """`user` tapped a button of `shown` and got `answer`: a move made there (in their
        private chat) leaves that message a past turn's."""
        if answer in (OK, OK_EN) and shown.chat_id == user.id:
            self.acted_on[user.id] = (shown.message_id, shown.text)

    def current_hand(self, who: FakeUser) -> FakeMessage | None:
        """`who`'s hand message, unless it is the one they last acted on as it was then."""
        msg = hand_message(self.fake, who)
        return None if self.acted_on.get(who.id) == (msg.message_id, msg.text) else msg

    async def turn(self) -> tuple[FakeUser | None, FakeMessage]:
        """Wait until the table shows a person to act (or the hand is over)."""

        def ready() -> tuple[FakeUser | None, FakeMessage] | None:
            msg = self.table()
            if hand_over(msg):
                return None, msg
            who = self.whose_turn(msg.text)
            # and their hand message says so: on one's turn it comes anew (issue 11 §1); the
            # one they moved on before stays until the hand's end, its buttons stale
            if who is None:
                return None
            hand = self.current_hand(who)
            if hand is None or not your_turn(hand):
                return None
            return who, msg

        return await self.fake.wait_for(ready, WAIT, message="a person's turn on the table")

    async def step(
        self,
        bidder: Callable[[Game, FakeUser, FakeMessage, list[FakeButton]], FakeButton] | None = None,
        player: Callable[[Game, FakeUser, FakeMessage], FakeButton] | None = None,
    ) -> bool:
        """One person's action. False when the hand is over."""
        who, table = await self.turn()
        if who is None:
            return False

        def my_buttons() -> tuple[FakeMessage, list[FakeButton]] | None:
            msg = self.current_hand(who)
            buttons = act_buttons(msg) if msg is not None else []
            return (msg, buttons) if msg is not None and buttons else None

        msg, _ = await self.fake.wait_for(my_buttons, WAIT, message="the person's buttons")
        bids = bid_buttons(msg)
        if bids:
            button = (bidder or default_bidder)(self, who, msg, bids)
            self.bid_presses += 1
            self.bids_in_hand += 1
        else:
            button = (player or random_card)(self, who, msg)
            self.card_presses += 1
            if self.first_card_mark is None:
                self.first_card_mark = self.fake.mark()
        answer = await self.press(who, button)
        self.presses += 1
        assert answer == (OK_EN if user_lang(who) == "en" else OK), (answer, button)
        await self.settled(who, table, button)
        return True

    async def settled(self, who: FakeUser, table: FakeMessage, button: FakeButton) -> None:
        """Wait until the table shows the move made with `button`. (`who`'s own hand message
        is not edited after their move: it comes anew on their next turn.)"""
        await self.fake.wait_for(
            lambda: self.table().text != table.text,
            WAIT,
            message="the table updated after a move",
        )

    async def play_hand(
        self, after: Callable[[], Any] | None = None, limit: int = 400, **kw: Any
    ) -> int:
        """Play until the hand is over, or `limit` person actions."""
        self.bids_in_hand = 0
        self.first_card_mark = None
        steps = 0
        while steps < limit and await self.step(**kw):
            steps += 1
            if after is not None:
                result = after()
                if asyncio.iscoroutine(result):
                    await result
            assert steps < 400
        return steps

    async def play_match(self, **kw: Any) -> None:
        """Play hands until the match is over; a void hand (60-60, §4.1) is dealt again."""
        for _ in range(10):
            await self.play_hand(**kw)
            if "Partita finita" in self.table().text:
                return
            assert "Mano nulla" in self.table().text, self.table().text
            await self.next_hand()
        raise AssertionError("the match did not end")

    async def next_hand(self) -> None:
        msg = self.table()
        button = msg.button("Prossima mano")
        assert await self.press(self.people[0], button) == OK
        await self.fake.wait_for(lambda: not hand_over(self.table()), WAIT, message="a new hand")


def random_card(game: Game, who: FakeUser, msg: FakeMessage) -> FakeButton:
    return game.rng.choice(card_buttons(msg))


def default_bidder(
    game: Game, who: FakeUser, msg: FakeMessage, bids: list[FakeButton]
) -> FakeButton:
    """Pass; a caller who must name a suit names the first one."""
    return next((b for b in bids if b.text == "Passo"), bids[0])


def by_label(bids: list[FakeButton], label: str) -> FakeButton:
    for b in bids:
        if b.text == label:
            return b
    raise AssertionError(f"no bid button {label!r} in {[b.text for b in bids]}")


RANK_WORDS = {
    "Asso": "l'Asso",
    "2": "il Due",
    "3": "il Tre",
    "4": "il Quattro",
    "5": "il Cinque",
    "6": "il Sei",
    "7": "il Sette",
    "Fante": "il Fante",
    "Cavallo": "il Cavallo",
    "Re": "il Re",
}


def cards_in(text: str) -> set[str]:
    """The Italian-deck cards a text names, by their full Italian names ("Asso di denari"),
    whether the text names them with suit symbols ("Asso 🪙", "🪙 Asso, Re"; Italian or
    English ranks) or in words."""
    found = set(CARD_WORDS.findall(text))
    for lang in ("it", "en"):
        found |= names_of(sorted(cards_named(text, DECK40, lang)))
    return found


CARD_WORDS = re.compile(r"\b((?:Asso|Re|Cavallo|Fante|[2-7]) di (?:denari|coppe|spade|bastoni))\b")


def own_cards(msg: FakeMessage) -> set[str]:
    """The cards a person holds, from their private message (text in the auction, buttons
    in play)."""
    found: set[str] = set()
    for b in card_buttons(msg):
        found |= cards_in(b.text)
    for line in msg.text.splitlines():
        if line.startswith(("Le tue carte", "Your cards")):
            found |= cards_in(line)
    return found


def suit_button(bids: list[FakeButton], *, held: set[str], want_held: bool) -> FakeButton:
    """The caller names a suit: the button reads "🪙 Denari", with "(ce l'hai: da solo)"
    for the suit whose called card the caller holds (§7.7)."""
    for b in bids:
        if ("ce l'hai" in b.text or "you hold it" in b.text.lower()) == want_held:
            return b
    raise AssertionError(f"no suit to call with want_held={want_held}: {[b.text for b in bids]}")


async def say(fake: FakeTelegram, user: FakeUser, chat: Any, text: str) -> FakeMessage:
    """`user` writes `text`; returns the bot's reply in that chat (a new message): the one
    that replies to the command, else the first new one that is not a hand or table message
    (one's turn brings a new hand message, issue 11 §1) nor a reminder."""
    before = fake.last_id(chat)
    command = await fake.send_text(user, chat, text)
    # In a group the bot answers a command as a reply to it, while other news (a match's end,
    # a timer notice) may come first: another message counts only after a grace period.
    grace = 1.5 if getattr(chat, "id", 0) < 0 else 0.0
    seen: list[float] = []

    def reply() -> FakeMessage | None:
        new = fake.bot_messages(chat, after=before)
        for m in new:
            if m.reply_to_message_id == command.message_id:
                return m
        other = next((m for m in new if not m.text.startswith(("🃏", "⏰"))), None)
        if other is None:
            return None
        seen.append(time.monotonic())
        return other if seen[-1] - seen[0] >= grace else None

    return await fake.wait_for(reply, WAIT, message=f"a reply to {text!r}")


async def open_table(
    fake: FakeTelegram,
    group: FakeChat,
    creator: FakeUser,
    joiners: list[FakeUser],
    variant: str,
    bots: int = 0,
    settings: str = "",
) -> None:
    """/new, /join, + Computer buttons, /settings, then the Start button."""
    await fake.send_text(creator, group, f"/new@{BOT_NAME} {variant}")
    await fake.wait_for(lambda: table_message(fake, group).button("Entra"), WAIT)
    for p in joiners:
        reply = await say(fake, p, group, "/join")
        assert "seduto" in reply.text, reply.text
    for _ in range(bots):
        qid = await fake.press(creator, table_message(fake, group).button("+ 🤖 normale"))
        assert (await fake.answer_for(qid, WAIT)).text in (None, "")
    if settings:
        reply = await say(fake, creator, group, f"/settings {settings}")
        assert reply.text == "Impostato.", reply.text
    seats = 1 + len(joiners) + bots
    await fake.wait_for(
        lambda: f"({seats}/" in table_message(fake, group).text, WAIT, message="seats shown"
    )


async def start_table(fake: FakeTelegram, group: FakeChat, creator: FakeUser) -> None:
    msg = await fake.wait_for(lambda: table_message(fake, group).button("Inizia"), WAIT)
    qid = await fake.press(creator, msg)
    assert (await fake.answer_for(qid, WAIT)).text in (None, "")
    await fake.wait_for(lambda: "mano 1" in table_message(fake, group).text, WAIT)


async def start_bot(bot: BotProcess, people: list[FakeUser]) -> Store:
    """The bot started, and each of `people` has opened a private chat with it (/start).
    Returns a look at its database."""
    await bot.start()
    for p in people:
        await say(bot.fake, p, p, "/start")
    return Store(bot.db_path)


async def started_game(
    bot: BotProcess, group: FakeChat, people: list[FakeUser], variant: str, **table: Any
) -> Game:
    """The bot started; each person opens a private chat with it, the first opens a table
    in the group (`open_table`, with its `bots` and `settings`), the others join, and the
    first starts it."""
    store = await start_bot(bot, people)
    await open_table(bot.fake, group, people[0], people[1:], variant, **table)
    await start_table(bot.fake, group, people[0])
    return Game(bot.fake, group, people, store)


def state(store: Store, chat_id: int) -> HandState:
    return HandState.from_dict(store.hand(chat_id))


def names_of(cards: list[int] | tuple[int, ...]) -> set[str]:
    return {card_name(c, DECK40, "it") for c in cards}


def api_cost(fake: FakeTelegram, since: int) -> dict[str, int]:
    """Bot API calls since the mark, polling excluded."""
    counts = fake.counts(since=since)
    counts.pop("getUpdates", None)
    return dict(counts)


async def hand_when(
    fake: FakeTelegram, user: FakeUser, ok: Callable[[FakeMessage], object] | None = None
) -> FakeMessage:
    """The person's hand message, once there is one (and `ok` holds for it)."""

    def ready() -> FakeMessage | None:
        m = hand_message(fake, user)
        return m if ok is None or ok(m) else None

    return await fake.wait_for(ready, WAIT, message=f"{user.first_name}'s hand message")


async def message_when(
    fake: FakeTelegram,
    chat: FakeChat,
    message_id: int,
    ok: Callable[[FakeMessage], object],
    timeout: float = WAIT,
) -> FakeMessage:
    """The message, once `ok` holds for it."""
    return await fake.wait_for(
        lambda: m if ok(m := fake.message(chat, message_id)) else None, timeout
    )


async def card_left(fake: FakeTelegram, user: FakeUser, card: int) -> FakeMessage:
    """The person's hand message, once it has no button for `card` (played)."""
    return await hand_when(fake, user, lambda m: card not in map(action_of, card_buttons(m)))


async def quiet(fake: FakeTelegram, period: float = 1.1) -> None:
    """Wait until the bot has made no call (polling aside) for `period` seconds (more than
    the second a private chat's call may be held back by the bot's pacing)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    last = -1
    while loop.time() < deadline:
        n = len([c for c in fake.calls if c.method != "getUpdates"])
        if n == last:
            return
        last = n
        await asyncio.sleep(period)
    raise TimeoutError("the bot never went quiet")


def minus(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    return {k: a.get(k, 0) - b.get(k, 0) for k in a if a.get(k, 0) - b.get(k, 0)}


def suit_phase(bids: list[FakeButton]) -> bool:
    return all(A.NAME_SUIT <= action_of(b) < A.CALL_CARD for b in bids)
