"""Rows written straight into a database made by an older schema (V4 and later), for the
migration tests: what a group had before a migration reached it."""

from __future__ import annotations

import aiosqlite


async def old_group(
    conn: aiosqlite.Connection,
    chat_id: int,
    epoch: int,
    user: tuple[int, str],
    now: str,
) -> None:
    """A chat in `epoch` (the V4 name of a season), a user who can be messaged, and one
    finished `due` table (table id 1) the user created."""
    user_id, name = user
    await conn.execute(
        "INSERT INTO chats (chat_id, lang, league_epoch, updated_at) VALUES (?, 'en', ?, ?)",
        (chat_id, epoch, now),
    )
    await conn.execute(
        "INSERT INTO users (user_id, name, can_dm, updated_at) VALUES (?, ?, 1, ?)",
        (user_id, name, now),
    )
    await conn.execute(
        "INSERT INTO tables (chat_id, creator_id, status, variant, options_json, seats_json,"
        " created_at, updated_at) VALUES (?, ?, 'finished', 'due', '{}', '[]', ?, ?)",
        (chat_id, user_id, now, now),
    )


async def old_hand(
    conn: aiosqlite.Connection,
    chat_id: int,
    epoch: int,
    key: str,
    deltas: dict[int, int],
    names: dict[int, str],
    now: str,
) -> None:
    """A ledger write of table 1 (a `due` hand) as the V4 ledger stored it."""
    await conn.execute(
        "INSERT INTO ledger_hands (chat_id, epoch, hand_key, table_id, variant,"
        " finished_at, deltas_json) VALUES (?, ?, ?, 1, 'due', ?, '{}')",
        (chat_id, epoch, key, now),
    )
    for uid, delta in deltas.items():
        await conn.execute(
            "INSERT INTO ledger_entries VALUES (?, ?, ?, ?, ?, ?)",
            (chat_id, epoch, key, uid, names[uid], delta),
        )
