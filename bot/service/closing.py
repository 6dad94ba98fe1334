"""Closing a table: /cancel (a lobby, or a running match: an admin at once, a player with
the others' agreement), the votes on a request to cancel, and `close`.
"""

from __future__ import annotations

import logging

from bot.i18n import t
from bot.service.deadlines import Deadlines
from bot.service.langs import Languages
from bot.service.lobby import Lobby
from bot.service.play import Play
from bot.service.registry import Registry
from bot.service.shown import Shown
from bot.service.types import AdminCheck, Outbox, Person, Reply, reply_lang
from bot.table.deadlines import CancelRequest
from bot.table.table import CANCELLED, LOBBY, PLAYING, Table, TableError
from bot.view.callback_data import callback_data
from bot.view.render import Button, Rendered, mention
from storage import Database, StorageError

log = logging.getLogger(__name__)

# why a running match closed, when nothing else tells the group (a new message does)
ANNOUNCED = ("abandoned", "cancelled_agreed")


class Closing:
    """Cancel, cancel consent, close."""

    def __init__(
        self,
        db: Database,
        outbox: Outbox,
        langs: Languages,
        registry: Registry,
        shown: Shown,
        deadlines: Deadlines,
        play: Play,
        lobby: Lobby,
    ) -> None:
        self.db = db
        self.out = outbox
        self.langs = langs
        self.registry = registry
        self.shown = shown
        self.deadlines = deadlines
        self.play = play
        self.lobby = lobby

    async def cancel(
        self,
        chat_id: int,
        person: Person,
        *,
        is_admin: bool | AdminCheck,
        table_id: int | None = None,
        by_command: bool = False,
    ) -> Reply:
        """Cancel the table. A lobby: its creator or an admin. A running match with the
        ledger at stake (other people seated, and it writes the group ledger) is not a way to
        dodge a loss: an admin cancels it at once, a player asks the others (buttons), and
        the group is told who cancelled it, once: by the reply to the command (the table's
        message goes), or by the table's message (the lobby's button: the tap's answer is
        for the one who tapped)."""
        found = (
            await self.registry.current(table_id)
            if table_id
            else await self.registry.table_for_chat(chat_id)
        )
        if found is not None and found.chat_id == chat_id and found.status == PLAYING:
            return await self._cancel_match(chat_id, person, is_admin, found)
        admin = await self.lobby.admin(chat_id, person, is_admin, table_id)

        def op(tb: Table) -> str:
            if person.user_id != tb.creator_id and not admin:
                raise TableError("err_not_allowed")
            tb.cancel()
            tb.closed = {"key": "cancelled_by", "who": person.name}  # the table says who
            if by_command:  # the reply says it: the table's message goes
                tb.closed["drop"] = "1"
            return "cancelled"

        reply = await self.lobby.lobby_op(chat_id, op, table_id=table_id)
        if by_command and reply.key == "cancelled":
            lang = found.lang if found is not None else self.registry.default_lang
            return Reply(t(lang, "cancelled_by", who=person.name), key="cancelled_by")
        return reply

    async def close_table(self, table_id: int, closed: dict[str, str]) -> None:
        """Cancel the table now if it is open, saying why (a tournament cancelled: its
        match)."""
        async with self.registry.lock(table_id):
            current = await self.registry.current(table_id)
            if current is not None and current.status in (LOBBY, PLAYING):
                await self.close(current, closed)

    async def close(self, table: Table, closed: dict[str, str]) -> bool:
        """Cancel the table now, saying why (under its lock). False if the write failed."""
        tid = table.table_id
        table.cancel()
        table.closed = closed
        self.deadlines.plan(table)
        try:
            row = await self.db.tables.update_lobby(
                tid,
                status=CANCELLED,
                seats_json=table.seats_json(),
                timers_json=table.pending.to_json(),
                expected_move_no=table.move_no,
            )
        except StorageError:
            log.exception("table %s: closing failed, reloading", tid)
            await self.registry.reload(tid)
            return False
        table.move_no = row.move_no
        self.play.settle(table)
        self.shown.render(table, urgent=True)  # nobody keeps live buttons
        self.lobby.drop_panels(table)
        if table.hand is not None and closed.get("key") in ANNOUNCED:
            # a match that ends without a result is news: a new message in the group, which
            # notifies (each player's comes in private, `Shown.render`); a cancel by command
            # is announced by its reply
            text = t(table.lang, closed["key"], who=closed.get("who", ""))
            self.registry.spawn(self.out.say(table.chat_id, text))
        return True

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
            async with self.registry.lock(tid):
                current = await self.registry.current(tid)
                if current is None or current.status != PLAYING:
                    return Reply(t(reply_lang(lang), "err_no_table"))
                self.deadlines.end_request(current, "cancel_moot")
                closed = {"key": "cancelled_by", "who": person.name, "drop": "1"}
                if not await self.close(current, closed):
                    return Reply(t(reply_lang(lang), "err_busy"))
            return Reply(t(reply_lang(lang), "cancelled_by", who=person.name))
        if not stake:
            return Reply(t(reply_lang(lang), "err_not_allowed"))
        if table.seat_of(person.user_id) is None:
            return Reply(t(reply_lang(lang), "err_cancel_not_allowed"))
        return await self._ask_cancel(table, person, others)

    async def _ask_cancel(self, table: Table, person: Person, others: list[int]) -> Reply:
        """A player asks to cancel: a group message asks the others, with buttons."""
        tid, lang = table.table_id, table.lang
        async with self.registry.lock(tid):
            current = await self.registry.current(tid)
            if current is None or current.status != PLAYING:
                return Reply(t(reply_lang(lang), "err_no_table"))
            if current.pending.cancel is not None:
                return Reply(t(reply_lang(lang), "err_cancel_pending"))
            request = CancelRequest(person.user_id, person.name, others)
            current.pending.cancel = request
            current.pending.at["cancel"] = self.deadlines.timing.cancel_wait(
                self.deadlines.timing.now()
            )
            await self.deadlines.store_pending(current)
            self.deadlines.arm(current)
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
        async with self.registry.lock(tid):
            current = await self.registry.current(tid)
            if current is None or current.pending.cancel is not request:
                if message_id is not None:  # settled meanwhile: no live buttons
                    gone = Rendered(t(lang, "cancel_moot"), [])
                    self.registry.spawn(self.out.edit(table.chat_id, message_id, gone))
                return Reply("")
            if message_id is None:  # nobody could answer it
                self.deadlines.end_request(current, "cancel_moot")
                await self.deadlines.store_pending(current)
                self.deadlines.arm(current)
                return Reply(t(reply_lang(lang), "err_busy"))
            request.message_id = message_id
            await self.deadlines.store_pending(current)
        return Reply("")

    async def cancel_vote(self, chat_id: int, person: Person, table_id: int, agree: bool) -> Reply:
        """A tap on a request to cancel: only the players asked may answer, once."""
        lang = await self.langs.chat(chat_id)
        table = await self.registry.current(table_id)
        if table is None or table.chat_id != chat_id:
            return Reply(t(reply_lang(lang), "err_no_request"))
        async with self.registry.lock(table_id):
            table = await self.registry.current(table_id)
            request = table.pending.cancel if table is not None else None
            if table is None or request is None or table.status != PLAYING:
                return Reply(t(reply_lang(lang), "err_no_request"))
            lang = table.lang
            if person.user_id == request.by:
                return Reply(t(reply_lang(lang), "err_own_request"))
            if person.user_id not in request.need:
                return Reply(t(reply_lang(lang), "err_not_your_vote"))
            if person.user_id in request.agreed:
                return Reply(t(reply_lang(lang), "err_voted"))
            if not agree:
                self.deadlines.end_request(table, "cancel_refused", who=person.name)
                await self.deadlines.store_pending(table)
                self.deadlines.arm(table)
                return Reply(t(reply_lang(lang), "ok_refused"))
            request.agreed.append(person.user_id)
            if set(request.need) - set(request.agreed):
                await self.deadlines.store_pending(table)
                return Reply(t(reply_lang(lang), "ok_agreed_wait"))
            names = {s.user_id: s.name for s in table.seats if s.user_id is not None}
            agreed = ", ".join(names.get(u, str(u)) for u in request.agreed)
            self.deadlines.end_request(table, "cancel_done", who=request.by_name, agreed=agreed)
            closed = {"key": "cancelled_agreed", "who": request.by_name, "drop": "1"}
            if not await self.close(table, closed):
                return Reply(t(reply_lang(lang), "err_busy"))
        return Reply(
            t(reply_lang(lang), "cancelled")
        )  # a tap's answer is plain text: no names in it
