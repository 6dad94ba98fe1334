"""The languages the service writes in (`Languages`): a chat's, and a person's own, kept for
a minute; what is stored about a person when they act (`note_person`, `own_lang`).
"""

from __future__ import annotations

import time

from bot.service.types import REPLY_LANG, Person
from storage import Database, UserRow

LANG_KEPT = 60.0  # seconds a person's /lang is trusted from memory (other workers may set it)


class Languages:
    """A chat's language and a person's own, for everything the service writes."""

    def __init__(self, db: Database, default: str = "it") -> None:
        self.db = db
        self.default = default
        # user -> (their /lang or None, when it was read): `person`'s cache
        self._people: dict[int, tuple[str | None, float]] = {}

    async def chat(self, chat_id: int) -> str:
        """The language to write in `chat_id`: a group's (its admins' /lang), or in a
        private chat the person's own (`REPLY_LANG`, set by the handler for the update)."""
        if chat_id > 0 and (mine := REPLY_LANG.get()):
            return mine
        return await self.db.people.chat_lang(chat_id) or self.default

    async def person(self, person: Person) -> str | None:
        """A person's own language: the one they chose with /lang, else their Telegram
        language; None when neither is known (the group's then)."""
        now = time.monotonic()
        hit = self._people.get(person.user_id)
        if hit is None or now - hit[1] > LANG_KEPT:
            user = await self.db.people.get_user(person.user_id)
            hit = self._people[person.user_id] = ((user.lang if user else None), now)
        return hit[0] or person.lang

    def chosen(self, user_id: int, lang: str) -> None:
        """A person chose their language (/lang, stored): `person` says it from now."""
        self._people[user_id] = (lang, time.monotonic())


async def note_person(db: Database, person: Person) -> UserRow | None:
    """Note the person (their name as Telegram gives it now) and read what is stored about
    them (their /lang, whether they opened a private chat with the bot): two calls, whatever
    is then needed of them."""
    await db.people.upsert_user(person.user_id, person.name)
    return await db.people.get_user(person.user_id)


def own_lang(person: Person, user: UserRow | None) -> str | None:
    """A person's language for their private messages: the one they chose with /lang, else
    their Telegram language, else None (the table's)."""
    return (user.lang if user is not None else None) or person.lang
