"""What one seat may see of a hand. Computer players and renderers get only this.

Hidden: other players' hands (except where the rules make them public: scoperta §6.1,
partners after the talon §5.2), the talon order, the cards removed from the deck (§1.4), the
chiamata partner until the called card is played (§7.6; the partner knows it), other
pairs' signals (§5.3), and card points until the last trick unless `show_points` (§3.7).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.engine.options import Options, Rules
from bot.engine.state import PHASE_NAMES, PLAY, Trick

if TYPE_CHECKING:
    from bot.engine.state import HandState


@dataclass(frozen=True, slots=True)
class Observation:
    options: Options
    rules: Rules
    seat: int
    hand_index: int
    dealer: int
    phase: str
    current: int  # seat to act, -1 when over
    legal: tuple[int, ...]  # this seat's legal actions (empty unless it is to act)
    hand: tuple[int, ...]  # own cards; empty in coperta (see hand_size)
    hand_sizes: tuple[int, ...]
    visible_hands: dict[int, tuple[int, ...]]  # other seats' cards this seat may see
    talon_left: int
    talon_next: int  # scoperta: the next card to be drawn, else -1
    turned: int  # the face-up briscola card (-1 if none); public even after it is drawn
    turned_to: int  # who drew it, -1 until then
    briscola: int  # suit, -1 if none
    leader: int
    trick: tuple[tuple[int, int], ...]  # (seat, card) on the table now
    tricks: tuple[Trick, ...]  # every completed trick, public
    my_points: int | None  # own side's card points, when the rules allow (§3.7)
    all_points: tuple[int, ...] | None  # every seat's, with show_points
    teammates: tuple[int, ...]  # fixed partners (pairs, threes); empty otherwise
    signals: tuple[tuple[int, int], ...]  # (from seat, signal k) received or sent
    # chiamata
    bids: tuple[tuple[int, int], ...]
    passed: tuple[bool, ...]
    caller: int
    called_card: int
    carichi: bool
    target: int
    partner: int  # the socio as this seat knows it, -1 if unknown to this seat
    partner_revealed: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.rules.variant,
            "seat": self.seat,
            "hand_index": self.hand_index,
            "dealer": self.dealer,
            "phase": self.phase,
            "current": self.current,
            "legal": list(self.legal),
            "hand": list(self.hand),
            "hand_sizes": list(self.hand_sizes),
            "visible_hands": {str(k): list(v) for k, v in self.visible_hands.items()},
            "talon_left": self.talon_left,
            "talon_next": self.talon_next,
            "turned": self.turned,
            "turned_to": self.turned_to,
            "briscola": self.briscola,
            "leader": self.leader,
            "trick": [list(p) for p in self.trick],
            "tricks": [
                {"leader": t.leader, "plays": [list(p) for p in t.plays], "winner": t.winner}
                for t in self.tricks
            ],
            "my_points": self.my_points,
            "all_points": None if self.all_points is None else list(self.all_points),
            "teammates": list(self.teammates),
            "signals": [list(x) for x in self.signals],
            "bids": [list(b) for b in self.bids],
            "passed": list(self.passed),
            "caller": self.caller,
            "called_card": self.called_card,
            "carichi": self.carichi,
            "target": self.target,
            "partner": self.partner,
            "partner_revealed": self.partner_revealed,
        }


SPECTATOR = -1
"""`observe(state, SPECTATOR)`: what the whole table sees (the group's table message)."""


def observe(state: HandState, seat: int) -> Observation:
    rules = state.rules
    n = rules.n_players
    if not SPECTATOR <= seat < n:
        raise ValueError(f"no seat {seat} at a table of {n}")
    side_of = rules.side_of
    spectator = seat == SPECTATOR
    teammates = (
        () if spectator else tuple(s for s in range(n) if s != seat and side_of[s] == side_of[seat])
    )
    visible: dict[int, tuple[int, ...]] = {}
    talon_next = -1
    if rules.public_hands:  # §6.1
        for s in range(n):
            if s != seat:
                visible[s] = tuple(state.hands[s])
        if state.talon_pos < len(state.talon):
            talon_next = state.talon[state.talon_pos]
        elif state.turned >= 0 and state.turned_to < 0:
            talon_next = state.turned
    elif rules.reveal_partners and state.phase == PLAY and state.talon_exhausted():  # §5.2
        for s in teammates:
            visible[s] = tuple(state.hands[s])

    plays = _current_plays(state)
    own = () if spectator else state.hands[seat]
    in_hand = len(own) + sum(1 for p, _ in plays if p == seat)
    last_trick = (
        state.phase == PLAY and state.talon_exhausted() and in_hand <= rules.plays_per_trick
    )
    my_side = side_of[seat]
    my_points: int | None = None
    if spectator:
        pass
    elif rules.show_points or last_trick or state.phase > PLAY:
        if rules.chiamata:
            my_points = state.taken[seat]
        else:
            my_points = sum(state.taken[s] for s in range(n) if side_of[s] == my_side)
    all_points = tuple(state.taken) if rules.show_points or state.phase > PLAY else None

    revealed = state.reveal_trick >= 0
    if revealed or state.phase > PLAY or seat == state.partner:
        partner = state.partner
    else:
        partner = -1
    signals = tuple((s, k) for s, k in state.signals if s == seat or (s in teammates))
    return Observation(
        options=state.options,
        rules=rules,
        seat=seat,
        hand_index=state.hand_index,
        dealer=state.dealer,
        phase=PHASE_NAMES[state.phase],
        current=state.current,
        legal=tuple(state.legal_actions()) if state.current == seat else (),
        hand=() if rules.blind else tuple(own),
        hand_sizes=tuple(len(h) for h in state.hands),
        visible_hands=visible,
        talon_left=state.talon_left(),
        talon_next=talon_next,
        turned=state.turned,
        turned_to=state.turned_to,
        briscola=state.briscola,
        leader=state.leader,
        trick=plays,
        tricks=tuple(state.tricks),
        my_points=my_points,
        all_points=all_points,
        teammates=teammates,
        signals=signals,
        bids=tuple(state.bids),
        passed=tuple(state.passed),
        caller=state.caller,
        called_card=state.called_card,
        carichi=state.carichi,
        target=state.target,
        partner=partner,
        partner_revealed=revealed,
    )


def _current_plays(state: HandState) -> tuple[tuple[int, int], ...]:
    return tuple(zip(state._order, state.trick, strict=False))
