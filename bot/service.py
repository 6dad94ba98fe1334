"""The table service: what every handler calls. Locks, persists, runs computer players, renders.

One lock per table. Every accepted action is written (snapshot + move log, and the ledger in
the same transaction when a hand or match ends) before anything is shown. After a failed
write the table is reloaded from the database, so memory never runs ahead of what is stored.
Telegram is reached only through `Outbox` (rendering is coalesced there) and `Timers`.

A person's action returns as soon as it is stored, so the tap is answered at once; the
computer players then move in a background task per table (`_play_computers`), thinking
without the table's lock (`bot.thinker`: `hard` in worker processes) and applying a decision
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
from bot.i18n import LANGS, t, variant_name
from bot.ledger import hand_key, match_key, settle
from bot.players import DEFAULT_LEVEL
from bot.render_tg import (
    SETTING_CHOICES,
    Button,
    Keyboard,
    Rendered,
    applicable_settings,
    callback_data,
    frozen_private,
    private_message,
    settings_message,
    table_message,
    variant_picker,
)
from bot.tables import CANCELLED, FINISHED, LOBBY, PLAYING, Table, TableError
from bot.thinker import Job, Thinker
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


@dataclass(frozen=True, slots=True)
class Person:
    user_id: int
    name: str


@dataclass(frozen=True, slots=True)
class Reply:
    """What a handler sends back: a message (commands) or a callback answer (buttons)."""

    text: str
    keyboard: Keyboard | None = None
    alert: bool = False


# Whether the person is an admin of the group: asked only when it matters (they are not the
# table's creator), since asking Telegram spends the group's call budget.
AdminCheck = Callable[[], Awaitable[bool]]


class Outbox(Protocol):
    def show_table(self, table: Table, content: Rendered, *, urgent: bool = False) -> None: ...

    def show_private(
        self, table: Table, user_id: int, content: Rendered, *, urgent: bool = False
    ) -> None: ...

    async def say(self, chat_id: int, text: str, keyboard: Keyboard | None = None) -> None: ...

    async def edit(self, chat_id: int, message_id: int, content: Rendered) -> None: ...

    async def preload(self, tables: list[Table]) -> None: ...

    def unblock(self, user_id: int) -> None: ...

    async def flush(self) -> None: ...


class Timers(Protocol):
    def start(self, table_id: int, seconds: float, token: str) -> None: ...

    def cancel(self, table_id: int) -> None: ...


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
    ) -> None:
        self.db = db
        self.out = outbox
        self.timers = timers
        self.bot_username = bot_username
        self.default_lang = default_lang
        self.bot_delay = bot_delay
        self.tables: dict[int, Table] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._chat_locks: dict[int, asyncio.Lock] = {}
        self._timer_tokens: dict[int, str] = {}
        self.thinker = thinker if thinker is not None else Thinker(workers=0)
        self._computers: dict[int, asyncio.Task[None]] = {}

    # ------------------------------------------------------------------ helpers

    def _lock(self, table_id: int) -> asyncio.Lock:
        return self._locks.setdefault(table_id, asyncio.Lock())

    async def chat_lang(self, chat_id: int) -> str:
        return await self.db.chat_lang(chat_id) or self.default_lang

    def _err(self, lang: str, exc: TableError) -> Reply:
        return Reply(t(lang, exc.key, **exc.kw), alert=exc.key.startswith("err_option"))

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
                if table.status == PLAYING:
                    self._settle(table)
                self._render(table)
        return len(rows)

    async def idle(self, timeout: float = 30.0) -> None:
        """Wait until no computer player is thinking or moving (tests, shutdown)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (tasks := [t for t in self._computers.values() if not t.done()]) and (
            loop.time() < deadline
        ):
            await asyncio.wait(tasks, timeout=deadline - loop.time())

    async def close(self) -> None:
        """Stop the computer players' tasks (what they had decided is stored or redone)."""
        tasks = list(self._computers.values())
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
                if picker_message_id is not None:
                    gone = Rendered(t(lang, "err_table_exists"), [])
                    await self.out.edit(chat_id, picker_message_id, gone)
                self._render(existing, resend=True)
                return Reply(t(lang, "err_table_exists"))
            table = Table(0, chat_id, person.user_id, Options.parse(variant), lang=lang)
            table.join(person.user_id, person.name)
            try:
                row = await self.db.create_table(
                    chat_id, person.user_id, variant, table.options_json(), table.seats_json(), lang
                )
            except TableExists:
                return Reply(t(lang, "err_table_exists"))
            table.table_id = row.table_id
            table.move_no = row.move_no
            if picker_message_id is not None:
                await self.db.update_lobby(table.table_id, table_message_id=picker_message_id)
                table.table_message_id = picker_message_id
            self.tables[table.table_id] = table
        self._render(table, urgent=True)
        return await self._with_link(table, person, Reply(""))

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
            try:
                row = await self.db.update_lobby(
                    tid,
                    seats_json=table.seats_json(),
                    options_json=table.options_json(),
                    variant=table.options.variant,
                    # a start is written below, with the match and the dealt hand, at once
                    status=LOBBY if starting else table.status,
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
                self._settle(table)
            # a start or a cancel makes the lobby's buttons meaningless: show it at once
            self._render(table, urgent=starting or table.status == CANCELLED)
            if table.status == CANCELLED:
                self.tables.pop(tid, None)
        return Reply(t(lang, msg) if msg else "")

    async def join(self, chat_id: int, person: Person, table_id: int | None = None) -> Reply:
        await self.db.upsert_user(person.user_id, person.name)
        reply = await self._lobby_op(
            chat_id,
            lambda tb: (tb.join(person.user_id, person.name), "ok_joined")[1],
            table_id=table_id,
        )
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
    ) -> Reply:
        """Set one option before the start. `panel`: the change came from the settings
        buttons, so the table message stays on the settings panel (a /settings k=v command
        leaves the lobby, which lists the options, in place)."""
        admin = await self._admin(chat_id, person, is_admin, table_id)

        def op(tb: Table) -> str:
            if person.user_id != tb.creator_id and not admin:
                raise TableError("err_not_allowed")
            if tb.status != LOBBY:
                raise TableError("err_started")
            if key == "timer":
                if value not in SETTING_CHOICES["timer"]:
                    raise TableError("err_option", reason=f"timer: {value}")
                tb.timer = int(value)
            elif key not in applicable_settings(tb.options):
                raise TableError("err_option", reason=f"{key}")
            else:
                tb.set_option(key, value)
            return "ok_option"

        reply = await self._lobby_op(chat_id, op, table_id=table_id)
        table = self.tables.get(table_id) if table_id else await self._table_for_chat(chat_id)
        if (
            panel
            and table is not None
            and table.status == LOBBY
            and reply.text == t(table.lang, "ok_option")
        ):
            self.out.show_table(table, settings_message(table, table.lang))
        return reply

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
        admin = await self._admin(chat_id, person, is_admin, table_id)

        def op(tb: Table) -> str:
            if person.user_id != tb.creator_id and not admin:
                raise TableError("err_not_allowed")
            tb.cancel()
            self.timers.cancel(tb.table_id)
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
            lang = table.lang
            try:
                seat = table.check_action(person.user_id, hand_index, stamp, action)
                await self._move(table, seat, action, person.user_id)
            except TableError as exc:
                return self._err(lang, exc)
            self._settle(table)
            self._render(table)
        return Reply(t(lang, "ok_played"))

    async def timeout(self, table_id: int, token: str) -> None:
        """The turn timer ran out: the computer plays this one move for the person."""
        async with self._lock(table_id):
            table = self.tables.get(table_id)
            if table is None or self._timer_tokens.get(table_id) != token:
                return
            if table.status != PLAYING or table.hand is None or table.hand.is_terminal():
                return
            seat = table.hand.current
            job = Job(DEFAULT_LEVEL, table.bot_seed(), table.hand.observation(seat))
            try:
                action = await self.thinker.choose(job)  # `normal`: quick, on the loop
                await self._move(table, seat, action, None)
            except TableError:
                return
            self._settle(table)
            self._render(table)

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
                # a computer player's ledger id is shared by its level: name it by the level
                names = {
                    s.ledger_id(): s.name if s.user_id is not None else f"🤖 {s.level}"
                    for s in table.seats
                }
                ledger = LedgerRecord(
                    chat_id=table.chat_id,
                    hand_key=key,
                    table_id=table.table_id,
                    variant=table.options.variant,
                    deltas=deltas,
                    names={k: names[k] for k in deltas},
                    finished_at=datetime.now(UTC),
                )
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
        a person to act gets the turn timer, a closed table is let go."""
        tid = table.table_id
        self.timers.cancel(tid)
        self._timer_tokens.pop(tid, None)
        if table.bot_to_act() is not None:
            task = self._computers.get(tid)
            if task is None or task.done():
                self._computers[tid] = asyncio.create_task(
                    self._play_computers(tid), name=f"computers:{tid}"
                )
        elif (
            table.timer
            and table.status == PLAYING
            and table.hand is not None
            and not table.hand.is_terminal()
        ):
            token = secrets.token_hex(4)
            self._timer_tokens[tid] = token
            self.timers.start(tid, table.timer, token)
        if table.status in (FINISHED, CANCELLED):
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
        if table.hand is None:
            return
        for seat, s in enumerate(table.seats):
            if s.user_id is None:
                continue
            if table.status == CANCELLED:  # nobody's buttons work any more
                content = frozen_private(table, lang, "cancelled")
            elif s.is_bot:  # they left: the computer plays their seat
                content = frozen_private(table, lang, "ok_left_playing")
            else:
                content = private_message(table, seat, lang)
            self.out.show_private(table, s.user_id, content)

    # ------------------------------------------------------------------ private chat

    async def private_start(self, person: Person, payload: str) -> Reply:
        await self.db.upsert_user(person.user_id, person.name, can_dm=True)
        self.out.unblock(person.user_id)  # before anything is rendered for them
        user = await self.db.get_user(person.user_id)
        lang = (user.lang if user else None) or self.default_lang
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

    async def set_lang(self, chat_id: int, person: Person, lang: str, is_group: bool) -> Reply:
        lang = lang.strip().lower()
        if lang not in LANGS:
            return Reply(t(await self.chat_lang(chat_id), "err_bad_lang"))
        if is_group:
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
        return Reply(t(lang, "ok_lang"))

    async def help(self, chat_id: int) -> Reply:
        lang = await self.chat_lang(chat_id)
        names = ", ".join(f"{v} ({variant_name(lang, v)})" for v in VARIANTS)
        return Reply(t(lang, "help", variants=names))

    async def rules(self, chat_id: int) -> Reply:
        return Reply(t(await self.chat_lang(chat_id), "rules"))


__all__ = ["Outbox", "Person", "Reply", "TableService", "Timers", "callback_data"]
