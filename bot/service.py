"""The table service: what every handler calls. Locks, persists, runs computer players, renders.

One lock per table. Every accepted action is written (snapshot + move log, and the ledger in
the same transaction when a hand or match ends) before anything is shown. After a failed
write the table is reloaded from the database, so memory never runs ahead of what is stored.
Telegram is reached only through `Outbox` (rendering is coalesced there) and `Timers`.

A person's action returns as soon as it is stored, so the tap is answered at once; the
computer players then move in a background task per table (`_play_computers`), thinking
without the table's lock (`bot.players.thinker`: `hard` in worker processes) and applying a decision
only if the table has not changed meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol

from bot.engine import VARIANTS, Options
from bot.i18n import LANGS, option_name, t, value_name, variant_name
from bot.players import DEFAULT_LEVEL
from bot.players.thinker import Job, Thinker
from bot.table.deadlines import TURN_KINDS, CancelRequest, Timing
from bot.table.ledger import hand_key, match_key, settle
from bot.table.table import CANCELLED, FINISHED, LOBBY, PLAYING, Seat, Table, TableError
from bot.telegram.callback_data import callback_data
from bot.telegram.render import (
    SETTING_CHOICES,
    TABLE_SETTINGS,
    Button,
    Keyboard,
    Rendered,
    applicable_settings,
    away_private,
    frozen_private,
    mention,
    option_message,
    private_message,
    setting_values,
    settings_message,
    table_message,
    variant_picker,
)
from storage import (
    Database,
    LedgerRecord,
    Move,
    StaleMove,
    StorageError,
    TableExists,
    TableRow,
)

log = logging.getLogger(__name__)

REPOST_EVERY = 5.0  # seconds: /table re-posts a group's table message at most this often


@dataclass(frozen=True, slots=True)
class Person:
    user_id: int
    name: str
    lang: str | None = None  # from their Telegram language (it or en), None if unknown


@dataclass(frozen=True, slots=True)
class Reply:
    """What a handler sends back: a message (commands) or a callback answer (buttons)."""

    text: str
    keyboard: Keyboard | None = None
    alert: bool = False
    repost: int | None = None  # re-post this table's message below the reply (`repost`)
    key: str = ""  # the `bot.i18n` key of the outcome, for callers to compare (not `text`)


# Whether the person is an admin of the group: asked only when it matters (they are not the
# table's creator), since asking Telegram spends the group's call budget.
AdminCheck = Callable[[], Awaitable[bool]]


class Outbox(Protocol):
    def show_table(self, table: Table, content: Rendered, *, urgent: bool = False) -> None: ...

    def repost(self, table: Table, content: Rendered) -> None: ...

    async def pin(self, table: Table) -> None: ...

    def show_private(
        self,
        table: Table,
        user_id: int,
        content: Rendered,
        *,
        urgent: bool = False,
        notify: bool = False,
    ) -> None: ...

    async def say(self, chat_id: int, text: str, keyboard: Keyboard | None = None) -> None: ...

    async def edit(self, chat_id: int, message_id: int, content: Rendered) -> None: ...

    async def post(self, chat_id: int, content: Rendered) -> int | None: ...

    async def preload(self, tables: list[Table]) -> None: ...

    def unblock(self, user_id: int) -> None: ...

    async def flush(self) -> None: ...


class Timers(Protocol):
    def start(self, table_id: int, seconds: float, token: str) -> None: ...

    def cancel(self, table_id: int) -> None: ...


def _their_turn(table: Table, seat: int) -> bool:
    """Whether `seat` is to act now (a bid, the suit, the called card, a card, a signal)."""
    hand = table.hand
    return (
        table.status == PLAYING
        and hand is not None
        and not hand.is_terminal()
        and hand.current == seat
    )


class TableService:
    def __init__(
        self,
        db: Database,
        outbox: Outbox,
        timers: Timers,
        bot_username: str,
        default_lang: str = "it",
        bot_delay: float = 0.0,
        thinker: Thinker | None = None,
        timing: Timing | None = None,
    ) -> None:
        self.db = db
        self.out = outbox
        self.timers = timers
        self.timing = timing if timing is not None else Timing()
        self._background: set[asyncio.Task[None]] = set()  # notices on their way
        self.bot_username = bot_username
        self.default_lang = default_lang
        self.bot_delay = bot_delay
        self.tables: dict[int, Table] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._chat_locks: dict[int, asyncio.Lock] = {}
        self._timer_tokens: dict[int, str] = {}
        self.thinker = thinker if thinker is not None else Thinker(workers=0)
        self._computers: dict[int, asyncio.Task[None]] = {}
        # (table, seat) -> (version, turn) while that seat looks at every points bid (§7.3)
        self._bid_pages: dict[tuple[int, int], tuple[int, int]] = {}
        self._reposted: dict[int, float] = {}  # chat -> when /table last re-posted its table

    # ------------------------------------------------------------------ helpers

    def _lock(self, table_id: int) -> asyncio.Lock:
        return self._locks.setdefault(table_id, asyncio.Lock())

    async def chat_lang(self, chat_id: int) -> str:
        return await self.db.chat_lang(chat_id) or self.default_lang

    def _err(self, lang: str, exc: TableError) -> Reply:
        return Reply(
            t(lang, exc.key, **exc.kw), alert=exc.key.startswith("err_option"), key=exc.key
        )

    async def _table_for_chat(self, chat_id: int) -> Table | None:
        for table in self.tables.values():
            if table.chat_id == chat_id and table.status in (LOBBY, PLAYING):
                return table
        return None

    def _from_row(self, row: TableRow) -> Table:
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

    async def _reload(self, table_id: int) -> Table | None:
        row = await self.db.get_table(table_id)
        if row is None:
            self.tables.pop(table_id, None)
            return None
        table = self._from_row(row)
        self.tables[table_id] = table
        return table

    def deep_link(self, table_id: int) -> str:
        return f"https://t.me/{self.bot_username}?start=t{table_id}"

    # ------------------------------------------------------------------ start-up

    async def restore(self) -> int:
        """Load every unfinished table and carry on (computer turns, timers, messages).
        Tables that ended in the last hour get their final message once more: a crash
        right after the last move was stored must not swallow the result."""
        for row in await self.db.closed_tables_since(datetime.now(UTC) - timedelta(hours=1)):
            self._render(self._from_row(row))
        rows = await self.db.unfinished_tables()
        for row in rows:
            table = self._from_row(row)
            self.tables[table.table_id] = table
        await self.out.preload(list(self.tables.values()))
        for table in list(self.tables.values()):
            async with self._lock(table.table_id):
                # the deadlines stored are absolute: what is left is re-armed, what passed
                # while the bot was down fires at once (tables stored without any get theirs)
                stored = table.pending.to_json()
                self._plan(table)
                if table.pending.to_json() != stored:
                    await self._store_pending(table)
                self._settle(table)
                self._render(table)
        return len(rows)

    async def idle(self, timeout: float = 30.0) -> None:
        """Wait until no computer player is thinking or moving (tests, shutdown)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (
            tasks := [t for t in [*self._computers.values(), *self._background] if not t.done()]
        ) and (loop.time() < deadline):
            await asyncio.wait(tasks, timeout=deadline - loop.time())

    async def close(self) -> None:
        """Stop the computer players' tasks (what they had decided is stored or redone);
        the notices on their way get a moment to go out."""
        if self._background:
            await asyncio.wait(list(self._background), timeout=2.0)
        tasks = list(self._computers.values()) + list(self._background)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.thinker.close()

    # ------------------------------------------------------------------ lobby

    async def new_table(
        self,
        chat_id: int,
        person: Person,
        variant: str | None,
        is_group: bool,
        picker_message_id: int | None = None,
    ) -> Reply:
        """Open a table. `picker_message_id`: the variant picker the choice came from; it
        becomes the table message (its variant buttons go away)."""
        lang = await self.chat_lang(chat_id)
        if not is_group:
            return Reply(t(lang, "err_group_only"))
        existing = await self._table_for_chat(chat_id)
        if existing is not None:  # /new during a game: where the table is, how to close it
            return await self._exists(existing, picker_message_id)
        if variant is None:
            picker = variant_picker(lang)
            return Reply(picker.text, picker.keyboard)
        variant = variant.strip().lower()
        if variant not in VARIANTS:
            return Reply(t(lang, "err_bad_variant", given=variant, variants=", ".join(VARIANTS)))
        await self.db.upsert_user(person.user_id, person.name)
        lock = self._chat_locks.setdefault(chat_id, asyncio.Lock())
        async with lock:
            existing = await self._table_for_chat(chat_id)
            if existing is not None:
                return await self._exists(existing, picker_message_id)
            table = Table(0, chat_id, person.user_id, Options.parse(variant), lang=lang)
            table.join(person.user_id, person.name, await self._person_lang(person))
            if not await self._create(table):
                return Reply(t(lang, "err_table_exists"))
            if picker_message_id is not None:
                await self.db.update_lobby(table.table_id, table_message_id=picker_message_id)
                table.table_message_id = picker_message_id
            self.tables[table.table_id] = table
        self._render(table, urgent=True)
        return await self._with_link(table, person, Reply(""))

    async def _exists(self, table: Table, picker_message_id: int | None) -> Reply:
        """/new while the group has a table: say so, and re-post the table below."""
        lang = table.lang
        if picker_message_id is not None:  # the variant picker of a /new that came too late
            gone = Rendered(t(lang, "err_table_exists"), [])
            await self.out.edit(table.chat_id, picker_message_id, gone)
        return Reply(t(lang, "table_exists_moved"), repost=table.table_id)

    async def _create(self, table: Table) -> bool:
        """Store a new lobby `table` (its id and move number set from the row) with its
        expiry, and arm its timer. False if the chat has an open table already."""
        self._plan(table, activity=True)  # the lobby's expiry, written with the table
        try:
            row = await self.db.create_table(
                table.chat_id,
                table.creator_id,
                table.options.variant,
                table.options_json(),
                table.seats_json(),
                table.lang,
                timers_json=table.pending.to_json(),
            )
        except TableExists:
            return False
        table.table_id = row.table_id
        table.move_no = row.move_no
        self._arm(table)
        return True

    async def repost(self, chat_id: int, table_id: int | None = None) -> Reply:
        """/table: the group's table message again at the bottom of the chat (the old one is
        deleted or frozen, see `Outbox.repost`). At most once every `REPOST_EVERY` seconds
        per group: a second /table meanwhile costs no call."""
        lang = await self.chat_lang(chat_id)
        table = self.tables.get(table_id) if table_id else await self._table_for_chat(chat_id)
        if table is None or table.chat_id != chat_id or table.status not in (LOBBY, PLAYING):
            return Reply(t(lang, "err_no_table"))
        now = asyncio.get_running_loop().time()
        if now - self._reposted.get(chat_id, -REPOST_EVERY) < REPOST_EVERY:
            return Reply("")
        self._reposted[chat_id] = now
        async with self._lock(table.table_id):
            current = self.tables.get(table.table_id)
            if current is not None:
                self.out.repost(current, table_message(current, current.lang))
        return Reply("")

    async def _person_lang(self, person: Person) -> str | None:
        """A person's language for their private messages: the one they chose with /lang,
        else their Telegram language, else None (the table's)."""
        user = await self.db.get_user(person.user_id)
        return (user.lang if user is not None else None) or person.lang

    async def _lobby_op(
        self,
        chat_id: int,
        op: Callable[[Table], str],
        *,
        table_id: int | None = None,
    ) -> Reply:
        lang = await self.chat_lang(chat_id)
        found = self.tables.get(table_id) if table_id else await self._table_for_chat(chat_id)
        if found is None:
            return Reply(t(lang, "err_no_table"))
        tid = found.table_id
        async with self._lock(tid):
            table = self.tables.get(tid)  # the current object (a failed write reloads it)
            if table is None or table.chat_id != chat_id or table.status not in (LOBBY, PLAYING):
                return Reply(t(lang, "err_no_table"))
            lang = table.lang
            was = table.status
            try:
                msg = op(table)
            except TableError as exc:
                await self._reload(tid)
                return self._err(lang, exc)
            starting = was == LOBBY and table.status == PLAYING
            self._plan(table, activity=True)
            try:
                row = await self.db.update_lobby(
                    tid,
                    seats_json=table.seats_json(),
                    options_json=table.options_json(),
                    variant=table.options.variant,
                    # a start is written below, with the match and the dealt hand, at once
                    status=LOBBY if starting else table.status,
                    timers_json=table.pending.to_json(),
                    expected_move_no=table.move_no,
                )
            except StorageError:
                log.exception("table %s: lobby write failed, reloading", tid)
                await self._reload(tid)
                return Reply(t(lang, "err_busy"))
            table.move_no = row.move_no
            if table.status == PLAYING:
                try:
                    await self._save(table, None)  # the match and the dealt hand
                except TableError as exc:
                    return self._err(lang, exc)
            self._settle(table)  # computers, deadlines; a closed table is let go
            # a start or a cancel makes the lobby's buttons meaningless: show it at once
            self._render(table, urgent=starting or table.status == CANCELLED)
            if table.status == CANCELLED:
                self.tables.pop(tid, None)
        return Reply(t(lang, msg) if msg else "", key=msg)

    async def join(self, chat_id: int, person: Person, table_id: int | None = None) -> Reply:
        await self.db.upsert_user(person.user_id, person.name)
        plang = await self._person_lang(person)

        def op(tb: Table) -> str:
            if tb.status == PLAYING and tb.seat_of(person.user_id) is not None:
                tb.rejoin(person.user_id)  # back from /leave or from two timeouts
                return "ok_back"
            tb.join(person.user_id, person.name, plang)
            return "ok_joined"

        reply = await self._lobby_op(chat_id, op, table_id=table_id)
        table = self.tables.get(table_id) if table_id else await self._table_for_chat(chat_id)
        if reply.text and table is not None and table.seat_of(person.user_id) is not None:
            return await self._with_link(table, person, reply)
        return reply

    async def _with_link(self, table: Table, person: Person, reply: Reply) -> Reply:
        """A seated person who never opened a private chat with the bot gets the deep link
        that opens it (/start t<table> seats them and sends their hand)."""
        user = await self.db.get_user(person.user_id)
        if user is None or user.can_dm:
            return reply
        lang = table.lang
        link = [[Button(t(lang, "btn_open_chat"), url=self.deep_link(table.table_id))]]
        return Reply(t(lang, "need_dm", who=person.name), link)

    async def leave(self, chat_id: int, person: Person, table_id: int | None = None) -> Reply:
        def op(tb: Table) -> str:
            playing = tb.status == PLAYING
            tb.leave(person.user_id)
            return "ok_left_playing" if playing else "ok_left"

        return await self._lobby_op(chat_id, op, table_id=table_id)

    async def add_bot(
        self, chat_id: int, level: str = DEFAULT_LEVEL, table_id: int | None = None
    ) -> Reply:
        return await self._lobby_op(
            chat_id, lambda tb: (tb.add_bot(level), "")[1], table_id=table_id
        )

    async def set_option(
        self,
        chat_id: int,
        person: Person,
        key: str,
        value: str,
        table_id: int | None = None,
        *,
        is_admin: bool | AdminCheck = False,
        panel: bool = True,
        bot_admin: AdminCheck | None = None,
    ) -> Reply:
        """Set one setting before the start (`set_options`)."""
        return await self.set_options(
            chat_id,
            person,
            [(key, value)],
            table_id,
            is_admin=is_admin,
            panel=panel,
            bot_admin=bot_admin,
        )

    async def set_options(
        self,
        chat_id: int,
        person: Person,
        pairs: list[tuple[str, str]],
        table_id: int | None = None,
        *,
        is_admin: bool | AdminCheck = False,
        panel: bool = True,
        bot_admin: AdminCheck | None = None,
    ) -> Reply:
        """Set settings before the start, all or nothing: if one is refused (an unknown
        setting, a value it does not take, one the other settings exclude) nothing changes
        and the answer names the values allowed. `panel`: the change came from the settings
        buttons, so the table message goes back to the settings panel (a /settings k=v
        command leaves the lobby, which lists the settings, in place). `bot_admin`: whether
        the bot administers the group, asked only to turn `pin` on."""
        admin = await self._admin(chat_id, person, is_admin, table_id)
        may_pin = True
        if ("pin", "true") in pairs and bot_admin is not None:
            may_pin = await bot_admin()

        def op(tb: Table) -> str:
            if person.user_id != tb.creator_id and not admin:
                raise TableError("err_not_allowed")
            if tb.status != LOBBY:
                raise TableError("err_started")
            pending = list(pairs)
            progress = True
            while pending and progress:  # in any order: deck=french southern=true too
                progress = False
                for pair in list(pending):
                    with contextlib.suppress(TableError):
                        self._set_one(tb, *pair, may_pin=may_pin)
                        pending.remove(pair)
                        progress = True
            if pending:  # the first refused one says why (the table is then reloaded)
                self._set_one(tb, *pending[0], may_pin=may_pin)
            return "ok_option"

        reply = await self._lobby_op(chat_id, op, table_id=table_id)
        table = self.tables.get(table_id) if table_id else await self._table_for_chat(chat_id)
        ok = table is not None and reply.key == "ok_option"
        if ok and table is not None and table.status == LOBBY:
            if panel:
                self.out.show_table(table, settings_message(table, table.lang))
            if table.pin and ("pin", "true") in pairs:
                await self.out.pin(table)
        return reply

    @staticmethod
    def _set_one(tb: Table, key: str, value: str, *, may_pin: bool) -> None:
        """Set one setting on `tb`, or raise TableError naming what is allowed."""
        lang = tb.lang
        computers = bool(tb.computer_seats())
        if key not in SETTING_CHOICES:
            keys = ", ".join(applicable_settings(tb.options, computers=computers))
            raise TableError("err_unknown_option", given=key, keys=keys)
        name = option_name(lang, key)
        allowed = setting_values(tb, key)
        if not allowed:
            raise TableError("err_option_fixed", name=name)
        words = ", ".join(f"{v} ({value_name(lang, key, v)})" for v in allowed)
        if value not in SETTING_CHOICES[key]:
            raise TableError("err_option_value", name=name, value=value, values=words)
        if value not in allowed:
            raise TableError(
                "err_option_combo", name=name, value_name=value_name(lang, key, value), values=words
            )
        if key == "pin" and value == "true" and not may_pin:
            raise TableError("err_pin_not_admin")
        if key == "timer":
            tb.timer = int(value)
        elif key in TABLE_SETTINGS:  # pin, counts (§10.5: only with computer seats)
            setattr(tb, key, value == "true")
        else:
            tb.set_option(key, value)

    async def show_option(self, chat_id: int, table_id: int, key: str) -> Reply:
        """The settings panel's screen of one setting (a button of `settings_message`)."""
        lang = await self.chat_lang(chat_id)
        table = self.tables.get(table_id)
        if table is None or table.chat_id != chat_id:
            return Reply(t(lang, "err_no_table"))
        if table.status != LOBBY:
            return Reply(t(table.lang, "err_started"))
        if not setting_values(table, key):
            return Reply(t(table.lang, "err_bad_data"))
        self.out.show_table(table, option_message(table, key, table.lang))
        return Reply("")

    async def show_settings(self, chat_id: int, table_id: int | None = None) -> Reply:
        lang = await self.chat_lang(chat_id)
        table = self.tables.get(table_id) if table_id else await self._table_for_chat(chat_id)
        if table is None or table.chat_id != chat_id:
            return Reply(t(lang, "err_no_table"))
        if table.status != LOBBY:
            return Reply(t(table.lang, "err_started"))
        self.out.show_table(table, settings_message(table, table.lang))
        return Reply("")

    async def back_to_lobby(self, chat_id: int, table_id: int) -> Reply:
        table = self.tables.get(table_id)
        if table is None or table.chat_id != chat_id:
            return Reply(t(await self.chat_lang(chat_id), "err_no_table"))
        self._render(table)
        return Reply("")

    async def start(
        self,
        chat_id: int,
        person: Person,
        *,
        is_admin: bool | AdminCheck,
        fill: bool = False,
        table_id: int | None = None,
    ) -> Reply:
        admin = await self._admin(chat_id, person, is_admin, table_id)

        def op(tb: Table) -> str:
            if person.user_id != tb.creator_id and not admin:
                raise TableError("err_not_allowed")
            if fill:
                while len(tb.seats) < tb.n_players:
                    tb.add_bot(DEFAULT_LEVEL)
            tb.start(secrets.token_hex(8))
            return ""

        reply = await self._lobby_op(chat_id, op, table_id=table_id)
        return reply

    async def cancel(
        self,
        chat_id: int,
        person: Person,
        *,
        is_admin: bool | AdminCheck,
        table_id: int | None = None,
    ) -> Reply:
        """Cancel the table. A lobby: its creator or an admin. A running match with the
        ledger at stake (other people seated, and it writes the group ledger) is not a way to
        dodge a loss: an admin cancels it at once, a player asks the others (buttons), and
        the group is told who cancelled it."""
        found = self.tables.get(table_id) if table_id else await self._table_for_chat(chat_id)
        if found is not None and found.chat_id == chat_id and found.status == PLAYING:
            return await self._cancel_match(chat_id, person, is_admin, found)
        admin = await self._admin(chat_id, person, is_admin, table_id)

        def op(tb: Table) -> str:
            if person.user_id != tb.creator_id and not admin:
                raise TableError("err_not_allowed")
            tb.cancel()
            tb.closed = {"key": "cancelled_by", "who": person.name}  # the table says who
            return "cancelled"

        return await self._lobby_op(chat_id, op, table_id=table_id)

    async def _admin(
        self, chat_id: int, person: Person, is_admin: bool | AdminCheck, table_id: int | None
    ) -> bool:
        """Whether `person` may manage the table as an admin. The table's creator needs no
        check, so Telegram is asked only for someone else (and only once it matters)."""
        if isinstance(is_admin, bool):
            return is_admin
        table = self.tables.get(table_id) if table_id else await self._table_for_chat(chat_id)
        if table is None or table.chat_id != chat_id or table.creator_id == person.user_id:
            return False
        return await is_admin()

    # ------------------------------------------------------------------ play

    async def act(
        self, person: Person, table_id: int, hand_index: int, stamp: int, action: int
    ) -> Reply:
        table = self.tables.get(table_id)
        if table is None:
            row = await self.db.get_table(table_id)
            lang = (row.lang if row else None) or self.default_lang
            return Reply(t(lang, "err_hand_over"))
        async with self._lock(table_id):
            table = self.tables.get(table_id)
            if table is None:
                return Reply(t(self.default_lang, "err_hand_over"))
            lang = self._lang_for(table, person.user_id)
            try:
                seat = table.check_action(person.user_id, hand_index, stamp, action)
                table.seats[seat].timeouts = 0  # they act: the timeouts in a row start again
                await self._move(table, seat, action, person.user_id)
            except TableError as exc:
                return self._err(lang, exc)
            self._settle(table)
            self._render(table)
        return Reply(t(lang, "ok_played"))

    async def timeout(self, table_id: int, token: str) -> None:
        """The table's timer fired (`bot.table.deadlines`): do what is due, then arm the next
        deadline. A timer whose token is no longer the table's does nothing."""
        async with self._lock(table_id):
            table = self.tables.get(table_id)
            if table is None or self._timer_tokens.get(table_id) != token:
                return
            del self._timer_tokens[table_id]
            due = table.pending.due(self.timing.now())
            if "timeout" in due:  # the turn is over: its mention and reminder are moot
                table.pending.at.pop("mention", None)
                table.pending.at.pop("remind", None)
            kind = due[0] if due else None
            try:
                if kind == "expire":
                    await self._expire_lobby(table)
                elif kind == "cancel":
                    self._end_request(table, "cancel_lapsed")
                    await self._store_pending(table)
                elif kind == "timeout":
                    await self._time_out(table)
                elif kind == "next":
                    await self._auto_next(table)
                elif kind in ("mention", "remind"):
                    await self._nudge(table, kind)
            except Exception:
                log.exception("table %s: the %s deadline failed", table_id, kind)
                if kind is not None:
                    table.pending.at.pop(kind, None)
            current = self.tables.get(table_id)
            if current is not None and table_id not in self._timer_tokens:
                self._arm(current)

    async def next_hand(self, person: Person, table_id: int, hand_index: int) -> Reply:
        if table_id not in self.tables:
            return Reply(t(self.default_lang, "err_hand_over"))
        async with self._lock(table_id):
            table = self.tables.get(table_id)
            if table is None:
                return Reply(t(self.default_lang, "err_hand_over"))
            lang = table.lang
            if table.seat_of(person.user_id) is None:
                return Reply(t(lang, "err_not_your_table"))
            if table.hand is None or table.hand.hand_index != hand_index:
                return Reply(t(lang, "err_stale"))
            try:
                table.next_hand()
            except TableError as exc:
                return self._err(lang, exc)
            await self._save(table, None)
            self._settle(table)
            self._render(table)
        return Reply(t(lang, "ok_played"))

    async def _move(self, table: Table, seat: int, action: int, user_id: int | None) -> None:
        assert table.hand is not None
        table.apply(seat, action)
        await self._save(
            table, Move(table.hand.hand_index, seat, action, user_id), urgent=user_id is not None
        )

    async def _save(self, table: Table, move: Move | None, *, urgent: bool = True) -> None:
        """Persist the table after a change; a finished hand writes the ledger in the same
        transaction. On any failure the table is reloaded from the database and the error
        is raised as a TableError (the action is refused, nothing is half-written)."""
        ledger = None
        if table.hand is not None and table.hand.is_terminal() and move is not None:
            deltas = table.finish_hand()
            if deltas:
                key = (
                    hand_key(table.table_id, table.hand.hand_index)
                    if table.options.rules().chiamata
                    else match_key(table.table_id)
                )
                # §10.5: a computer never appears in the ledger (`Table.counted_deltas`)
                names = {s.user_id: s.name for s in table.seats if s.user_id is not None}
                ledger = LedgerRecord(
                    chat_id=table.chat_id,
                    hand_key=key,
                    table_id=table.table_id,
                    variant=table.options.variant,
                    deltas=deltas,
                    names={k: names[k] for k in deltas},
                    finished_at=datetime.now(UTC),
                )
        self._plan(table)  # the deadlines this state sets, stored with it
        try:
            table.move_no = await self.db.save_move(
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
            )
        except StaleMove:
            log.warning("table %s: stale write, reloading", table.table_id)
            await self._reload(table.table_id)
            raise TableError("err_busy") from None
        except Exception:
            log.exception("table %s: write failed, reloading", table.table_id)
            await self._reload(table.table_id)
            raise TableError("err_busy") from None

    def _settle(self, table: Table) -> None:
        """After a change, under the table's lock: computer players to move get their task,
        the table's next deadline its timer, a closed table is let go."""
        tid = table.table_id
        if table.bot_to_act() is not None:
            task = self._computers.get(tid)
            if task is None or task.done():
                self._computers[tid] = asyncio.create_task(
                    self._play_computers(tid), name=f"computers:{tid}"
                )
        self._arm(table)
        if table.status in (FINISHED, CANCELLED):
            self._end_request(table, "cancel_moot")
            self.tables.pop(tid, None)

    async def _play_computers(self, table_id: int) -> None:
        """Computer players move until a person must act or the hand ends. Each decision is
        taken without the lock (a tap on this table is answered meanwhile) from the seat's
        observation, and applied only if the table is still where it was."""
        me = asyncio.current_task()
        try:
            while True:
                async with self._lock(table_id):
                    table = self.tables.get(table_id)
                    seat = table.bot_to_act() if table is not None else None
                    if table is None or seat is None or table.hand is None:
                        if self._computers.get(table_id) is me:
                            del self._computers[table_id]
                        return
                    version = table.move_no
                    level = table.seats[seat].level or DEFAULT_LEVEL
                    job = Job(level, table.bot_seed(), table.hand.observation(seat))
                if self.bot_delay:
                    await asyncio.sleep(self.bot_delay)
                try:
                    action = await self.thinker.choose(job)
                except Exception:
                    log.exception("table %s: the %s player failed; playing normal", table_id, level)
                    action = await self.thinker.choose(
                        Job(DEFAULT_LEVEL, job.seed, job.observation)
                    )
                async with self._lock(table_id):
                    table = self.tables.get(table_id)
                    if table is None or table.move_no != version:
                        continue  # something else happened meanwhile: look again
                    try:
                        await self._move(table, seat, action, None)
                    except TableError:
                        continue  # reloaded from the database: look again
                    self._settle(table)
                    self._render(table)
        finally:
            if self._computers.get(table_id) is me:
                del self._computers[table_id]

    def _render(self, table: Table, resend: bool = False, urgent: bool = False) -> None:
        lang = table.lang
        self.out.show_table(table, table_message(table, lang), urgent=urgent)
        if table.status in (FINISHED, CANCELLED):  # no more bids: forget their screens
            for seat in range(len(table.seats)):
                self._bid_pages.pop((table.table_id, seat), None)
        if table.hand is None:
            return
        for seat, s in enumerate(table.seats):
            if s.user_id is None:
                continue
            plang = s.lang or lang  # each person in their own language (issue 11 §6)
            if table.status == CANCELLED:  # nobody's buttons work any more
                content = frozen_private(table, plang, "cancelled")
            elif s.is_bot:  # they left, or ran out of time twice: the computer plays
                content = away_private(table, seat, plang)
            else:
                page = self._bid_pages.get((table.table_id, seat))
                more = int(page is not None and page == (table.move_no, table.turn_start()))
                content = private_message(table, seat, plang, bid_page=more)
            # their turn: the hand comes as a new message, which notifies (an edit does not)
            notify = not s.is_bot and _their_turn(table, seat)
            self.out.show_private(table, s.user_id, content, notify=notify)

    # ------------------------------------------------------------------ deadlines (issue 11 §3)

    def _plan(self, table: Table, *, activity: bool = False) -> None:
        """Set the table's deadlines for its state now (under its lock, before the state is
        written, so they are stored with it). A person's turn keeps the deadlines it began
        with whatever else is written meanwhile; `activity`: a change in the lobby, which
        starts its expiry again."""
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
            return
        p.at.pop("expire", None)
        if hand.is_terminal():  # the pause before the next hand
            key = [hand.hand_index, -1, -1]
            if p.turn != key:
                for k in TURN_KINDS:
                    p.at.pop(k, None)
                p.turn = key
                if table.timer:
                    p.at["next"] = self.timing.next_hand(now)
            return
        p.at.pop("next", None)
        seat = hand.current
        if table.seats[seat].user_id is None or table.seats[seat].is_bot:
            for k in TURN_KINDS:  # a computer plays: nobody is waited for
                p.at.pop(k, None)
            p.turn = None
            return
        key = [hand.hand_index, len(hand.actions), seat]
        if p.turn != key:
            for k in TURN_KINDS:
                p.at.pop(k, None)
            p.turn = key
            p.at.update(self.timing.turn_deadlines(table.timer, now))

    def _arm(self, table: Table) -> None:
        """One timer per table, for its earliest deadline (at once if it has passed)."""
        tid = table.table_id
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

    async def _store_pending(self, table: Table) -> None:
        """Write the deadlines alone (a mention sent, a request to cancel)."""
        try:
            await self.db.set_timers(table.table_id, table.pending.to_json())
        except Exception:  # at worst a notice is sent twice after a restart
            log.exception("table %s: storing the deadlines failed", table.table_id)

    def _spawn(self, coro: Awaitable[None]) -> None:
        """Send a notice without holding the table (the group's budget may make it wait)."""

        async def run() -> None:
            await coro

        task = asyncio.create_task(run())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _turn_key(self, table: Table) -> list[int] | None:
        hand = table.hand
        if table.status != PLAYING or hand is None or hand.is_terminal():
            return None
        return [hand.hand_index, len(hand.actions), hand.current]

    async def _nudge(self, table: Table, kind: str) -> None:
        """A slow person: the group mentions them (once per turn), or they are reminded
        privately that the turn timer is about to run out."""
        table.pending.at.pop(kind, None)
        key = self._turn_key(table)
        if key is not None and key == table.pending.turn:
            s = table.seats[key[2]]
            if s.user_id is not None and not s.is_bot:
                left = table.pending.at.get("timeout")
                seconds = max(1, round(left - self.timing.now())) if left else 0
                if kind == "mention":
                    who = mention(s.user_id, s.name)
                    text = (
                        t(table.lang, "turn_mention_timer", who_html=who, seconds=seconds)
                        if seconds
                        else t(table.lang, "turn_mention", who_html=who)
                    )
                    self._spawn(self.out.say(table.chat_id, text))
                elif seconds:
                    lang = s.lang or table.lang
                    text = t(
                        lang,
                        "turn_reminder",
                        variant=variant_name(lang, table.options.variant),
                        table=table.table_id,
                        seconds=seconds,
                    )
                    self._spawn(self.out.say(s.user_id, text))
        await self._store_pending(table)

    async def _time_out(self, table: Table) -> None:
        """The turn timer ran out: the computer (`normal`) plays this move for the person,
        and the group is told. After TIMEOUTS_TO_AWAY in a row it keeps the seat."""
        table.pending.at.pop("timeout", None)
        key = self._turn_key(table)
        if key is None or key != table.pending.turn or table.hand is None:
            return
        seat = key[2]
        s = table.seats[seat]
        if s.user_id is None or s.is_bot:
            return
        job = Job(DEFAULT_LEVEL, table.bot_seed(), table.hand.observation(seat))
        action = await self.thinker.choose(job)  # `normal`: quick, on the loop
        away = table.timed_out(seat)
        try:
            await self._move(table, seat, action, None)
        except TableError:
            return  # reloaded from the database: its deadlines are re-armed
        notice = t(table.lang, "timeout_away" if away else "timeout_notice", who=s.name)
        self._spawn(self.out.say(table.chat_id, notice))
        self._settle(table)
        self._render(table)

    async def _auto_next(self, table: Table) -> None:
        """The pause after a hand is over: the next hand starts by itself."""
        table.pending.at.pop("next", None)
        hand = table.hand
        if (
            table.status != PLAYING
            or hand is None
            or not hand.is_terminal()
            or table.pending.turn != [hand.hand_index, -1, -1]
        ):
            return
        try:
            table.next_hand()
            await self._save(table, None)
        except TableError:
            return
        self._settle(table)
        self._render(table)

    async def _expire_lobby(self, table: Table) -> None:
        """Nobody started the lobby: it closes, with a message, and keeps no buttons."""
        table.pending.at.pop("expire", None)
        if table.status != LOBBY:
            return
        if await self._close(table, {"key": "lobby_expired"}):
            lang = table.lang
            notice = t(
                lang, "lobby_expired_notice", variant=variant_name(lang, table.options.variant)
            )
            self._spawn(self.out.say(table.chat_id, notice))

    async def _close(self, table: Table, closed: dict[str, str]) -> bool:
        """Cancel the table now, saying why (under its lock). False if the write failed."""
        tid = table.table_id
        table.cancel()
        table.closed = closed
        self._plan(table)
        try:
            row = await self.db.update_lobby(
                tid,
                status=CANCELLED,
                seats_json=table.seats_json(),
                timers_json=table.pending.to_json(),
                expected_move_no=table.move_no,
            )
        except StorageError:
            log.exception("table %s: closing failed, reloading", tid)
            await self._reload(tid)
            return False
        table.move_no = row.move_no
        self._settle(table)
        self._render(table, urgent=True)  # nobody keeps live buttons
        return True

    # ------------------------------------------------------------------ cancel consent

    async def _cancel_match(
        self, chat_id: int, person: Person, is_admin: bool | AdminCheck, table: Table
    ) -> Reply:
        lang = table.lang
        others = [u for u in table.people() if u != person.user_id]
        # the ledger is at stake when other people play and the match writes the ledger
        stake = bool(others) and (not table.computer_seats() or table.counts)

        async def admin() -> bool:
            return is_admin if isinstance(is_admin, bool) else await is_admin()

        if (not stake and person.user_id == table.creator_id) or await admin():
            tid = table.table_id
            async with self._lock(tid):
                current = self.tables.get(tid)
                if current is None or current.status != PLAYING:
                    return Reply(t(lang, "err_no_table"))
                self._end_request(current, "cancel_moot")
                if not await self._close(current, {"key": "cancelled_by", "who": person.name}):
                    return Reply(t(lang, "err_busy"))
            return Reply(t(lang, "cancelled_by", who=person.name))
        if not stake:
            return Reply(t(lang, "err_not_allowed"))
        if table.seat_of(person.user_id) is None:
            return Reply(t(lang, "err_cancel_not_allowed"))
        return await self._ask_cancel(table, person, others)

    async def _ask_cancel(self, table: Table, person: Person, others: list[int]) -> Reply:
        """A player asks to cancel: a group message asks the others, with buttons."""
        tid, lang = table.table_id, table.lang
        async with self._lock(tid):
            current = self.tables.get(tid)
            if current is None or current.status != PLAYING:
                return Reply(t(lang, "err_no_table"))
            if current.pending.cancel is not None:
                return Reply(t(lang, "err_cancel_pending"))
            request = CancelRequest(person.user_id, person.name, others)
            current.pending.cancel = request
            current.pending.at["cancel"] = self.timing.cancel_wait(self.timing.now())
            await self._store_pending(current)
            self._arm(current)
            names = {s.user_id: s.name for s in current.seats if s.user_id is not None}
        who_html = ", ".join(mention(u, names.get(u, str(u))) for u in others)
        content = Rendered(
            t(lang, "cancel_request", who=person.name, others_html=who_html),
            [
                [
                    Button(t(lang, "btn_cancel_yes"), callback_data("c", tid, "y")),
                    Button(t(lang, "btn_cancel_no"), callback_data("c", tid, "n")),
                ]
            ],
        )
        message_id = await self.out.post(table.chat_id, content)
        async with self._lock(tid):
            current = self.tables.get(tid)
            if current is None or current.pending.cancel is not request:
                if message_id is not None:  # settled meanwhile: no live buttons
                    gone = Rendered(t(lang, "cancel_moot"), [])
                    self._spawn(self.out.edit(table.chat_id, message_id, gone))
                return Reply("")
            if message_id is None:  # nobody could answer it
                self._end_request(current, "cancel_moot")
                await self._store_pending(current)
                self._arm(current)
                return Reply(t(lang, "err_busy"))
            request.message_id = message_id
            await self._store_pending(current)
        return Reply("")

    def _end_request(self, table: Table, key: str, **kw: str) -> None:
        """A request to cancel is settled: its message says how, and loses its buttons."""
        request = table.pending.cancel
        if request is None:
            return
        table.pending.cancel = None
        table.pending.at.pop("cancel", None)
        if request.message_id is not None:
            content = Rendered(t(table.lang, key, **kw), [])
            self._spawn(self.out.edit(table.chat_id, request.message_id, content))

    async def cancel_vote(self, chat_id: int, person: Person, table_id: int, agree: bool) -> Reply:
        """A tap on a request to cancel: only the players asked may answer, once."""
        lang = await self.chat_lang(chat_id)
        table = self.tables.get(table_id)
        if table is None or table.chat_id != chat_id:
            return Reply(t(lang, "err_no_request"))
        async with self._lock(table_id):
            table = self.tables.get(table_id)
            request = table.pending.cancel if table is not None else None
            if table is None or request is None or table.status != PLAYING:
                return Reply(t(lang, "err_no_request"))
            lang = table.lang
            if person.user_id == request.by:
                return Reply(t(lang, "err_own_request"))
            if person.user_id not in request.need:
                return Reply(t(lang, "err_not_your_vote"))
            if person.user_id in request.agreed:
                return Reply(t(lang, "err_voted"))
            if not agree:
                self._end_request(table, "cancel_refused", who=person.name)
                await self._store_pending(table)
                self._arm(table)
                return Reply(t(lang, "ok_refused"))
            request.agreed.append(person.user_id)
            if set(request.need) - set(request.agreed):
                await self._store_pending(table)
                return Reply(t(lang, "ok_agreed_wait"))
            names = {s.user_id: s.name for s in table.seats if s.user_id is not None}
            agreed = ", ".join(names.get(u, str(u)) for u in request.agreed)
            self._end_request(table, "cancel_done", who=request.by_name, agreed=agreed)
            closed = {"key": "cancelled_agreed", "who": request.by_name}
            if not await self._close(table, closed):
                return Reply(t(lang, "err_busy"))
        return Reply(t(lang, "cancelled"))  # a tap's answer is plain text: no names in it

    async def resume(self, person: Person, table_id: int) -> Reply:
        """ "Riprendo il posto": the person takes their seat back from the computer."""
        table = self.tables.get(table_id)
        if table is None or table.status != PLAYING:
            return Reply(t(table.lang if table else self.default_lang, "err_hand_over"))
        if table.seat_of(person.user_id) is None:
            return Reply(t(table.lang, "err_not_your_table"))
        return await self._lobby_op(
            table.chat_id,
            lambda tb: (tb.rejoin(person.user_id), "ok_back")[1],
            table_id=table_id,
        )

    # ------------------------------------------------------------------ private chat

    async def private_start(self, person: Person, payload: str) -> Reply:
        await self.db.upsert_user(person.user_id, person.name, can_dm=True)
        self.out.unblock(person.user_id)  # before anything is rendered for them
        user = await self.db.get_user(person.user_id)
        lang = (user.lang if user else None) or person.lang or self.default_lang
        if payload.startswith("t") and payload[1:].isdigit():
            table = self.tables.get(int(payload[1:]))
            if table is None:
                return Reply(t(lang, "err_hand_over"))
            lang = table.lang
            if table.seat_of(person.user_id) is None:
                reply = await self.join(table.chat_id, person, table.table_id)
                if table.seat_of(person.user_id) is None:
                    return reply
            async with self._lock(table.table_id):
                current = self.tables.get(table.table_id)
                if current is not None:
                    self._render(current)
            return Reply(t(lang, "start_seated"))
        return Reply(t(lang, "start_private"))

    async def dm_blocked(self, table: Table, user_id: int) -> None:
        """A private message was refused (the person never started the bot)."""
        seat = table.seat_of(user_id)
        name = table.seats[seat].name if seat is not None else str(user_id)
        kb = [[Button(t(table.lang, "btn_open_chat"), url=self.deep_link(table.table_id))]]
        await self.out.say(table.chat_id, t(table.lang, "dm_blocked", who=name), kb)
        await self.db.upsert_user(user_id, name, can_dm=False)

    # ------------------------------------------------------------------ the group (issue 11)

    async def rematch(self, chat_id: int, person: Person, table_id: int) -> Reply:
        """The rematch button of a finished match: a new table with the same settings and
        the same seats (the people who stayed to the end, the computers), in its lobby. The
        table's creator or anyone who played may tap it; it works once (a double tap, or a
        second person's tap, finds the rematch open)."""
        lang = await self.chat_lang(chat_id)
        lock = self._chat_locks.setdefault(chat_id, asyncio.Lock())
        async with lock:
            row = await self.db.get_table(table_id)
            if row is None or row.chat_id != chat_id or row.status != FINISHED:
                return Reply(t(lang, "err_bad_data"))
            old = self._from_row(row)
            lang = old.lang
            if old.rematch is not None:
                return Reply(t(lang, "err_rematch_done"))
            seat = old.seat_of(person.user_id)
            if person.user_id != old.creator_id and (seat is None or old.seats[seat].is_bot):
                return Reply(t(lang, "err_rematch_not_seated"))
            if await self._table_for_chat(chat_id) is not None:
                return Reply(t(lang, "err_table_exists"))
            await self.db.upsert_user(person.user_id, person.name)
            table = Table(
                0,
                chat_id,
                person.user_id,
                old.options,
                lang=lang,
                timer=old.timer,
                counts=old.counts,
                pin=old.pin,
            )
            for s in old.seats:
                if s.user_id is None:  # a computer keeps its seat (and its name)
                    table.seats.append(Seat(None, s.name, s.level))
                elif not s.is_bot or s.user_id == person.user_id:  # who played to the end
                    table.seats.append(Seat(s.user_id, s.name, lang=s.lang))
            if not await self._create(table):
                return Reply(t(lang, "err_table_exists"))
            self.tables[table.table_id] = table
            old.rematch = table.table_id
            try:
                await self.db.update_lobby(old.table_id, seats_json=old.seats_json())
            except StorageError:  # the new table stands; a second tap would find it open
                log.exception("table %s: noting its rematch failed", old.table_id)
        self.out.show_table(old, table_message(old, lang))  # its rematch button goes
        self._render(table, urgent=True)
        return Reply("")

    async def bid_page(
        self, person: Person, table_id: int, hand_index: int, stamp: int, page: int
    ) -> Reply:
        """The points bids' second screen (every legal value, `page` 1) or back to the
        first; only on one's own turn, and only in that person's hand message."""
        table = self.tables.get(table_id)
        if table is None:
            return Reply(t(self.default_lang, "err_hand_over"))
        async with self._lock(table_id):
            table = self.tables.get(table_id)
            if table is None:
                return Reply(t(self.default_lang, "err_hand_over"))
            lang = self._lang_for(table, person.user_id)
            seat = table.seat_of(person.user_id)
            hand = table.hand
            if seat is None:
                return Reply(t(lang, "err_not_your_table"))
            if table.status != PLAYING or hand is None or hand.is_terminal():
                return Reply(t(lang, "err_hand_over"))
            if hand.hand_index != hand_index:
                return Reply(t(lang, "err_hand_over"))
            if hand.current != seat:
                return Reply(t(lang, "err_not_your_turn"))
            if stamp != table.turn_start() or page not in (0, 1):
                return Reply(t(lang, "err_stale"))
            if page:
                self._bid_pages[(table_id, seat)] = (table.move_no, stamp)
            else:
                self._bid_pages.pop((table_id, seat), None)
            self._render(table)  # only this person's message changes
        return Reply("")

    async def greet(self, chat_id: int) -> Reply:
        """The bot was added to a group: one short message, what it does and /new."""
        return Reply(t(await self.chat_lang(chat_id), "greeting"))

    async def unknown_command(
        self, chat_id: int, command: str, *, is_group: bool, addressed: bool
    ) -> Reply:
        """A command the bot does not know. In a group it answers only a command addressed
        to it (/x@bot) or when the group has a table: other bots' commands are not its own."""
        if is_group and not addressed and await self._table_for_chat(chat_id) is None:
            return Reply("")
        return Reply(t(await self.chat_lang(chat_id), "err_unknown_command", command=command))

    # ------------------------------------------------------------------ ledger and language

    async def score(self, chat_id: int) -> Reply:
        lang = await self.chat_lang(chat_id)
        balances = await self.db.balances(chat_id)
        if not balances:
            return Reply(t(lang, "err_no_ledger"))
        lines = [t(lang, "score_title")]
        names = {b.user_id: b.name for b in balances}
        for b in balances:
            lines.append(t(lang, "score_row", name=b.name, balance=f"{b.balance:+d}"))
        payments = settle({b.user_id: b.balance for b in balances})
        lines.append("")
        lines.append(t(lang, "settle_title"))
        if not payments:
            lines.append(t(lang, "settle_none"))
        for debtor, creditor, amount in payments:
            lines.append(
                t(lang, "settle_row", debtor=names[debtor], creditor=names[creditor], amount=amount)
            )
        return Reply("\n".join(lines))

    async def set_lang(
        self,
        chat_id: int,
        person: Person,
        lang: str,
        is_group: bool,
        *,
        is_admin: bool | AdminCheck = False,
    ) -> Reply:
        """/lang: in a group (its admins only) the group's messages; in private the person's
        own messages and hands, at every table they sit at."""
        lang = lang.strip().lower()
        if lang not in LANGS:
            return Reply(t(await self.chat_lang(chat_id), "err_bad_lang"))
        if is_group:
            admin = is_admin if isinstance(is_admin, bool) else await is_admin()
            if not admin:
                return Reply(t(await self.chat_lang(chat_id), "err_lang_admin"))
            await self.db.set_chat_lang(chat_id, lang)
            table = await self._table_for_chat(chat_id)
            if table is not None:
                async with self._lock(table.table_id):
                    table.lang = lang
                    await self.db.update_lobby(table.table_id, lang=lang)
                    self._render(table)
        else:
            await self.db.upsert_user(person.user_id, person.name, lang=lang)
            await self.db.set_chat_lang(chat_id, lang)
            for table in list(self.tables.values()):
                if table.seat_of(person.user_id) is not None:
                    await self._seat_lang(table.table_id, person.user_id, lang)
            return Reply(t(lang, "ok_lang_private"))
        return Reply(t(lang, "ok_lang"))

    async def _seat_lang(self, table_id: int, user_id: int, lang: str) -> None:
        """A seated person chose their language: stored with the seat, their hand re-shown."""
        async with self._lock(table_id):
            table = self.tables.get(table_id)
            seat = table.seat_of(user_id) if table is not None else None
            if table is None or seat is None or table.seats[seat].lang == lang:
                return
            table.seats[seat].lang = lang
            try:
                row = await self.db.update_lobby(
                    table_id, seats_json=table.seats_json(), expected_move_no=table.move_no
                )
            except StorageError:
                log.exception("table %s: storing a seat's language failed", table_id)
                await self._reload(table_id)
                return
            table.move_no = row.move_no
            self._render(table)

    def _lang_for(self, table: Table, user_id: int) -> str:
        """The language to answer a seated person's tap in: theirs, else the table's."""
        seat = table.seat_of(user_id)
        return (table.seats[seat].lang if seat is not None else None) or table.lang

    async def help(self, chat_id: int) -> Reply:
        lang = await self.chat_lang(chat_id)
        names = ", ".join(f"{v} ({variant_name(lang, v)})" for v in VARIANTS)
        return Reply(t(lang, "help", variants=names))

    async def rules(self, chat_id: int) -> Reply:
        return Reply(t(await self.chat_lang(chat_id), "rules"))


__all__ = ["Outbox", "Person", "Reply", "TableService", "Timers", "callback_data"]
