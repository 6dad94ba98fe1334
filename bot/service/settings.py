"""The settings before the start and the start: a setting set (`/settings k=v`, a tap of the
settings panel), the panel (a message of its own below the lobby) and its screens, the start
(`/go`, the lobby's button). Every change goes through `Lobby.lobby_op`.
"""

from __future__ import annotations

import contextlib
import html
import secrets

from bot.i18n import option_name, t, value_name
from bot.players import DEFAULT_LEVEL
from bot.service.langs import Languages
from bot.service.lobby import Lobby
from bot.service.registry import Registry
from bot.service.shown import Shown
from bot.service.types import AdminCheck, Outbox, Person, Reply, TableRef, reply_lang
from bot.table.settings import (
    SETTING_CHOICES,
    TABLE_SETTINGS,
    applicable_settings,
    setting_values,
)
from bot.table.table import LOBBY, Table, TableError
from bot.view.render import Rendered, option_message, options_summary, settings_message

# The words people type for a switch (issue 54.8: `/settings counts=yes` was refused): each
# means what the settings store, "true" or "false".
SWITCH_WORDS = {
    **dict.fromkeys(("true", "yes", "y", "si", "sì", "on", "1", "vero"), "true"),
    **dict.fromkeys(("false", "no", "n", "off", "0", "falso"), "false"),
}


def switch_word(key: str, value: str) -> str:
    """`value` as stored, for a setting that is a switch (its values "true" and "false");
    any other setting's value as it is."""
    if set(SETTING_CHOICES.get(key, ())) == {"true", "false"}:
        return SWITCH_WORDS.get(value.strip().lower(), value)
    return value


class Settings:
    """What a tap or command does to the settings before the start, and the start: each
    change through the lobby's `lobby_op`; the panels opened noted in `Lobby.panels` (they go
    when the table leaves its lobby, `Lobby.drop_panels`)."""

    def __init__(
        self, outbox: Outbox, langs: Languages, registry: Registry, shown: Shown, lobby: Lobby
    ) -> None:
        self.out = outbox
        self.langs = langs
        self.registry = registry
        self.shown = shown
        self.lobby = lobby

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
        message_id: int | None = None,
    ) -> Reply:
        """Set settings before the start, all or nothing: if one is refused (an unknown
        setting, a value it does not take, one the other settings exclude) nothing changes
        and the answer names the values allowed. `panel`: the change came from the settings
        panel (`message_id`), which shows the list again (a /settings k=v command leaves the
        lobby, which lists the settings, in place). `bot_admin`: whether the bot administers
        the group, asked only to turn `pin` on."""
        pairs = [(key, switch_word(key, value)) for key, value in pairs]
        admin = await self.lobby.admin(chat_id, person, is_admin, table_id)
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

        reply = await self.lobby.lobby_op(chat_id, op, table_id=table_id)
        table = (
            await self.registry.current(table_id)
            if table_id
            else await self.registry.table_for_chat(chat_id)
        )
        ok = table is not None and reply.key == "ok_option"
        if ok and table is not None and table.status == LOBBY:
            if panel:  # the panel tapped shows the list again, with the new value
                self._show_panel(table, settings_message(table, table.lang), message_id)
            if table.pin and ("pin", "true") in pairs:
                await self.out.pin(TableRef.of(table))
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
            if key == "target" and tb.options.hands:  # §7.13: a fixed number of hands
                raise TableError("err_target_with_hands", name=name)
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
        elif key in TABLE_SETTINGS:  # pin, counts (§10.5: only with computer seats), review
            setattr(tb, key, value == "true")
        else:
            tb.set_option(key, value)

    async def show_option(
        self, chat_id: int, table_id: int, key: str, message_id: int | None = None
    ) -> Reply:
        """The settings panel's screen of one setting (a button of `settings_message`), in
        the panel tapped (`message_id`)."""
        lang = await self.langs.chat(chat_id)
        table = await self.registry.current(table_id)
        if table is None or table.chat_id != chat_id:
            return Reply(t(reply_lang(lang), "err_no_table"))
        if table.status != LOBBY:
            return Reply(t(reply_lang(table.lang), "err_started"))
        if not setting_values(table, key):
            return Reply(t(reply_lang(table.lang), "err_bad_data"))
        self._show_panel(table, option_message(table, key, table.lang), message_id)
        return Reply("")

    async def show_settings(
        self,
        chat_id: int,
        table_id: int | None = None,
        *,
        person: Person | None = None,
        is_admin: bool | AdminCheck = False,
        message_id: int | None = None,
    ) -> Reply:
        """The settings panel: a message of its own below the lobby, whose buttons stay for
        everyone, opened by the table's creator or an admin (anyone else is told the
        settings and who may change them). From a panel (`message_id`, its back button)
        that panel shows the list again."""
        lang = await self.langs.chat(chat_id)
        table = (
            await self.registry.current(table_id)
            if table_id
            else await self.registry.table_for_chat(chat_id)
        )
        if table is None or table.chat_id != chat_id:
            return Reply(t(reply_lang(lang), "err_no_table"))
        if table.status != LOBBY:
            return Reply(t(reply_lang(table.lang), "err_started"))
        if message_id is not None and message_id != table.table_message_id:
            self._show_panel(table, settings_message(table, table.lang), message_id)
            return Reply("")
        if (
            person is not None
            and person.user_id != table.creator_id
            and not await self.lobby.admin(chat_id, person, is_admin, table.table_id)
        ):
            seat = table.seat_of(table.creator_id)
            who = table.seats[seat].name if seat is not None else ""
            rl = reply_lang(table.lang)
            summary = html.unescape(options_summary(table, rl))
            text = t(rl, "settings_not_yours", who=who, options=summary)
            return Reply(html.unescape(text), alert=True, key="settings_not_yours")
        panel = await self.out.announce(chat_id, settings_message(table, table.lang), silent=True)
        if panel is not None:
            self.lobby.panels.setdefault(table.table_id, set()).add(panel)
        return Reply("")

    def _show_panel(self, table: Table, content: Rendered, message_id: int | None) -> None:
        """A settings panel shows `content`: the panel tapped, or (a table stored when the
        panel took the table message's place) the table message."""
        if message_id is None or message_id == table.table_message_id:
            self.out.show_table(TableRef.of(table), content)
        else:
            self.registry.spawn(self.out.edit(table.chat_id, message_id, content))

    async def back_to_lobby(
        self, chat_id: int, table_id: int, message_id: int | None = None
    ) -> Reply:
        """A settings panel's "done": the panel goes (the lobby never left)."""
        table = await self.registry.current(table_id)
        if table is None or table.chat_id != chat_id:
            return Reply(t(reply_lang(await self.langs.chat(chat_id)), "err_no_table"))
        if message_id is not None and message_id != table.table_message_id:
            self.lobby.panels.get(table_id, set()).discard(message_id)
            self.out.delete_soon(chat_id, [message_id])
        else:
            self.shown.render(table)
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
        admin = await self.lobby.admin(chat_id, person, is_admin, table_id)
        wait = self.registry.busy_for()  # a deal to every seat: not while the budget is behind

        def op(tb: Table) -> str:
            if person.user_id != tb.creator_id and not admin:
                raise TableError("err_not_allowed")
            if wait is not None:
                raise TableError("err_bot_busy", seconds=wait)
            if fill:
                while len(tb.seats) < tb.n_players:
                    tb.add_bot(DEFAULT_LEVEL)
            tb.start(secrets.token_hex(8))
            return ""

        reply = await self.lobby.lobby_op(chat_id, op, table_id=table_id)
        return reply
