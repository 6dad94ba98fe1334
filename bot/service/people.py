"""People and words: the private chat's /start, a private message refused, the greeting,
/help, /rules, /lang, an unknown command.
"""

from __future__ import annotations

from bot.engine import VARIANTS
from bot.i18n import LANGS, t, variant_name
from bot.service.langs import Languages
from bot.service.lobby import Lobby
from bot.service.registry import Registry
from bot.service.shown import Shown
from bot.service.types import AdminCheck, Outbox, Person, Reply, reply_lang
from bot.view.render import Button
from storage import Database

# words that name a variant in /rules, besides the variants' own keys
RULES_WORDS = {"briscola": "due", "two": "due", "called": "chiamata", "bastarda": "chiamata"}


class People:
    """The private chat, the greeting, /help, /rules, /lang: a person's seat and the group's
    table (`tables`, `lobby`: joining, a language chosen), the chat's language, the messages."""

    def __init__(
        self,
        db: Database,
        outbox: Outbox,
        langs: Languages,
        registry: Registry,
        shown: Shown,
        lobby: Lobby,
    ) -> None:
        self.registry = registry
        self.shown = shown
        self.lobby = lobby
        self.db = db
        self.out = outbox
        self.langs = langs

    async def private_text(self, chat_id: int, person: Person) -> Reply:
        """Words typed in the private chat: what the chat is for, and where to play."""
        return Reply(t(await self.langs.chat(chat_id), "private_text", bot=self.shown.bot_username))

    async def private_start(self, person: Person, payload: str) -> Reply:
        await self.db.people.upsert_user(person.user_id, person.name, can_dm=True)
        self.out.unblock(person.user_id)  # before anything is rendered for them
        user = await self.db.people.get_user(person.user_id)
        lang = (user.lang if user else None) or person.lang or self.langs.default
        if payload.startswith("t") and payload[1:].isdigit():
            table = await self.registry.current(int(payload[1:]))
            if table is None:
                return Reply(t(reply_lang(lang), "err_hand_over"))
            lang = table.lang
            if table.seat_of(person.user_id) is None:
                reply = await self.lobby.join(table.chat_id, person, table.table_id)
                if table.seat_of(person.user_id) is None:
                    return reply
            await self.shown.show_hand(table.table_id, person.user_id)  # their hand, now
            if table.title:
                return Reply(t(reply_lang(lang), "start_seated_in", group=table.title))
            return Reply(t(reply_lang(lang), "start_seated"))
        return Reply(t(reply_lang(lang), "start_private"))

    async def dm_blocked(self, table_id: int, user_id: int) -> None:
        """A private message was refused (the person never started the bot): the group is
        told. `TelegramOutbox.on_blocked`."""
        table = self.registry.by_id.get(table_id)
        if table is None:  # closed since (the outbox is told of a table by id alone)
            row = await self.db.tables.get_table(table_id)
            if row is None:
                return
            table = self.registry.from_row(row)
        seat = table.seat_of(user_id)
        name = table.seats[seat].name if seat is not None else str(user_id)
        kb = [[Button(t(table.lang, "btn_open_chat"), url=self.shown.deep_link(table.table_id))]]
        await self.out.say(table.chat_id, t(table.lang, "dm_blocked", who=name), kb)
        await self.db.people.upsert_user(user_id, name, can_dm=False)

    async def greet(self, chat_id: int) -> Reply:
        """The bot was added to a group: one short message, what it does and /new."""
        return Reply(t(reply_lang(await self.langs.chat(chat_id)), "greeting"))

    async def unknown_command(
        self, chat_id: int, command: str, *, is_group: bool, addressed: bool
    ) -> Reply:
        """A command the bot does not know. In a group it answers only a command addressed
        to it (/x@bot) or when the group has a table: other bots' commands are not its own."""
        if is_group and not addressed and await self.registry.table_for_chat(chat_id) is None:
            return Reply("")
        return Reply(
            t(reply_lang(await self.langs.chat(chat_id)), "err_unknown_command", command=command)
        )

    async def help(self, chat_id: int) -> Reply:
        lang = await self.langs.chat(chat_id)
        names = ", ".join(f"{v} ({variant_name(lang, v)})" for v in VARIANTS)
        return Reply(t(lang, "help", variants=names))

    async def rules(self, chat_id: int, word: str = "") -> Reply:
        """/rules [variant]: the rules of a variant in the chat (its scoring, chiamata's
        auction, the table's symbols, a short example); without one, the group's open
        table's, or the rules every variant shares and how to ask for one."""
        lang = await self.langs.chat(chat_id)
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
            table = await self.registry.table_for_chat(chat_id)
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
            return Reply(t(reply_lang(await self.langs.chat(chat_id)), "err_bad_lang"))
        if is_group:
            admin = is_admin if isinstance(is_admin, bool) else await is_admin()
            if not admin:
                return Reply(t(reply_lang(await self.langs.chat(chat_id)), "err_lang_admin"))
            await self.db.people.set_chat_lang(chat_id, lang)
            await self.lobby.set_table_lang(chat_id, lang)
        else:
            await self.db.people.upsert_user(person.user_id, person.name, lang=lang)
            await self.db.people.set_chat_lang(chat_id, lang)
            self.langs.chosen(person.user_id, lang)
            await self.lobby.set_seat_lang(person.user_id, lang)
            return Reply(t(lang, "ok_lang_private"))  # in the language just chosen
        return Reply(t(lang, "ok_lang"))
