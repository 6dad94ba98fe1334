"""The hand and match records a table writes with its ledger (`bot.table.stats`; storage's
migration 6) as /stats, /top and /h2h read them (`Records.views`: without the undone ones), the
ratings from them (`bot.table.rating`), kept until the records change, and whom a command names;
a `Chart`, the picture a command answers with (drawn off the event loop, `asyncio.to_thread`).

A person is named by @username (the bot notes usernames as people write), by the name they play
under in this group, by replying to one of their messages, or by a mention of someone without a
username.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Final

from bot.i18n import t
from bot.table.plays import StoredPlay
from bot.table.rating import PROVISIONAL_GAMES, Event, Rating, Ratings, events, rate
from bot.table.stats import HandView, MatchView, known_names, views
from storage import Database

CHART_WORDS: Final = frozenset({"chart", "grafico", "graph", "grafici"})
NAME_MAX: Final = 64  # a name or @username asked for, beyond which it is not looked up

Who = int | str
"""Whom a command names: a user id (a reply, a mention without username) or a word
("@username", or a name played under in the group)."""


@dataclass(frozen=True, slots=True)
class Chart:
    """A picture for the chat: what the handler sends with `send_photo`."""

    png: bytes
    caption: str


def _rated_events(
    hands: list[StoredPlay], matches: list[StoredPlay], undone: set[tuple[int, str]]
) -> list[Event]:
    """Every group's rated games (`bot.table.rating.events`), without the undone ones."""
    out: list[Event] = []
    for chat in sorted({p.chat_id for p in hands} | {p.chat_id for p in matches}):
        hv, mv = views(
            [h for h in hands if h.chat_id == chat],
            [m for m in matches if m.chat_id == chat],
            {key for c, key in undone if c == chat},
        )
        out.extend(events(chat, hv, mv))
    return out


@dataclass(frozen=True, slots=True)
class _Rated:
    """Every rated game and the ratings from them, at a version of the records: the global
    ratings, and each group's as they are asked for (`groups`, filled in)."""

    version: tuple[int, int, int]  # `StatsStore.plays_version`
    events: list[Event]
    world: Ratings
    groups: dict[int, Ratings]


class Records:
    """The records as /stats, /top and /h2h read them (`views`: without the undone ones), the
    ratings from them (`ratings`), and whom a command names (`resolve`, by the @usernames
    noted, `note_username`)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._usernames: dict[int, str | None] = {}  # user -> @username, as noted this run
        self._rated: _Rated | None = None  # `ratings`, kept until the records change

    # ------------------------------------------------------------------ people

    async def note_username(self, user_id: int, name: str, username: str | None) -> None:
        """Remember a person's @username once per run (and when it changes)."""
        seen = self._usernames
        if user_id in seen and seen[user_id] == username:
            return
        seen[user_id] = username
        await self.db.stats.note_username(user_id, name, username)

    async def resolve(self, word: Who, names: dict[int, str]) -> tuple[int, str] | None:
        """(user_id, name) of whom `word` names, or None."""
        if isinstance(word, int):
            return word, names.get(word) or (await self._user_name(word)) or str(word)
        text = word.strip()
        bare = text.removeprefix("@")
        if not bare or len(bare) > NAME_MAX:
            return None
        if text.startswith("@"):
            found = await self.db.stats.user_by_username(bare)
            if found is not None:
                return found[0], names.get(found[0], found[1])
        folded = bare.casefold()
        matches = [uid for uid, n in names.items() if n.casefold() == folded]
        if len(matches) != 1:
            matches = [uid for uid, n in names.items() if n.casefold().split()[:1] == [folded]]
        return (matches[0], names[matches[0]]) if len(matches) == 1 else None

    async def known(
        self, chat_id: int, hands: list[HandView], matches: list[MatchView]
    ) -> dict[int, str]:
        """Everyone the group knows by name: whoever played a hand there, undone or not
        (issue 54.4: someone whose only match an admin undid was "unknown"), by the last name
        they played under in the records that count, else in any."""
        every = known_names(*views(*await self.db.stats.plays(chat_id, None)))
        return {**every, **known_names(hands, matches)}

    async def _user_name(self, user_id: int) -> str | None:
        row = await self.db.people.get_user(user_id)
        return None if row is None else row.name

    # ------------------------------------------------------------------ records

    async def views(
        self, chat_id: int, epoch: int | None = None
    ) -> tuple[list[HandView], list[MatchView]]:
        hands, matches = await self.db.stats.plays(chat_id, epoch)
        undone = {key for chat, key in await self.db.stats.undone_keys(chat_id) if chat == chat_id}
        return views(hands, matches, undone)

    async def ratings(self, chat_id: int) -> tuple[Ratings, Ratings]:
        """(the group's ratings, the global ones), from every season's records. Computed in
        a worker thread (reading the records is the heavy part) and kept until a record or
        an undo is written."""
        version = await self.db.stats.plays_version()
        if self._rated is None or self._rated.version != version:
            hands, matches = await self.db.stats.plays()
            undone = await self.db.stats.undone_keys()
            every = await asyncio.to_thread(_rated_events, hands, matches, undone)
            world = await asyncio.to_thread(rate, every)
            # replaced at once: a concurrent call sees the old or the new
            self._rated = _Rated(version, every, world, {})
        rated = self._rated
        if chat_id not in rated.groups:
            mine = [ev for ev in rated.events if ev.chat_id == chat_id]
            rated.groups[chat_id] = await asyncio.to_thread(rate, mine)
        return rated.groups[chat_id], rated.world


def rating_text(lang: str, rating: Rating | None) -> str:
    """ "1230", or "1040 provvisorio (4 su 10)" under `PROVISIONAL_GAMES` games."""
    if rating is None:
        return t(lang, "st_rating_none")
    if rating.provisional:
        return t(
            lang,
            "st_provisional",
            value=rating.shown,
            games=rating.games,
            need=PROVISIONAL_GAMES,
        )
    return t(lang, "st_rating_value", value=rating.shown)
