"""Users and chats: names and languages, whether the bot may write to a person, a group's
settings and its current league season.
"""

from __future__ import annotations

import json
from typing import Any

from storage.backend import Backend
from storage.db.base import _dt, _now, ensure_chat
from storage.models import ChatRow, UserRow


class PeopleStore:
    """Users and chats."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    async def upsert_user(
        self, user_id: int, name: str, lang: str | None = None, can_dm: bool | None = None
    ) -> None:
        """Insert or update; `lang` and `can_dm` left as None keep the stored values
        (a new user starts with can_dm False)."""
        dm = None if can_dm is None else int(can_dm)
        async with self.backend.write() as conn:
            await conn.execute(
                "INSERT INTO users (user_id, name, lang, can_dm, updated_at)"
                " VALUES (?, ?, ?, COALESCE(?, 0), ?) ON CONFLICT (user_id) DO UPDATE SET"
                " name = excluded.name, lang = COALESCE(?, users.lang),"
                " can_dm = COALESCE(?, users.can_dm), updated_at = excluded.updated_at",
                (user_id, name, lang, dm, _now(), lang, dm),
            )

    async def get_user(self, user_id: int) -> UserRow | None:
        async with self.backend.read() as conn:
            r = await conn.one("SELECT * FROM users WHERE user_id = ?", (user_id,))
        if r is None:
            return None
        return UserRow(r["user_id"], r["name"], r["lang"], bool(r["can_dm"]), _dt(r["updated_at"]))

    async def set_chat_lang(self, chat_id: int, lang: str | None) -> None:
        async with self.backend.write() as conn:
            await conn.execute(
                "INSERT INTO chats (chat_id, lang, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (chat_id) DO UPDATE SET lang = excluded.lang,"
                " updated_at = excluded.updated_at",
                (chat_id, lang, _now()),
            )

    async def chat_lang(self, chat_id: int) -> str | None:
        chat = await self.get_chat(chat_id)
        return None if chat is None else chat.lang

    async def get_chat(self, chat_id: int) -> ChatRow | None:
        async with self.backend.read() as conn:
            r = await conn.one("SELECT * FROM chats WHERE chat_id = ?", (chat_id,))
        if r is None:
            return None
        return ChatRow(r["chat_id"], r["lang"], r["league_epoch"], _dt(r["updated_at"]))

    async def chat_settings(self, chat_id: int) -> dict[str, Any]:
        """A group's own settings and what the bot remembers of it (`update_chat_settings`);
        empty for a group never seen."""
        async with self.backend.read() as conn:
            r = await conn.one("SELECT settings_json FROM chats WHERE chat_id = ?", (chat_id,))
        if r is None or not r["settings_json"]:
            return {}
        data: dict[str, Any] = json.loads(r["settings_json"])
        return data

    async def update_chat_settings(self, chat_id: int, **changes: Any) -> dict[str, Any]:
        """Set some of a group's settings (a value None removes it); the others stay. Returns
        them all as written."""
        async with self.backend.write() as conn:
            await ensure_chat(conn, chat_id)
            r = await conn.one("SELECT settings_json FROM chats WHERE chat_id = ?", (chat_id,))
            data: dict[str, Any] = (
                json.loads(r["settings_json"]) if r and r["settings_json"] else {}
            )
            for key, value in changes.items():
                if value is None:
                    data.pop(key, None)
                else:
                    data[key] = value
            await conn.execute(
                "UPDATE chats SET settings_json = ?, updated_at = ? WHERE chat_id = ?",
                (json.dumps(data, ensure_ascii=False, sort_keys=True), _now(), chat_id),
            )
        return data

    async def league_epoch(self, chat_id: int) -> int:
        """The chat's current league epoch (0 for a chat never seen)."""
        chat = await self.get_chat(chat_id)
        return 0 if chat is None else chat.league_epoch
