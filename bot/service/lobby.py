"""The lobby: a new table, join, leave, a computer seated, a seat taken back, the rematch.
Every change goes through `lobby_op` (under the table's lock, written before it is shown); the
settings, their panel and the start are `bot.service.settings`'.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable

from bot.engine import VARIANTS, Options
from bot.i18n import t, variant_name
from bot.players import DEFAULT_LEVEL
from bot.service.deadlines import Deadlines
from bot.service.langs import Languages, note_person, own_lang
from bot.service.play import Play
from bot.service.registry import Registry
from bot.service.shown import Shown
from bot.service.types import (
    APPLYING_UPDATE,
    AdminCheck,
    Outbox,
    Person,
    Reply,
    TableRef,
    refusal,
    reply_lang,
)
from bot.table.table import CANCELLED, FINISHED, LOBBY, PLAYING, Seat, Table, TableError
from bot.view.render import (
    Button,
    Rendered,
    group_title,
    variant_picker,
)
from storage import Database, StaleMove, StorageError, TableExists, UserRow

log = logging.getLogger(__name__)

REPOST_EVERY = 5.0  # seconds: /table re-posts a group's table message at most this often


class Lobby:
    """What a tap or command does before (and around) the start: every change through
    `lobby_op`, a start written with the match (`play`)."""

    def __init__(
        self,
        db: Database,
        outbox: Outbox,
        langs: Languages,
        registry: Registry,
        shown: Shown,
        deadlines: Deadlines,
        play: Play,
    ) -> None:
        self.db = db
        self.out = outbox
        self.langs = langs
        self.registry = registry
        self.shown = shown
        self.deadlines = deadlines
        self.play = play
        self._reposted: dict[int, float] = {}  # chat -> when /table last re-posted its table
        # table -> its settings panels' message ids (`Settings` opens them, `drop_panels`)
        self.panels: dict[int, set[int]] = {}
        # chat -> (its running table, who was told in the group that /join is too late)
        self._told_running: dict[int, tuple[int, set[int]]] = {}

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
        lang = await self.langs.chat(chat_id)
        if not is_group:
            return Reply(t(reply_lang(lang), "err_group_only"))
        if variant is not None:
            variant = variant.strip().lower()
            if variant not in VARIANTS:
                text = t(
                    reply_lang(lang), "err_bad_variant", given=variant, variants=", ".join(VARIANTS)
                )
                return Reply(text)
        existing = await self.registry.table_for_chat(chat_id)
        if existing is not None:  # /new during a game: where the table is, how to close it
            if (
                variant is not None
                and variant != existing.options.variant
                and self._lobby_to_change(existing, person)
            ):
                return await self._change_variant(existing, person, variant, picker_message_id)
            return await self._exists(existing, picker_message_id)
        if variant is None:
            picker = variant_picker(lang)
            return Reply(picker.text, picker.keyboard)
        if (wait := self.registry.busy_for()) is not None:  # a table not to be served now
            return Reply(t(reply_lang(lang), "err_bot_busy", seconds=wait))
        user = await note_person(self.db, person)
        lock = self.registry.chat_lock(chat_id)
        async with lock:
            existing = await self.registry.table_for_chat(chat_id)
            if existing is not None:
                return await self._exists(existing, picker_message_id)
            table = Table(0, chat_id, person.user_id, Options.parse(variant), lang=lang)
            table.join(person.user_id, person.name, own_lang(person, user))
            if not await self._create(table):
                return Reply(t(reply_lang(lang), "err_table_exists"))
            if picker_message_id is not None:
                await self.db.tables.update_lobby(
                    table.table_id, table_message_id=picker_message_id
                )
                table.table_message_id = picker_message_id
            self.registry.by_id[table.table_id] = table
        self.shown.render(table, urgent=True)
        return self._with_link(table, person, Reply(""), user)

    @staticmethod
    def _lobby_to_change(table: Table, person: Person) -> bool:
        """Whether /new <variant> may turn the group's lobby into one of another variant: it
        is a lobby, and no one but `person` (its creator, or nobody) sits there yet."""
        people = table.people()
        return (
            table.status == LOBBY
            and set(people) <= {person.user_id}
            and (not people or table.creator_id == person.user_id)
        )

    async def _change_variant(
        self, table: Table, person: Person, variant: str, picker_message_id: int | None
    ) -> Reply:
        """/new <variant> over a lobby nobody else joined: the lobby becomes one of that
        variant (its rules start from the variant's defaults; the timer, pin and computers
        stay, as many as fit), shown again below."""
        if picker_message_id is not None:  # a picker's choice: the picker goes
            self.out.delete_soon(table.chat_id, [picker_message_id])

        def op(tb: Table) -> str:
            options = Options.parse(variant)
            people = [s for s in tb.seats if s.user_id is not None]
            computers = [s for s in tb.seats if s.user_id is None]
            tb.seats = (people + computers)[: max(options.rules().n_players, len(people))]
            tb.set_options(options)
            return ""

        reply = await self.lobby_op(table.chat_id, op, table_id=table.table_id)
        if reply.text:  # refused: why
            return reply
        lang = reply_lang(table.lang)
        text = t(lang, "ok_variant_changed", variant=variant_name(lang, variant))
        return Reply(text, repost=table.table_id, key="ok_variant_changed")

    async def _exists(self, table: Table, picker_message_id: int | None) -> Reply:
        """/new while the group has a table: say so, and re-post the table below."""
        lang = table.lang
        if picker_message_id is not None:  # the variant picker of a /new that came too late
            gone = Rendered(t(lang, "err_table_exists"), [])
            self.out.edit_soon(table.chat_id, picker_message_id, gone)
        return Reply(t(reply_lang(lang), "table_exists_moved"), repost=table.table_id)

    async def _create(self, table: Table) -> bool:
        """Store a new lobby `table` (its id and move number set from the row) with its
        expiry, and arm its timer. False if the chat has an open table already. It keeps the
        group's name for its private messages."""
        if table.title is None:
            table.title = await self.registry.chat_title(table.chat_id)
        self.deadlines.plan(table, activity=True)  # the lobby's expiry, written with the table
        try:
            row = await self.db.tables.create_table(
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
        self.deadlines.arm(table)
        return True

    async def open_table(self, table: Table) -> bool:
        """Store a new lobby `table` (`_create`) and keep it; False if the chat has an open
        table already."""
        if not await self._create(table):
            return False
        self.registry.by_id[table.table_id] = table
        return True

    async def start_match(self, chat_id: int, table_id: int) -> Reply:
        """Start a table opened for a match of its own (a tournament's): its seats are set."""

        def op(tb: Table) -> str:
            tb.start(secrets.token_hex(8))
            return ""

        return await self.lobby_op(chat_id, op, table_id=table_id)

    async def set_table_lang(self, chat_id: int, lang: str) -> None:
        """The group chose its language (/lang): its open table speaks it from now."""
        table = await self.registry.table_for_chat(chat_id)
        if table is not None:
            async with self.registry.lock(table.table_id):
                table.lang = lang
                await self.db.tables.update_lobby(table.table_id, lang=lang)
                self.shown.render(table)

    async def set_seat_lang(self, user_id: int, lang: str) -> None:
        """A person chose their language (/lang in private): at every table they sit at,
        stored with their seat, their hand shown again in it."""
        for table in list(self.registry.by_id.values()):
            if table.seat_of(user_id) is not None:
                await self._seat_lang(table.table_id, user_id, lang)

    async def _seat_lang(self, table_id: int, user_id: int, lang: str) -> None:
        async with self.registry.lock(table_id):
            table = await self.registry.current(table_id)
            seat = table.seat_of(user_id) if table is not None else None
            if table is None or seat is None or table.seats[seat].lang == lang:
                return
            table.seats[seat].lang = lang
            # a new version, whose render is owed like any write's (with other workers: an
            # older state's edit waiting elsewhere leaves the message to it, `TelegramOutbox`)
            self.deadlines.plan(table)
            try:
                row = await self.db.tables.update_lobby(
                    table_id,
                    seats_json=table.seats_json(),
                    timers_json=table.pending.to_json(),
                    expected_move_no=table.move_no,
                )
            except StorageError:
                log.exception("table %s: storing a seat's language failed", table_id)
                await self.registry.reload(table_id)
                return
            table.move_no = row.move_no
            self.shown.render(table)
            self.deadlines.arm(table)

    async def repost(self, chat_id: int, table_id: int | None = None) -> Reply:
        """/table: the group's table message again at the bottom of the chat (the old one is
        deleted or frozen, see `Outbox.repost`). At most once every `REPOST_EVERY` seconds
        per group: a second /table meanwhile costs no call."""
        lang = await self.langs.chat(chat_id)
        table = (
            await self.registry.current(table_id)
            if table_id
            else await self.registry.table_for_chat(chat_id)
        )
        if table is None or table.chat_id != chat_id or table.status not in (LOBBY, PLAYING):
            return Reply(t(reply_lang(lang), "err_no_table"))
        now = asyncio.get_running_loop().time()
        if now - self._reposted.get(chat_id, -REPOST_EVERY) < REPOST_EVERY:
            return Reply("")
        self._reposted[chat_id] = now
        async with self.registry.lock(table.table_id):
            current = await self.registry.current(table.table_id)
            if current is not None:
                content = self.shown.table_content(current, current.lang)
                self.out.repost(TableRef.of(current), content)
        return Reply("")

    async def lobby_op(
        self,
        chat_id: int,
        op: Callable[[Table], str],
        *,
        table_id: int | None = None,
    ) -> Reply:
        lang = await self.langs.chat(chat_id)
        found = (
            await self.registry.current(table_id)
            if table_id
            else await self.registry.table_for_chat(chat_id)
        )
        if found is None:
            return Reply(t(reply_lang(lang), "err_no_table"))
        tid = found.table_id
        async with self.registry.lock(tid):
            # with other workers a write may find the table moved on since it was read: the
            # change is made once more on the table as it is now
            for attempt in range(2 if self.registry.shared else 1):
                table = await self.registry.current(
                    tid
                )  # the current object (a failed write reloads)
                if (
                    table is None
                    or table.chat_id != chat_id
                    or table.status not in (LOBBY, PLAYING)
                ):
                    return Reply(t(reply_lang(lang), "err_no_table"))
                lang = table.lang
                was = table.status
                try:
                    msg = op(table)
                except TableError as exc:
                    await self.registry.reload(tid)
                    return refusal(lang, exc)
                starting = was == LOBBY and table.status == PLAYING
                self.deadlines.plan(table, activity=True)
                try:
                    row = await self.db.tables.update_lobby(
                        tid,
                        seats_json=table.seats_json(),
                        options_json=table.options_json(),
                        variant=table.options.variant,
                        # a start is written below, with the match and the dealt hand
                        status=LOBBY if starting else table.status,
                        timers_json=table.pending.to_json(),
                        expected_move_no=table.move_no,
                        update_id=APPLYING_UPDATE.get(),
                    )
                except StaleMove:
                    await self.registry.reload(tid)
                    if attempt == 0 and self.registry.shared:
                        continue
                    return Reply(t(reply_lang(lang), "err_busy"))
                except StorageError:
                    log.exception("table %s: lobby write failed, reloading", tid)
                    await self.registry.reload(tid)
                    return Reply(t(reply_lang(lang), "err_busy"))
                break
            assert table is not None  # the loop returns or breaks with it
            table.move_no = row.move_no
            if table.status == PLAYING:
                try:
                    await self.play.save(table, None)  # the match and the dealt hand
                except TableError as exc:
                    return refusal(lang, exc)
            self.play.settle(table)  # computers, deadlines; a closed table is let go
            # a start or a cancel makes the lobby's buttons meaningless: show it at once
            self.shown.render(table, urgent=starting or table.status == CANCELLED)
            if table.status != LOBBY:
                self.drop_panels(table)
            if table.status == CANCELLED:
                self.registry.by_id.pop(tid, None)
        return Reply(t(reply_lang(lang), msg) if msg else "", key=msg)

    async def join(
        self, chat_id: int, person: Person, table_id: int | None = None, *, command: bool = False
    ) -> Reply:
        """Sit at the table (its lobby), or take one's seat back from the computer after
        /leave. `command`: the group's /join, whose answer costs the group one of its
        messages: at a running table it is spared whenever something else reaches the
        person (`_join_running`)."""
        user = await note_person(self.db, person)
        plang = own_lang(person, user)
        if command:
            running = await self.registry.table_for_chat(chat_id)
            if running is not None and running.status == PLAYING:
                spared = await self._join_running(running, person, user, plang)
                if spared is not None:
                    return spared

        def op(tb: Table) -> str:
            if tb.status == PLAYING and tb.seat_of(person.user_id) is not None:
                tb.rejoin(person.user_id)  # back from /leave or from two timeouts
                return "ok_back"
            tb.join(person.user_id, person.name, plang)
            return "ok_joined"

        reply = await self.lobby_op(chat_id, op, table_id=table_id)
        table = (
            await self.registry.current(table_id)
            if table_id
            else await self.registry.table_for_chat(chat_id)
        )
        if reply.text and table is not None and table.seat_of(person.user_id) is not None:
            return self._with_link(table, person, reply, user)
        return reply

    async def _join_running(
        self, table: Table, person: Person, user: UserRow | None, plang: str | None
    ) -> Reply | None:
        """/join in a group whose table is playing, answered in the group only when nothing
        else reaches the person:
        - a player in their seat has nothing to do: told so in their private chat;
        - anybody else is told there that the match is on and nobody can join it; without
          a private chat with the bot, a short reply in the group, once per table and
          person (the same /join again: nothing).
        None: the usual answer, in the group, which it is worth a message to: a seat taken
        back after /leave ("ok_back"), or a player without a private chat given its link
        (their cards are there)."""
        seat = table.seat_of(person.user_id)
        can_dm = user is not None and user.can_dm
        if seat is not None and (table.seats[seat].away or not can_dm):
            return None
        if can_dm:
            key = "join_running_seated" if seat is not None else "join_running"
            text = t(plang or table.lang, key, group_html=group_title(table))
            await self.out.say(person.user_id, text)
            return Reply("", key=key)
        told_table, told = self._told_running.get(table.chat_id, (table.table_id, set()))
        if told_table != table.table_id:  # another table since: told of that one only
            told = set()
        self._told_running[table.chat_id] = (table.table_id, told)
        if person.user_id in told:
            return Reply("", key="err_started")
        told.add(person.user_id)
        return Reply(t(reply_lang(table.lang), "err_started"), key="err_started")

    def _with_link(self, table: Table, person: Person, reply: Reply, user: UserRow | None) -> Reply:
        """A seated person who never opened a private chat with the bot (`user`, as `note_person`
        read it) gets the deep link that opens it (/start t<table> seats them and sends their
        hand)."""
        if user is None or user.can_dm:
            return reply
        lang = reply_lang(table.lang)
        link = [[Button(t(lang, "btn_open_chat"), url=self.shown.deep_link(table.table_id))]]
        return Reply(t(reply_lang(lang), "need_dm", who=person.name), link)

    async def leave(self, chat_id: int, person: Person, table_id: int | None = None) -> Reply:
        def op(tb: Table) -> str:
            playing = tb.status == PLAYING
            tb.leave(person.user_id)
            return "ok_left_playing" if playing else "ok_left"

        return await self.lobby_op(chat_id, op, table_id=table_id)

    async def add_bot(
        self, chat_id: int, level: str = DEFAULT_LEVEL, table_id: int | None = None
    ) -> Reply:
        return await self.lobby_op(
            chat_id, lambda tb: (tb.add_bot(level), "")[1], table_id=table_id
        )

    def drop_panels(self, table: Table) -> None:
        """The table started or closed: its settings panels go."""
        panels = self.panels.pop(table.table_id, set())
        if panels:
            self.out.delete_soon(table.chat_id, sorted(panels))

    async def admin(
        self, chat_id: int, person: Person, is_admin: bool | AdminCheck, table_id: int | None
    ) -> bool:
        """Whether `person` may manage the table as an admin. The table's creator needs no
        check, so Telegram is asked only for someone else (and only once it matters)."""
        if isinstance(is_admin, bool):
            return is_admin
        table = (
            await self.registry.current(table_id)
            if table_id
            else await self.registry.table_for_chat(chat_id)
        )
        if table is None or table.chat_id != chat_id or table.creator_id == person.user_id:
            return False
        return await is_admin()

    async def resume(self, person: Person, table_id: int) -> Reply:
        """ "Riprendo il posto": the person takes their seat back from the computer."""
        table = await self.registry.current(table_id)
        if table is None or table.status != PLAYING:
            return Reply(
                t(reply_lang(table.lang if table else self.registry.default_lang), "err_hand_over")
            )
        if table.seat_of(person.user_id) is None:
            return Reply(t(reply_lang(table.lang), "err_not_your_table"))
        return await self.lobby_op(
            table.chat_id,
            lambda tb: (tb.rejoin(person.user_id), "ok_back")[1],
            table_id=table_id,
        )

    async def rematch(
        self, chat_id: int, person: Person, table_id: int, message_id: int | None = None
    ) -> Reply:
        """The rematch button of a finished match (on the match's end, `message_id`): a new
        table with the same settings and the same seats (the people who stayed to the end,
        the computers), in its lobby. The table's creator or anyone who played may tap it;
        it works once (a double tap, or a second person's tap, finds the rematch open), and
        the button goes. A tournament's match has none: a tap for one (the Mini App's, a
        forged one) is refused."""
        lang = await self.langs.chat(chat_id)
        lock = self.registry.chat_lock(chat_id)
        async with lock:
            row = await self.db.tables.get_table(table_id)
            if row is None or row.chat_id != chat_id or row.status != FINISHED:
                return Reply(t(reply_lang(lang), "err_bad_data"))
            old = self.registry.from_row(row)
            lang = old.lang
            if old.rematch is not None:
                return Reply(t(reply_lang(lang), "err_rematch_done"))
            if old.tournament is not None:  # its tournament opens the next match itself
                return Reply(t(reply_lang(lang), "err_rematch_tournament"))
            seat = old.seat_of(person.user_id)
            if person.user_id != old.creator_id and (seat is None or old.seats[seat].is_bot):
                return Reply(t(reply_lang(lang), "err_rematch_not_seated"))
            if await self.registry.table_for_chat(chat_id) is not None:
                return Reply(t(reply_lang(lang), "err_table_exists"))
            await self.db.people.upsert_user(person.user_id, person.name)
            table = Table(
                0,
                chat_id,
                person.user_id,
                old.options,
                lang=lang,
                timer=old.timer,
                counts=old.counts,
                pin=old.pin,
                title=old.title,
            )
            for s in old.seats:
                if s.user_id is None:  # a computer keeps its seat (and its name)
                    table.seats.append(Seat(None, s.name, s.level))
                elif not s.is_bot or s.user_id == person.user_id:  # who played to the end
                    table.seats.append(Seat(s.user_id, s.name, lang=s.lang))
            if not await self.open_table(table):
                return Reply(t(reply_lang(lang), "err_table_exists"))
            old.rematch = table.table_id
            try:
                await self.db.tables.update_lobby(old.table_id, seats_json=old.seats_json())
            except StorageError:  # the new table stands; a second tap would find it open
                log.exception("table %s: noting its rematch failed", old.table_id)
        final = old.final_message_id or message_id
        if final is not None:  # the match's end keeps no button
            self.registry.spawn(self.out.clear_buttons(chat_id, final))
        self.shown.render(table, urgent=True)
        return Reply("")
