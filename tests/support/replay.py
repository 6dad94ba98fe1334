"""The bot's stored table read back (`read_table`: the row and its move log) and replayed from
the match seed (`replay`), to check that what a killed or restarted bot stored is what its
moves make (tests/test_e2e_kill.py, tests/test_multiworker.py)."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import dataclass
from typing import Any

from bench.rig.bot_process import Store
from bot.engine import HandState, Match, Options


@dataclass
class Snapshot:
    """One table's row and move log, read in one transaction."""

    row: dict[str, Any]
    moves: list[tuple[int, int, int, int, int | None]]  # move_no, hand, seat, action, user


def _who_sits(row: dict[str, Any]) -> dict[str, Any]:
    """The seats and the table's settings without the state a move changes: a seat's count of
    timeouts in a row, and whether the computer keeps it (and at which level)."""
    data = json.loads(row["seats_json"])
    data["seats"] = [
        {k: v for k, v in seat.items() if k not in ("timeouts", "away", "level")}
        for seat in data["seats"]
    ]
    return dict(data)


def read_table(store: Store, chat_id: int) -> Snapshot:
    conn = sqlite3.connect(f"file:{store.path}?mode=ro", uri=True, timeout=10)
    try:
        conn.row_factory = sqlite3.Row
        conn.execute("BEGIN")
        row = conn.execute(
            "SELECT * FROM tables WHERE chat_id = ? ORDER BY table_id DESC LIMIT 1", (chat_id,)
        ).fetchone()
        assert row is not None, f"no table in chat {chat_id}"
        moves = [
            (r["move_no"], r["hand_index"], r["seat"], r["action"], r["user_id"])
            for r in conn.execute(
                "SELECT * FROM moves WHERE table_id = ? ORDER BY move_no", (row["table_id"],)
            )
        ]
        conn.execute("COMMIT")
        return Snapshot(dict(row), moves)
    finally:
        conn.close()


def replay(snap: Snapshot) -> Match:
    """Replay the whole move log from the match seed; the stored match and hand must be what
    the replay gives (the last hand's moves applied to its deal). Returns the replayed match."""
    row = snap.row
    options = json.loads(row["options_json"])
    variant = options.pop("variant")
    seed = json.loads(row["seats_json"])["seed"]
    match = Match(Options.parse(variant, options), seed)
    stored_hand = json.loads(row["hand_json"])
    last = stored_hand["hand_index"]
    keys = [(h, s, a) for _, h, s, a, _ in snap.moves]
    assert len(keys) == len(set(keys)), f"a move stored twice: {Counter(keys).most_common(3)}"
    assert all(h <= last for h, _, _ in keys), "moves of a hand after the stored one"
    hand: HandState | None = None
    for k in range(last + 1):
        hand = match.deal()
        for _, h, seat, action, _ in snap.moves:
            if h == k:
                hand.apply(action, seat)  # IllegalAction: a move stored twice or out of order
        if hand.is_terminal():
            match.record(hand)
        else:
            assert k == last, f"hand {k} unfinished but hand {last} dealt"
    assert hand is not None
    assert json.loads(json.dumps(hand.to_dict())) == stored_hand, "hand_json != the replay"
    assert json.loads(json.dumps(match.to_dict())) == json.loads(row["match_json"]), (
        "match_json != the replay"
    )
    assert (row["status"] == "finished") == match.over, (row["status"], match.over)
    return match


def forced_moves(snap: Snapshot) -> set[tuple[int, int, int]]:
    """(hand, seat, action) of the moves in the log nobody chose: a person's last card in the
    hand's last trick (`HandState.forced_action`), which the bot plays for them untapped."""
    row = snap.row
    options = json.loads(row["options_json"])
    variant = options.pop("variant")
    match = Match(Options.parse(variant, options), json.loads(row["seats_json"])["seed"])
    forced: set[tuple[int, int, int]] = set()
    for k in range(json.loads(row["hand_json"])["hand_index"] + 1):
        hand = match.deal()
        for _, h, seat, action, _ in snap.moves:
            if h == k:
                if hand.forced_action() == action:
                    forced.add((h, seat, action))
                hand.apply(action, seat)
        if hand.is_terminal():
            match.record(hand)
    return forced
