"""What every part of a table's life builds on (`Tables`): the state (the tables in memory, a
lock per table and per group, the timers armed, the notices on their way), a table found or
reloaded from the database, what a table shows (`render`), and the deadlines its state sets
(`plan`, stored with every write; `arm`, one timer per table; what the timer does when it
fires is in `waits.py`).
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
from collections.abc import Awaitable, Callable

from bot.i18n import t
from bot.service.langs import Languages
from bot.service.types import Live, Outbox, Timers
from bot.table.deadlines import TURN_KINDS, Notice, Pending, Timing
from bot.table.table import CANCELLED, FINISHED, LOBBY, PLAYING, Table
from bot.view.render import (
    Rendered,
    away_private,
    frozen_private,
    private_message,
    table_message,
)
from storage import Database, TableRow

log = logging.getLogger(__name__)

# Several workers on one database (`shared`): a computer to move is also a deadline, this
# many seconds on, renewed with every write; it fires only if the worker that was moving it
# died (another then takes the moves over).
COMPUTER_GRACE = 5.0
# ... and what a write must show is a deadline too, "shown", this many seconds on: the worker
# that wrote shows it at once, but if it died first (the next person's turn message, the
# group's table, a replaced hand message to delete, all owed), whichever worker fires the
# deadline renders the table as stored. What is already shown costs no call: the outbox
# compares what each message shows (noted in the database) before it sends anything.
SHOWN_GRACE = 3.0
ADMISSION_BACKLOG = 5.0  # seconds of calls queued for Telegram past which /new says "busy"


def _moment(table: Table) -> tuple[object, ...]:
    """What the group's table message must show at the group's pace when it changes: the
    table's state, a hand dealt, the auction's phases and the call, a trick taken, a hand's
    end, someone away. Between two moments (a card within a trick, a bid) a change is
    routine: the group sees it a little later (`TelegramOutbox.routine_interval`)."""
    hand = table.hand
    away = tuple(s.is_bot for s in table.seats)
    if hand is None or table.status != PLAYING:
        return (table.status, table.lang, away, table.move_no)  # every change matters
    return (
        table.status,
        table.lang,
        away,
        hand.hand_index,
        hand.phase,
        hand.caller,
        len(hand.tricks),
        hand.is_terminal(),
    )


def _their_moment(table: Table, seat: int) -> tuple[object, ...]:
    """What a person's hand message must show as soon as it changes, though it is not their
    turn: the match's first hand dealt (their cards; a later deal waits for their turn,
    `Tables.render`), the hand's end, the table closed, their seat away or back, their
    language. A bid, the call, a card played they see on their next turn, a
    few moves later, in its new message (the group's table message and the Mini App show
    every move): the call, too, as the first trick comes round to every seat at once (issue
    49: the budget their own tapped message's edit takes comes from here)."""
    hand = table.hand
    s = table.seats[seat]
    phase = (hand.hand_index, hand.is_terminal()) if hand else None
    return (table.status, s.is_bot, s.lang or table.lang, phase)


def _seat_moment(table: Table, seat: int, paused: bool) -> tuple[object, ...]:
    """`_their_moment`, and whether the match waits for them (news too)."""
    return (*_their_moment(table, seat), paused)


def _their_turn(table: Table, seat: int) -> bool:
    """Whether `seat` is to act now (a bid, the suit, the called card, a card, a signal)."""
    hand = table.hand
    return (
        table.status == PLAYING
        and hand is not None
        and not hand.is_terminal()
        and hand.current == seat
        and not table.forced()  # their last card plays itself (`Table.forced`)
    )


class Tables:
    """The tables' shared state and the steps every part of the table's life uses (`Play`,
    `Lobby`, `Closing`, `Waits` each hold it)."""

    def __init__(
        self,
        db: Database,
        outbox: Outbox,
        timers: Timers,
        langs: Languages,
        bot_username: str,
        *,
        bot_delay: float = 0.0,
        timing: Timing | None = None,
        shared: bool = False,
    ) -> None:
        self.db = db
        self.langs = langs
        self.out = outbox
        self.timers = timers
        self.timing = timing if timing is not None else Timing()
        self.background: set[asyncio.Task[None]] = set()  # notices on their way (`spawn`)
        self.bot_username = bot_username
        self.default_lang = langs.default
        self.bot_delay = bot_delay  # seconds a computer waits before its move (`Play`)
        self.by_id: dict[int, Table] = {}  # the tables in memory (open ones: see `shared`)
        # seconds of Telegram's budget already owed (the rate limiter's queue): past
        # `ADMISSION_BACKLOG` a new table is refused, the running ones keep the budget
        self.backlog: Callable[[], float] = lambda: 0.0
        self._locks: dict[int, asyncio.Lock] = {}
        self._chat_locks: dict[int, asyncio.Lock] = {}
        self._timer_tokens: dict[int, str] = {}
        # (table, seat) -> (version, turn, screen) while that seat looks at another screen of
        # the points bids than the first (§7.3; `bot.view.render.auction._bid_keyboard`)
        self._bid_pages: dict[tuple[int, int], tuple[int, int, int]] = {}
        # the moments last shown (`render`): the group's table message, each hand message
        self._moments: dict[tuple[int, int | None], tuple[object, ...]] = {}
        # the hand messages this process last showed as their person's turn (`render`)
        self._turn_open: set[tuple[int, int]] = set()
        # Other processes write the same database (several workers on PostgreSQL): the
        # database is the source of truth, `by_id` only a cache checked against the stored
        # version before each use (`current`), deadlines are claimed in the database
        # (`waits.py`), and the outbox never shows an older version over a newer one.
        self.shared = shared
        # The Mini App (`bot.webapp`): every render is published to its open pages, and the
        # group's table message links to it (`miniapp_link`)
        self.live: Live | None = None
        self.miniapp_short_name: str | None = None
        self.miniapp_param: Callable[[int], str] = lambda table_id: f"t{table_id}"
        # notices no longer true (`Pending.notices`), to delete once the write is stored
        self._moot: dict[int, list[Notice]] = {}
        self._titles: dict[int, str | None] = {}  # group -> its name, as last seen

    def busy_for(self) -> int | None:
        """Seconds after which a new table may be tried again, while Telegram's budget is
        `ADMISSION_BACKLOG` seconds behind (None: it is not): the queue's length, rounded
        up to ten seconds, so that the running tables keep the budget (issue 50.1)."""
        behind = self.backlog()
        if behind <= ADMISSION_BACKLOG:
            return None
        return min(120, 10 * math.ceil(behind / 10))

    def lock(self, table_id: int) -> asyncio.Lock:
        return self._locks.setdefault(table_id, asyncio.Lock())

    def chat_lock(self, chat_id: int) -> asyncio.Lock:
        """The group's lock: opening a table (/new, a rematch, a tournament's match) and
        changing the group's tournament, one at a time."""
        return self._chat_locks.setdefault(chat_id, asyncio.Lock())

    async def chat_title(self, chat_id: int) -> str | None:
        """The group's name, as the bot last saw it (`note_chat`)."""
        if chat_id not in self._titles:
            self._titles[chat_id] = (await self.db.people.chat_settings(chat_id)).get("title")
        return self._titles[chat_id]

    async def note_chat(self, chat_id: int, title: str | None) -> None:
        """Remember the group's name (written when it changes), for private messages."""
        if not title or await self.chat_title(chat_id) == title:
            return
        self._titles[chat_id] = title
        await self.db.people.update_chat_settings(chat_id, title=title)

    async def table_for_chat(self, chat_id: int) -> Table | None:
        if self.shared:
            row = await self.db.tables.active_table(chat_id)
            return None if row is None else self._adopt(row)
        for table in self.by_id.values():
            if table.chat_id == chat_id and table.status in (LOBBY, PLAYING):
                return table
        return None

    def from_row(self, row: TableRow) -> Table:
        return Table.restore(
            table_id=row.table_id,
            chat_id=row.chat_id,
            creator_id=row.creator_id,
            status=row.status,
            lang=row.lang or self.default_lang,
            options_json=row.options_json,
            seats_json=row.seats_json,
            match_json=row.match_json,
            hand_json=row.hand_json,
            move_no=row.move_no,
            table_message_id=row.table_message_id,
            timers_json=row.timers_json,
        )

    def _adopt(self, row: TableRow) -> Table:
        """The table as stored in `row`: the cached object if it is at that version (with
        what changes without a new version brought up to date), else a new one."""
        table = self.by_id.get(row.table_id)
        if table is None or table.move_no != row.move_no:
            table = self.by_id[row.table_id] = self._moved_on(self.from_row(row))
        else:
            table.table_message_id = row.table_message_id
            table.lang = row.lang or self.default_lang
            table.pending = Pending.from_json(row.timers_json)
        return table

    async def current(self, table_id: int) -> Table | None:
        """The table as it is now, if it is open (lobby or playing). Alone, from memory; with
        other workers (`shared`), checked against the stored version first and read again
        if another worker moved it on (one small read; the whole row only then)."""
        if not self.shared:
            return self.by_id.get(table_id)
        head = await self.db.tables.table_head(table_id)
        if head is None or head.status not in (LOBBY, PLAYING):
            self.by_id.pop(table_id, None)
            return None
        table = self.by_id.get(table_id)
        if table is None or table.move_no != head.move_no:
            return await self.reload(table_id)
        table.table_message_id = head.table_message_id
        table.lang = head.lang or self.default_lang
        table.pending = Pending.from_json(head.timers_json)
        return table

    async def reload(self, table_id: int) -> Table | None:
        row = await self.db.tables.get_table(table_id)
        if row is None:
            self.by_id.pop(table_id, None)
            return None
        table = self._moved_on(self.from_row(row))
        self.by_id[table_id] = table
        return table

    def _moved_on(self, table: Table) -> Table:
        """The table as another worker stored it (`shared`): that worker shows (or owes,
        `SHOWN_GRACE`) what it stored, so the group's message is at that moment, and the next
        move's change is routine or not by what that move changes. (Three workers each
        comparing with the last state they had rendered themselves took nearly every change
        for a moment: the table edited every 4 s, the group's room used up by it alone; and
        each edited every hand message once a hand after the deal and the call it had not
        seen itself.)"""
        if not self.shared:
            return table
        tid = table.table_id
        self._moments[(tid, None)] = _moment(table)
        hand = table.hand
        if table.status == PLAYING and hand is not None and not hand.is_terminal():
            # ... and so are the hand messages (a hand's end is left to the render: the
            # worker that shows it sweeps the hand's replaced messages)
            paused = table.paused()
            for seat, s in enumerate(table.seats):
                if s.user_id is not None:
                    self._moments[(tid, seat)] = _seat_moment(table, seat, paused)
        return table

    def deep_link(self, table_id: int) -> str:
        return f"https://t.me/{self.bot_username}?start=t{table_id}"

    def lang_for(self, table: Table, user_id: int) -> str:
        """The language to answer a seated person's tap in: theirs, else the table's."""
        seat = table.seat_of(user_id)
        return (table.seats[seat].lang if seat is not None else None) or table.lang

    def miniapp_link(self, table_id: int) -> str | None:
        """The Mini App's direct link opening this table, when there is a Mini App."""
        if not self.miniapp_short_name:
            return None
        param = self.miniapp_param(table_id)  # `bot.webapp.auth.TableKeys`: id and key
        return f"https://t.me/{self.bot_username}/{self.miniapp_short_name}?startapp={param}"

    def replay_link(self, table_id: int, hand_index: int) -> str | None:
        """The Mini App's direct link opening the replay of a finished hand (issue 51.3):
        the table's start parameter after the hand's index, `h<hand>_t<table>_<key>`."""
        if not self.miniapp_short_name:
            return None
        param = f"h{hand_index}_{self.miniapp_param(table_id)}"
        return f"https://t.me/{self.bot_username}/{self.miniapp_short_name}?startapp={param}"

    def table_content(self, table: Table, lang: str) -> Rendered:
        """The group's table message (with the Mini App's button while the match is on)."""
        return table_message(table, lang, app_link=self.miniapp_link(table.table_id))

    async def table_view(self, table_id: int) -> Table | None:
        """The table as stored now, open or closed (the Mini App shows a finished one too).
        Under the table's lock: a move applied in memory is not shown before it is stored."""
        async with self.lock(table_id):
            table = await self.current(table_id)
        if table is not None:
            return table
        row = await self.db.tables.get_table(table_id)
        return None if row is None else self.from_row(row)

    def render(
        self, table: Table, resend: bool = False, urgent: bool = False, owed: bool = False
    ) -> None:
        """Show the table as it is now: the Mini App's open pages every change; the group's
        table message (a routine change at a slower pace, `_moment`); the hand message of the
        person to act (a new message on their turn) and the others' only at the moments that
        matter to them (`_their_moment`): Telegram's budget is about one call per move.
        `owed`: what another worker's write owed (`SHOWN_GRACE`), shown by one that may never
        have shown this table: the others' hand messages, whose moments it does not know,
        wait for their turn (or the hand's end) rather than being edited all at once."""
        lang = table.lang
        tid = table.table_id
        if self.live is not None:  # the open Mini App pages, each as its viewer sees it
            self.live.publish(table)
        moment = _moment(table)
        routine = not (urgent or resend or owed) and self._moments.get((tid, None)) == moment
        self._moments[(tid, None)] = moment
        if table.status == CANCELLED and (table.closed or {}).get("drop"):
            self.out.drop_table(table)  # another message says it was closed, and why
        else:
            content = self.table_content(table, lang)
            self.out.show_table(table, content, urgent=urgent, routine=routine, moment=repr(moment))
        closed = table.status in (FINISHED, CANCELLED)
        if closed:  # no more bids: forget their screens
            for seat in range(len(table.seats)):
                self._bid_pages.pop((tid, seat), None)
        if table.hand is None:
            if closed:
                self._forget_moments(tid)
            return
        paused = table.paused()
        abandoned = table.status == CANCELLED and (table.closed or {}).get("key") == "abandoned"
        ended = table.hand.is_terminal() or closed
        # an all-pass redeal (§7.4) is over before any card: its replaced turn messages go
        # with the next played hand's (one deleteMessages per chat and hand played)
        redeal = table.hand.is_terminal() and not closed and table.hand.result().redeal
        sweep = False
        actions = table.hand.actions
        last_actor = actions[-1][0] if actions else -1
        for seat, s in enumerate(table.seats):
            if s.user_id is None:
                continue
            if not closed and self.live is not None and self.live.visible(tid, s.user_id):
                self._turn_open.discard((tid, seat))  # the page shows it, and takes taps
                continue  # their Mini App page is open and shows it: the chat stays quiet
            theirs = not s.is_bot and _their_turn(table, seat)
            now = _seat_moment(table, seat, paused)
            # their turn is over (they acted, the computer acted for them, the table closed)
            # while their chat still shows it: that message changes at once to say what
            # happened, without buttons (issue 49). Whoever acted last is checked too: with
            # other workers the turn may have been shown by another (the outbox edits only a
            # message that still shows a turn, `settle`).
            settle = not theirs and ((tid, seat) in self._turn_open or seat == last_actor)
            if theirs:
                self._turn_open.add((tid, seat))
            else:
                self._turn_open.discard((tid, seat))
            before = self._moments.get((tid, seat))
            moved = before != now
            if (
                moved
                and before is not None
                and before[:3] == now[:3]
                and before[4:] == now[4:]
                and not (theirs or urgent or resend or settle or ended or paused or s.is_bot)
                and not any(who == seat for who, _ in table.hand.actions)
            ):
                # a new hand dealt, and nothing else changed for them: someone not first to
                # act sees their new cards in their turn's message, a few moves on (the
                # group's table and the Mini App show the deal at once). One message and
                # call fewer a hand and person (issue 49); the match's first deal shows
                continue
            if (
                redeal
                and moved
                and before is not None
                and before[:3] == now[:3]
                and not (theirs or urgent or resend or settle or paused or s.is_bot)
            ):
                # an all-pass redeal (§7.4): the group's table says so; each one's chat
                # keeps their pass as it was recorded, and the next deal comes with their
                # turn, which says why (issue 49: five calls fewer a redeal)
                continue
            if not (theirs or urgent or resend or settle) and not moved:
                continue  # they see this change on their next turn
            if owed and not (theirs or ended or settle) and (tid, seat) not in self._moments:
                self._moments[(tid, seat)] = now
                continue
            sweep = sweep or (ended and moved and not redeal)
            self._moments[(tid, seat)] = now
            plang = s.lang or lang  # each person in their own language
            if table.status == CANCELLED:  # nobody's buttons work any more
                content = frozen_private(table, plang, "abandoned_pm" if abandoned else "cancelled")
            elif table.hand.is_terminal() or not s.is_bot:
                # the hand's summary reaches everyone, whoever played the seat
                page = self._bid_pages.get((tid, seat))
                shown = (table.move_no, table.turn_start())
                more = page[2] if page is not None and page[:2] == shown else 0
                content = private_message(table, seat, plang, bid_page=more)
            else:  # they left, or ran out of time twice: the computer plays
                content = away_private(table, seat, plang)
            # their turn (the actions they take one after another are one turn): the hand
            # comes as a new message, which notifies (an edit does not); so does the news
            # that the match waits for them (a key of its own), which its end as abandoned
            # then edits (its button goes: no dead button left once the table is closed)
            turn = f"{table.hand.hand_index}.{table.turn_start()}" if theirs else None
            if table.status == CANCELLED:  # the match ended without a result: news too
                turn = f"{table.hand.hand_index}.closed"
            elif s.is_bot and paused:
                turn = f"{table.hand.hand_index}.paused"
            # only a change of moment (or a resend) must show; a settled turn, only if the
            # chat still shows that turn
            only_turn = settle and not (moved or urgent or resend) and turn is None
            self.out.show_private(table, s.user_id, content, turn=turn, settle=only_turn)
        if sweep:  # the hand is over: its replaced turn messages go, one call per chat
            self.out.sweep(table)
        if closed:
            self._forget_moments(tid)

    def page_visibility(self, table_id: int, user_id: int, visible: bool) -> None:
        """A person's Mini App page of the table went to the background or closed: their
        private chat takes over at once (their turn as a new message, else their hand as it
        is now). `LiveHub.on_visibility`'s callback."""
        if not visible:
            self.spawn(self.show_hand(table_id, user_id))

    async def show_hand(self, table_id: int, user_id: int) -> None:
        """Show a seated person their hand message as it is now, whatever it showed last
        (their private chat takes over from a Mini App page, /start after a deep link)."""
        async with self.lock(table_id):
            table = await self.current(table_id)
            seat = None if table is None else table.seat_of(user_id)
            if table is None or seat is None or table.status in (FINISHED, CANCELLED):
                return
            self.forget_moment(table_id, seat)
            self.render(table)

    def forget_moment(self, table_id: int, seat: int) -> None:
        """The seat's hand message is shown as it is at the next `render`, whatever it
        showed last."""
        self._moments.pop((table_id, seat), None)

    def set_bid_page(self, table_id: int, seat: int, shown: tuple[int, int, int] | None) -> None:
        """The screen of the points bids the seat looks at (version, turn, screen), or the
        first (None): `render` shows it."""
        if shown is None:
            self._bid_pages.pop((table_id, seat), None)
        else:
            self._bid_pages[(table_id, seat)] = shown

    def _forget_moments(self, table_id: int) -> None:
        for key in [k for k in self._moments if k[0] == table_id]:
            del self._moments[key]
        self._turn_open = {k for k in self._turn_open if k[0] != table_id}

    def spawn(self, coro: Awaitable[None]) -> None:
        """Send a notice without holding the table (the group's budget may make it wait)."""

        async def run() -> None:
            await coro

        task = asyncio.create_task(run())
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def store_pending(self, table: Table) -> bool:
        """Write the deadlines alone (a mention sent, a request to cancel). With other
        workers, only onto the version they were set for: False (and the table read again)
        if another worker wrote it meanwhile, with deadlines of its own."""
        try:
            stored = await self.db.tables.set_timers(
                table.table_id,
                table.pending.to_json(),
                expected_move_no=table.move_no if self.shared else None,
            )
        except Exception:  # at worst a notice is sent twice after a restart
            log.exception("table %s: storing the deadlines failed", table.table_id)
            return False
        if not stored and self.shared:
            await self.reload(table.table_id)
        return stored

    def plan(self, table: Table, *, activity: bool = False) -> None:
        """Set the table's deadlines for its state now (under its lock, before the state is
        written, so they are stored with it). A person's turn keeps the deadlines it began
        with whatever else is written meanwhile; `activity`: a change in the lobby, which
        starts its expiry again. With other workers, what the write must show is owed
        (`SHOWN_GRACE`)."""
        self._plan_deadlines(table, activity=activity)
        if self.shared and table.status in (LOBBY, PLAYING):
            table.pending.at["shown"] = self.timing.now() + SHOWN_GRACE

    def _plan_deadlines(self, table: Table, *, activity: bool) -> None:
        p = table.pending
        now = self.timing.now()
        hand = table.hand
        if table.status == LOBBY:
            p.turn, p.cancel = None, None
            p.at = {k: v for k, v in p.at.items() if k == "expire"}
            if activity or "expire" not in p.at:
                p.at["expire"] = self.timing.lobby_expiry(now)
            return
        if table.status != PLAYING or hand is None:  # closed: nothing to wait for
            p.at.clear()
            p.turn = None
            self._drop_moot(table)
            return
        p.at.pop("expire", None)
        if table.paused():  # nobody but computers to play: the match waits for its people
            for k in (*TURN_KINDS, "computer", "next"):
                p.at.pop(k, None)
            p.turn = None
            p.at.setdefault("abandon", self.timing.abandon(now))
            self._drop_moot(table)
            return
        p.at.pop("abandon", None)
        if hand.is_terminal():  # the pause before the next hand
            p.at.pop("computer", None)
            key = [hand.hand_index, -1, -1]
            if p.turn != key:
                for k in TURN_KINDS:
                    p.at.pop(k, None)
                p.turn = key
                if table.timer:
                    p.at["next"] = self.timing.next_hand(now)
            self._drop_moot(table)
            return
        p.at.pop("next", None)
        p.at.pop("computer", None)
        seat = hand.current
        if table.seats[seat].user_id is None or table.bot_to_act() is not None:
            for k in TURN_KINDS:  # a computer plays (or a forced card): nobody is waited for
                p.at.pop(k, None)
            p.turn = None
            if self.shared:  # ... but another worker takes over if this one dies
                p.at["computer"] = now + COMPUTER_GRACE + 2 * self.bot_delay
            self._drop_moot(table)
            return
        key = [hand.hand_index, len(hand.actions), seat]
        if p.turn != key:
            for k in TURN_KINDS:
                p.at.pop(k, None)
            p.turn = key
            p.at.update(self.timing.turn_deadlines(table.timer, now))
        self._drop_moot(table)

    def _drop_moot(self, table: Table) -> None:
        """The table's notices that are no longer true at its state now leave its deadlines
        (stored with them) and are deleted once the write is (`_delete_moot`)."""
        hand = table.hand
        live = (
            hand.hand_index
            if table.status == PLAYING and hand is not None and not hand.is_terminal()
            else None
        )
        moot = table.pending.moot_notices(live)
        if moot:
            self._moot.setdefault(table.table_id, []).extend(moot)

    def _delete_moot(self, table_id: int) -> None:
        """Delete the notices `_drop_moot` took out: one call per chat (`deleteMessages`)."""
        moot = self._moot.pop(table_id, [])
        chats: dict[int, list[int]] = {}
        for n in moot:
            chats.setdefault(n.chat_id, []).append(n.message_id)
        for chat_id, ids in chats.items():
            self.out.delete_soon(chat_id, ids)

    def arm(self, table: Table) -> None:
        """One timer per table, for its earliest deadline (at once if it has passed); the
        notices its state made moot go."""
        tid = table.table_id
        self._delete_moot(tid)
        self.timers.cancel(tid)
        self._timer_tokens.pop(tid, None)
        if table.status not in (LOBBY, PLAYING):
            return
        first = table.pending.earliest()
        if first is None:
            return
        token = secrets.token_hex(4)
        self._timer_tokens[tid] = token
        self.timers.start(tid, max(0.0, first[1] - self.timing.now()), token)

    def take_timer(self, table_id: int, token: str) -> bool:
        """The table's timer fired with `token`: whether it is the one armed last (it is
        then no longer armed)."""
        if self._timer_tokens.get(table_id) != token:
            return False
        del self._timer_tokens[table_id]
        return True

    def timer_armed(self, table_id: int) -> bool:
        return table_id in self._timer_tokens

    def turn_key(self, table: Table) -> list[int] | None:
        hand = table.hand
        if table.status != PLAYING or hand is None or hand.is_terminal():
            return None
        return [hand.hand_index, len(hand.actions), hand.current]

    def end_request(self, table: Table, key: str, **kw: str) -> None:
        """A request to cancel is settled: its message says how, and loses its buttons."""
        request = table.pending.cancel
        if request is None:
            return
        table.pending.cancel = None
        table.pending.at.pop("cancel", None)
        if request.message_id is not None:
            content = Rendered(t(table.lang, key, **kw), [])
            self.spawn(self.out.edit(table.chat_id, request.message_id, content))
