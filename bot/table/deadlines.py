"""What a table waits for, and until when (nobody stalls the table). Pure: no I/O.

Every deadline is an absolute Unix time, stored with the table (`tables.timers_json`, written
in the same transaction as the move that set it), so a restarted bot re-arms what is left and
fires at once what passed while it was down. The service keeps one timer per table, armed
for the earliest deadline; a timer that fires finds the table's current token or does nothing.

Kinds:
    mention  the person to act has been slow: the group mentions them (once per turn)
    remind   the turn timer is about to run out: the person is reminded privately
    timeout  the turn timer ran out: the computer (`normal`) plays that move
    next     the hand is over: the next one starts by itself after a short pause
    expire   nobody started the lobby: it closes
    cancel   a request to cancel the match got no answer from everyone: it lapses
    abandon  the match waits for its people (the computer plays every person's seat:
             `Table.paused`) and nobody came back: it closes as abandoned, with no result

A notice sent about a turn (the group's mention, the private reminder, the group's notice that
the computer played) is noted with the table (`Pending.notices`) and deleted once it is no
longer true: the turn's notices when the turn is over, the others when the hand is.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

TIMER_DEFAULT = 60  # seconds per move of a new table; 0 = no turn timer
TIMER_CHOICES = (0, 30, 60, 120, 300)
MENTION_WITHOUT_TIMER = 45.0  # seconds before a slow player is mentioned when there is no timer
MENTION_AT = 0.5  # ... and with a timer: this share of it
REMIND_AT = 0.75  # the private reminder: this share of the timer
NEXT_HAND_PAUSE = 15.0  # seconds between a hand's end and the next one starting by itself
LOBBY_EXPIRY = 1800.0  # seconds a lobby waits, since its last change, for someone to start it
CANCEL_WAIT = 120.0  # seconds the other players have to agree to cancel a running match
ABANDON_AFTER = 900.0  # seconds a paused match waits for its people before it is abandoned
TIMEOUTS_TO_AWAY = 2  # timeouts in a row after which the computer keeps the seat

TURN_KINDS = ("mention", "remind", "timeout")


@dataclass(frozen=True, slots=True)
class Timing:
    """The lengths of the waits; `scale` multiplies them all (tests shorten them)."""

    scale: float = 1.0
    clock: Callable[[], float] = time.time

    def now(self) -> float:
        return self.clock()

    def turn_deadlines(self, timer: int, start: float) -> dict[str, float]:
        """The deadlines of a person's turn that began at `start`."""
        if not timer:
            return {"mention": start + MENTION_WITHOUT_TIMER * self.scale}
        length = timer * self.scale
        return {
            "mention": start + MENTION_AT * length,
            "remind": start + REMIND_AT * length,
            "timeout": start + length,
        }

    def next_hand(self, start: float) -> float:
        return start + NEXT_HAND_PAUSE * self.scale

    def lobby_expiry(self, start: float) -> float:
        return start + LOBBY_EXPIRY * self.scale

    def cancel_wait(self, start: float) -> float:
        return start + CANCEL_WAIT * self.scale

    def abandon(self, start: float) -> float:
        return start + ABANDON_AFTER * self.scale


@dataclass(slots=True)
class CancelRequest:
    """A player asked to cancel a running match: the other people seated must all agree."""

    by: int  # who asked (user id)
    by_name: str
    need: list[int]  # whose agreement is needed
    agreed: list[int] = field(default_factory=list)
    message_id: int | None = None  # the group message with the buttons

    def to_json(self) -> dict[str, Any]:
        return {
            "by": self.by,
            "by_name": self.by_name,
            "need": self.need,
            "agreed": self.agreed,
            "message_id": self.message_id,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CancelRequest:
        return cls(
            int(d["by"]),
            str(d["by_name"]),
            [int(x) for x in d["need"]],
            [int(x) for x in d.get("agreed", [])],
            d.get("message_id"),
        )


@dataclass(frozen=True, slots=True)
class Notice:
    """A message sent about the table that stays only as long as it is true: in `chat_id`,
    about `turn` (a turn key, see `Pending.turn`) until that turn is over, or (`turn` None)
    until the hand `hand` is over."""

    chat_id: int
    message_id: int
    hand: int
    turn: tuple[int, ...] | None = None

    def to_json(self) -> list[Any]:
        return [self.chat_id, self.message_id, self.hand, list(self.turn or ())]

    @classmethod
    def from_json(cls, d: list[Any]) -> Notice:
        return cls(int(d[0]), int(d[1]), int(d[2]), tuple(int(x) for x in d[3]) or None)

    def moot(self, turn: list[int] | None, hand: int | None) -> bool:
        """Whether it is no longer true with the table at `turn` in hand `hand` (None: the
        table is closed)."""
        if hand is None or hand != self.hand:
            return True
        return self.turn is not None and list(self.turn) != turn


@dataclass(slots=True)
class Pending:
    """A table's deadlines (kind -> Unix time), what they were set for, a pending request to
    cancel the match, and the notices to delete once they are no longer true."""

    at: dict[str, float] = field(default_factory=dict)
    # the turn the turn deadlines belong to: [hand index, actions taken, seat], or
    # [hand index, -1, -1] for the pause after a hand; None when no person is waited for
    turn: list[int] | None = None
    cancel: CancelRequest | None = None
    notices: list[Notice] = field(default_factory=list)

    def to_json(self) -> str:
        data: dict[str, Any] = {"at": self.at}
        if self.turn is not None:
            data["turn"] = self.turn
        if self.cancel is not None:
            data["cancel"] = self.cancel.to_json()
        if self.notices:
            data["notices"] = [n.to_json() for n in self.notices]
        return json.dumps(data)

    def moot_notices(self, hand: int | None) -> list[Notice]:
        """Take out (and return) the notices no longer true at `turn` in hand `hand`."""
        moot = [n for n in self.notices if n.moot(self.turn, hand)]
        self.notices = [n for n in self.notices if n not in moot]
        return moot

    @classmethod
    def from_json(cls, text: str | None) -> Pending:
        if not text:
            return cls()
        d = json.loads(text)
        cancel = d.get("cancel")
        return cls(
            at={str(k): float(v) for k, v in d.get("at", {}).items()},
            turn=d.get("turn"),
            cancel=CancelRequest.from_json(cancel) if cancel else None,
            notices=[Notice.from_json(n) for n in d.get("notices", [])],
        )

    def earliest(self) -> tuple[str, float] | None:
        if not self.at:
            return None
        return min(self.at.items(), key=lambda kv: (kv[1], kv[0]))

    def due(self, now: float) -> list[str]:
        """The kinds due at `now`, earliest first. Once the turn timer ran out, the mention
        and the reminder of that turn are moot (a restart after a long stop)."""
        kinds = sorted((k for k, at in self.at.items() if at <= now), key=lambda k: self.at[k])
        if "timeout" in kinds:
            kinds = [k for k in kinds if k not in ("mention", "remind")]
        return kinds
