"""A table in a group: lobby, seats, the match in play. Pure: no I/O, no Telegram.

The service (`bot.service`) locks, persists and renders around these operations. Every
operation either succeeds or raises `TableError` with a message key (see `bot.i18n`) and
leaves the table unchanged.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import Any

from bot.engine import HandState, IllegalAction, Match, Options, OptionsError
from bot.engine import actions as A
from bot.i18n import level_name, parse_level
from bot.players import DEFAULT_LEVEL, LEVELS, make_player
from bot.table.deadlines import TIMEOUTS_TO_AWAY, TIMER_DEFAULT, Pending
from bot.table.ledger import without_computers
from bot.table.status import TableStatus

Status = TableStatus
LOBBY = TableStatus.LOBBY
PLAYING = TableStatus.PLAYING
FINISHED = TableStatus.FINISHED
CANCELLED = TableStatus.CANCELLED

BOT_USER_BASE = -1000  # ledger ids of computer players: one per level, negative
# Fixed forever (ledger rows refer to them): a new level gets a new number, never a reused one.
BOT_LEDGER_IDS = {"random": -1000, "simple": -1001, "easy": -1002, "normal": -1003, "hard": -1004}
# First names of computer players, in the order they are given (one per seat, never twice at a
# table). A computer's seat stores its first name and its level, never words of a language: it
# is shown as "🤖 Ada (difficile)" where it is shown (`bot.view.render.seat_name`). Tables
# stored with a whole name ("🤖 Ada (difficile)", the older "🤖 difficile 1") keep it.
BOT_NAMES = ("Ada", "Bruno", "Carla", "Dario", "Elsa", "Franco", "Gina", "Lino", "Marta", "Nino")


class TableError(Exception):
    """An operation refused. `key` names the message in `bot.i18n`; `kw` fills it in."""

    def __init__(self, key: str, **kw: Any) -> None:
        super().__init__(key)
        self.key = key
        self.kw = kw


@dataclass
class Seat:
    user_id: int | None  # the person who owns the seat (ledger), None for a computer player
    # a person's name; a computer player's first name ("Ada"), or the whole name it was
    # stored with before ("🤖 Ada (difficile)", shown as it is)
    name: str
    level: str | None = None  # a computer player's level while one plays the seat
    lang: str | None = None  # a person's language for their private messages (None: the table's)
    # why a computer plays a person's seat: "left" (/leave; /join takes it back) or
    # "timeout" (the turn timer ran out twice in a row; "Riprendo il posto" takes it back)
    away: str | None = None
    timeouts: int = 0  # the turn timer ran out on this many of the person's turns in a row

    @property
    def is_bot(self) -> bool:
        return self.level is not None

    def ledger_id(self) -> int:
        if self.user_id is not None:
            return self.user_id
        level = self.level or DEFAULT_LEVEL
        if level in BOT_LEDGER_IDS:
            return BOT_LEDGER_IDS[level]
        return BOT_USER_BASE - 100 - zlib.crc32(level.encode()) % 1_000_000

    def to_json(self) -> dict[str, Any]:
        out = {"user_id": self.user_id, "name": self.name, "level": self.level}
        if self.lang is not None:
            out["lang"] = self.lang
        if self.away:
            out["away"] = self.away
        if self.timeouts:
            out["timeouts"] = self.timeouts
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Seat:
        level, away = d.get("level"), d.get("away")
        if away is None and d["user_id"] is not None and level is not None:
            away = "left"  # stored before seats said why
        return cls(d["user_id"], d["name"], level, d.get("lang"), away, int(d.get("timeouts", 0)))


@dataclass
class Table:
    table_id: int
    chat_id: int
    creator_id: int
    options: Options
    seats: list[Seat] = field(default_factory=list)
    status: Status = LOBBY
    lang: str = "it"
    timer: int = TIMER_DEFAULT  # seconds a person has to act before a computer plays; 0 = off
    counts: bool = False  # §10.5: a table with computer seats writes to the group ledger
    pin: bool = False  # the bot pins the table message (when it is an admin that may)
    review: bool = True  # each hand's result names its costliest decision (issue 51)
    rematch: int | None = None  # the table opened by this finished one's rematch button
    tournament: int | None = None  # the tournament whose match it plays (§11): no rematch
    match: Match | None = None
    hand: HandState | None = None
    move_no: int = 0  # the stored version (storage bumps it on every write)
    table_message_id: int | None = None
    seed: str = ""
    # deadlines (bot.table.deadlines), stored apart
    pending: Pending = field(default_factory=Pending)
    # why a closed table closed, for its message: {"key": i18n key, "who": name}
    closed: dict[str, str] | None = None
    title: str | None = None  # the group's name, as its private messages say it
    # the match's end, announced in the group: that message's id (its rematch button)
    final_message_id: int | None = None

    # ------------------------------------------------------------------ lobby

    def turn_start(self) -> int:
        """Hand actions taken when the seat to act began its turn: bid buttons carry it, so a
        button from an earlier turn is stale."""
        if self.hand is None:
            return 0
        k = len(self.hand.actions)
        while k and self.hand.actions[k - 1][0] == self.hand.current:
            k -= 1
        return k

    def plays_by(self, seat: int) -> int:
        """How many actions `seat` has taken in this hand (the stamp of coperta's blind
        buttons, which name a position, not a card)."""
        if self.hand is None:
            return 0
        return sum(1 for s, _ in self.hand.actions if s == seat)

    @property
    def n_players(self) -> int:
        return self.options.rules().n_players

    def seat_of(self, user_id: int) -> int | None:
        for i, s in enumerate(self.seats):
            if s.user_id == user_id:
                return i
        return None

    def _require_lobby(self) -> None:
        if self.status != LOBBY:
            raise TableError("err_started")

    def join(self, user_id: int, name: str, lang: str | None = None) -> int:
        self._require_lobby()
        seat = self.seat_of(user_id)
        if seat is not None:
            self.seats[seat].name = name
            raise TableError("err_already_seated")
        if len(self.seats) >= self.n_players:
            raise TableError("err_full", n=self.n_players)
        self.seats.append(Seat(user_id, name, lang=lang))
        return len(self.seats) - 1

    def leave(self, user_id: int) -> None:
        seat = self.seat_of(user_id)
        if seat is None:
            raise TableError("err_not_seated")
        if self.status == LOBBY:
            del self.seats[seat]
            return
        if self.status != PLAYING:
            raise TableError("err_no_table")
        if self.seats[seat].is_bot:
            raise TableError("err_already_left")
        # a computer plays on; the owner keeps the ledger and may come back with /join
        self.seats[seat].level = DEFAULT_LEVEL
        self.seats[seat].away = "left"
        self.seats[seat].timeouts = 0

    def rejoin(self, user_id: int) -> int:
        """A person takes back the seat a computer plays for them (after /leave or two
        timeouts in a row)."""
        if self.status != PLAYING:
            raise TableError("err_no_table")
        seat = self.seat_of(user_id)
        if seat is None:
            raise TableError("err_started")
        s = self.seats[seat]
        if not s.away:
            raise TableError("err_not_away")
        s.level, s.away, s.timeouts = None, None, 0
        return seat

    def timed_out(self, seat: int) -> bool:
        """The turn timer ran out on `seat` (a computer plays this move). True if the seat now
        stays with the computer (the timeouts in a row reached TIMEOUTS_TO_AWAY)."""
        s = self.seats[seat]
        s.timeouts += 1
        if s.timeouts >= TIMEOUTS_TO_AWAY:
            s.level, s.away = DEFAULT_LEVEL, "timeout"
            return True
        return False

    def people(self) -> list[int]:
        """The user ids of the people who own a seat (whether they play it now or not)."""
        return [s.user_id for s in self.seats if s.user_id is not None]

    def paused(self) -> bool:
        """Whether the match waits for its people: it is on, people own seats, and the
        computer plays every one of them (they left, or ran out of time twice). Computers
        playing alone would decide a result nobody played for: they wait instead."""
        people = [s for s in self.seats if s.user_id is not None]
        return self.status == PLAYING and bool(people) and all(s.is_bot for s in people)

    def add_bot(self, level: str = DEFAULT_LEVEL) -> int:
        """Seat a computer player of `level` (easy, normal, hard; Italian names too)."""
        self._require_lobby()
        found = parse_level(level)
        if found is None or found not in LEVELS:
            levels = ", ".join(level_name(self.lang, lv) for lv in LEVELS)
            raise TableError("err_bad_level", levels=levels)
        if len(self.seats) >= self.n_players:
            raise TableError("err_full", n=self.n_players)
        self.seats.append(Seat(None, self._bot_name(), found))
        return len(self.seats) - 1

    def _bot_name(self) -> str:
        """A first name for a new computer player, not yet used at the table (by a computer
        or by a person), so it is never confused with a score ("Ada": "🤖 Ada (difficile)"
        where it is shown)."""
        taken = {w.lower() for s in self.seats for w in s.name.replace("🤖", " ").split()}
        free = [n for n in BOT_NAMES if n.lower() not in taken]
        return free[0] if free else f"{BOT_NAMES[0]} {len(self.seats) + 1}"

    def set_options(self, options: Options) -> None:
        self._require_lobby()
        if options.rules().n_players < len(self.seats):
            raise TableError("err_too_many_seated", n=options.rules().n_players)
        self.options = options

    def set_option(self, key: str, value: str) -> None:
        """Set one rule option (`Options.with_value`: an option that only applied with the
        old value goes back to its default)."""
        try:
            options = self.options.with_value(key, None if value == "default" else value)
        except OptionsError as exc:
            raise TableError("err_option", reason=str(exc)) from None
        self.set_options(options)

    def start(self, seed: str) -> None:
        self._require_lobby()
        if len(self.seats) < self.n_players:
            raise TableError("err_not_enough", n=self.n_players, have=len(self.seats))
        self.status = PLAYING
        self.seed = seed
        self.match = Match(self.options, seed)
        self._deal()

    def _deal(self) -> None:
        assert self.match is not None
        self.hand = self.match.deal()

    # ------------------------------------------------------------------ play

    def ply(self) -> int:
        """The actions taken in this hand so far: what a move is made on. A Mini App tap
        carries the ply its page showed, so that it cannot land on a later turn."""
        return len(self.hand.actions) if self.hand is not None else 0

    def check_action(
        self, user_id: int, hand_index: int, stamp: int, action: int, ply: int | None = None
    ) -> int:
        """The seat that may take `action` now, or TableError saying why not. Buttons carry
        the hand index (card buttons) and the turn's start (bid buttons); a Mini App tap also
        the ply it was made on (`ply`): once the hand has moved past it the tap is refused as
        `err_moved_on` (a tap that lost a race, or a double tap), whose turn it is now aside."""
        if self.status != PLAYING or self.hand is None:
            raise TableError("err_hand_over")
        seat = self.seat_of(user_id)
        if seat is None:
            raise TableError("err_not_your_table")
        if ply is not None and (hand_index != self.hand.hand_index or ply != self.ply()):
            raise TableError("err_moved_on")
        if hand_index != self.hand.hand_index or self.hand.is_terminal():
            raise TableError("err_hand_over")
        if self.seats[seat].is_bot:  # the computer plays the seat until they take it back
            raise TableError("err_away")
        if self.hand.current != seat:
            raise TableError("err_not_your_turn")
        if A.is_card(action):  # a card names itself: stale once it has left the hand
            if action not in self.hand.hands[seat]:
                raise TableError("err_stale")
        elif A.BLIND <= action < A.CALL_RANK:  # coperta: a position, stamped per seat
            if stamp != self.plays_by(seat):
                raise TableError("err_stale")
        elif stamp != self.turn_start():
            raise TableError("err_stale")
        if action not in self.hand.legal_actions():
            if A.is_card(action):  # held but not playable now (§8.2 follow suit)
                raise TableError("err_must_follow")
            raise TableError("err_stale")
        return seat

    def apply(self, seat: int, action: int) -> None:
        """Apply a move for `seat` (a person's, or a computer's). Raises TableError."""
        assert self.hand is not None
        try:
            self.hand.apply(action, seat)
        except IllegalAction as exc:
            raise TableError("err_illegal", reason=str(exc)) from None

    def bot_to_act(self) -> int | None:
        """The seat to act if a computer plays it now, else None (nor while `paused`)."""
        if self.status != PLAYING or self.hand is None or self.hand.is_terminal():
            return None
        if self.paused():
            return None
        seat = self.hand.current
        return seat if self.seats[seat].is_bot or self.forced() else None

    def forced(self) -> bool:
        """Whether the one to act has nothing to choose (`HandState.forced_action`: their
        last card in the last trick). It is played for them as a computer's move is (a
        person's card all the same), with no turn message nor timer: a tap that changes
        nothing would cost their chat two calls and the table seconds (issue 49)."""
        hand = self.hand
        return self.status == PLAYING and hand is not None and hand.forced_action() is not None

    def bot_seed(self) -> str:
        """The seed of a computer decision now: fixed by the match seed and the position."""
        assert self.hand is not None
        return f"{self.seed}:{self.hand.hand_index}:{len(self.hand.actions)}"

    def bot_action(self, seat: int, level: str | None = None) -> int:
        """What the computer player for `seat` plays now (also the turn-timer takeover)."""
        assert self.hand is not None
        player = make_player(level or self.seats[seat].level or DEFAULT_LEVEL, self.bot_seed())
        return player.act(self.hand.observation(seat))

    def finish_hand(self) -> dict[int, int]:
        """Record the finished hand in the match. Returns the ledger deltas per ledger id to
        write now (chiamata: every hand, §10.1; other variants: when the match ends, §10.2)."""
        assert self.match is not None and self.hand is not None and self.hand.is_terminal()
        self.match.record(self.hand)
        deltas: tuple[int, ...] = ()
        if self.options.rules().chiamata:
            deltas = self.match.records[-1].deltas
        elif self.match.over:
            deltas = self.match.ledger_deltas()
        if self.match.over:
            self.status = FINISHED
        return self.ledger_deltas(deltas)

    def computer_seats(self) -> set[int]:
        """Seats of computer players (§10.5); a person who left keeps their seat's ledger."""
        return {i for i, s in enumerate(self.seats) if s.user_id is None}

    def counted_deltas(self, deltas: tuple[int, ...]) -> tuple[int, ...]:
        """Per seat, what the group ledger receives (§10.5): a table of people writes its
        deltas; one with computer seats nothing, unless `counts`, and then no computer pays
        or collects (`bot.table.ledger.without_computers`)."""
        computers = self.computer_seats()
        if not computers:
            return deltas
        if not self.counts:
            return (0,) * len(deltas)
        return tuple(without_computers(deltas, computers))

    def ledger_deltas(self, deltas: tuple[int, ...]) -> dict[int, int]:
        out: dict[int, int] = {}
        deltas = self.counted_deltas(deltas)
        for seat, d in enumerate(deltas):
            lid = self.seats[seat].ledger_id()
            out[lid] = out.get(lid, 0) + d
        return {k: v for k, v in out.items() if v} if any(deltas) else {}

    def next_hand(self) -> None:
        if self.status != PLAYING or self.hand is None or not self.hand.is_terminal():
            raise TableError("err_no_next")
        self._deal()

    def cancel(self) -> None:
        if self.status not in (LOBBY, PLAYING):
            raise TableError("err_no_table")
        self.status = CANCELLED

    # ------------------------------------------------------------------ persistence

    def seats_json(self) -> str:
        return json.dumps(
            {
                "seats": [s.to_json() for s in self.seats],
                "timer": self.timer,
                "seed": self.seed,
                "counts": self.counts,  # §10.5
                "pin": self.pin,
                "review": self.review,
                "rematch": self.rematch,
            }
            | ({"closed": self.closed} if self.closed else {})
            | ({"title": self.title} if self.title else {})
            | ({"final": self.final_message_id} if self.final_message_id else {})
            | ({"tournament": self.tournament} if self.tournament is not None else {})
        )

    def options_json(self) -> str:
        return json.dumps(self.options.explicit())

    def match_json(self) -> str | None:
        return None if self.match is None else json.dumps(self.match.to_dict())

    def hand_json(self) -> str | None:
        return None if self.hand is None else json.dumps(self.hand.to_dict())

    @classmethod
    def restore(
        cls,
        *,
        table_id: int,
        chat_id: int,
        creator_id: int,
        status: Status,
        lang: str,
        options_json: str,
        seats_json: str,
        match_json: str | None,
        hand_json: str | None,
        move_no: int,
        table_message_id: int | None,
        timers_json: str | None = None,
    ) -> Table:
        opts = json.loads(options_json)
        variant = opts.pop("variant")
        extra = json.loads(seats_json)
        t = cls(
            table_id=table_id,
            chat_id=chat_id,
            creator_id=creator_id,
            options=Options.parse(variant, opts),
            seats=[Seat.from_json(s) for s in extra["seats"]],
            status=TableStatus(status),
            lang=lang,
            timer=extra.get("timer", 0),
            counts=extra.get("counts", False),  # §10.5; absent in older snapshots
            pin=extra.get("pin", False),
            review=extra.get("review", True),
            rematch=extra.get("rematch"),
            move_no=move_no,
            table_message_id=table_message_id,
            seed=extra.get("seed", ""),
            pending=Pending.from_json(timers_json),
            closed=extra.get("closed"),
            title=extra.get("title"),
            final_message_id=extra.get("final"),
            tournament=extra.get("tournament"),
        )
        if match_json:
            t.match = Match.from_dict(json.loads(match_json))
        if hand_json:
            t.hand = HandState.from_dict(json.loads(hand_json))
        return t
