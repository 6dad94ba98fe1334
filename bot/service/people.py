"""People and words: the private chat's /start, a private message refused, the greeting,
/help, /rules, /lang, an unknown command.
"""

from __future__ import annotations

import logging
import time

from bot.engine import VARIANTS
from bot.i18n import LANGS, t, variant_name
from bot.service.lobby import Lobby
from bot.service.types import AdminCheck, Person, Reply
from bot.table.table import Table
from bot.view.render import Button
from storage import StorageError

log = logging.getLogger(__name__)


LANG_KEPT = 60.0  # seconds a person's /lang is trusted from memory (other workers may set it)
# words that name a variant in /rules, besides the variants' own keys
RULES_WORDS = {"briscola": "due", "two": "due", "called": "chiamata", "bastarda": "chiamata"}


class People(Lobby):
    """Answers about people, languages and the ledger."""

    async def person_lang(self, person: Person) -> str | None:
        """A person's own language: the one they chose with /lang, else their Telegram
        language; None when neither is known (the group's then)."""
        langs: dict[int, tuple[str | None, float]] = self.__dict__.setdefault("_langs", {})
        now = time.monotonic()
        hit = langs.get(person.user_id)
        if hit is None or now - hit[1] > LANG_KEPT:
            user = await self.db.get_user(person.user_id)
            hit = langs[person.user_id] = ((user.lang if user else None), now)
        return hit[0] or person.lang

    async def private_text(self, chat_id: int, person: Person) -> Reply:
        """Words typed in the private chat: what the chat is for, and where to play."""
        return Reply(t(await self.chat_lang(chat_id), "private_text", bot=self.bot_username))

    async def private_start(self, person: Person, payload: str) -> Reply:
        await self.db.upsert_user(person.user_id, person.name, can_dm=True)
        self.out.unblock(person.user_id)  # before anything is rendered for them
        user = await self.db.get_user(person.user_id)
        lang = (user.lang if user else None) or person.lang or self.default_lang
        if payload.startswith("t") and payload[1:].isdigit():
            table = await self._current(int(payload[1:]))
            if table is None:
                return Reply(t(self._rl(lang), "err_hand_over"))
            lang = table.lang
            if table.seat_of(person.user_id) is None:
                reply = await self.join(table.chat_id, person, table.table_id)
                if table.seat_of(person.user_id) is None:
                    return reply
            async with self._lock(table.table_id):
                current = await self._current(table.table_id)
                seat = current.seat_of(person.user_id) if current is not None else None
                if current is not None and seat is not None:
                    self._moments.pop((current.table_id, seat), None)  # their hand, now
                    self._render(current)
            if table.title:
                return Reply(t(self._rl(lang), "start_seated_in", group=table.title))
            return Reply(t(self._rl(lang), "start_seated"))
        return Reply(t(self._rl(lang), "start_private"))

    async def dm_blocked(self, table: Table, user_id: int) -> None:
        """A private message was refused (the person never started the bot)."""
        seat = table.seat_of(user_id)
        name = table.seats[seat].name if seat is not None else str(user_id)
        kb = [[Button(t(table.lang, "btn_open_chat"), url=self.deep_link(table.table_id))]]
        await self.out.say(table.chat_id, t(table.lang, "dm_blocked", who=name), kb)
        await self.db.upsert_user(user_id, name, can_dm=False)

    async def greet(self, chat_id: int) -> Reply:
        """The bot was added to a group: one short message, what it does and /new."""
        return Reply(t(self._rl(await self.chat_lang(chat_id)), "greeting"))

    async def unknown_command(
        self, chat_id: int, command: str, *, is_group: bool, addressed: bool
    ) -> Reply:
        """A command the bot does not know. In a group it answers only a command addressed
        to it (/x@bot) or when the group has a table: other bots' commands are not its own."""
        if is_group and not addressed and await self._table_for_chat(chat_id) is None:
            return Reply("")
        return Reply(
            t(self._rl(await self.chat_lang(chat_id)), "err_unknown_command", command=command)
        )

    async def help(self, chat_id: int) -> Reply:
        lang = await self.chat_lang(chat_id)
        names = ", ".join(f"{v} ({variant_name(lang, v)})" for v in VARIANTS)
        return Reply(t(lang, "help", variants=names))

    async def rules(self, chat_id: int, word: str = "") -> Reply:
        """/rules [variant]: the rules of a variant in the chat (its scoring, chiamata's
        auction, the table's symbols, a short example); without one, the group's open
        table's, or the rules every variant shares and how to ask for one."""
        lang = await self.chat_lang(chat_id)
        word = word.strip().lower()
        variant = word if word in VARIANTS else RULES_WORDS.get(word)
        if variant is None and word:
            for v in VARIANTS:  # its name in words: "Briscolone", "chiamata a quattro"
                if word in variant_name(lang, v).lower():
                    variant = v
                    break
        if word and variant is None:
            return Reply(t(lang, "err_rules_variant", given=word, variants=", ".join(VARIANTS)))
        if variant is None and chat_id < 0:
            table = await self._table_for_chat(chat_id)
            variant = table.options.variant if table is not None else None
        if variant is None:
            return Reply(t(lang, "rules", variants=", ".join(VARIANTS)), key="rules")
        lines = [t(lang, f"rules_{variant}"), "", t(lang, "rules_symbols")]
        return Reply("\n".join(lines), key=f"rules_{variant}")

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
            return Reply(t(self._rl(await self.chat_lang(chat_id)), "err_bad_lang"))
        if is_group:
            admin = is_admin if isinstance(is_admin, bool) else await is_admin()
            if not admin:
                return Reply(t(self._rl(await self.chat_lang(chat_id)), "err_lang_admin"))
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
            langs: dict[int, tuple[str | None, float]] = self.__dict__.setdefault("_langs", {})
            langs[person.user_id] = (lang, time.monotonic())
            for table in list(self.tables.values()):
                if table.seat_of(person.user_id) is not None:
                    await self._seat_lang(table.table_id, person.user_id, lang)
            return Reply(t(lang, "ok_lang_private"))  # in the language just chosen
        return Reply(t(lang, "ok_lang"))

    async def _seat_lang(self, table_id: int, user_id: int, lang: str) -> None:
        """A seated person chose their language: stored with the seat, their hand re-shown."""
        async with self._lock(table_id):
            table = await self._current(table_id)
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
