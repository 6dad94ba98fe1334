"""What one seat may see of a hand. Computer players and renderers get only this.

Hidden: other players' hands (except where the rules make them public: scoperta §6.1,
partners after the talon §5.2), the talon order, the cards removed from the deck (§1.4), the
chiamata partner until the called card is played (§7.6; the partner knows it), other
pairs' signals (§5.3), and card points until the last trick unless `show_points` (§3.7).

`HandState.observation(seat)` (`bot.engine.state.observe`) makes one; this module knows
nothing of the state, so the state may build itself back from an observation
(`HandState.from_observation`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.engine.options import Options, Rules
from bot.engine.phase import Phase
from bot.engine.tricks import Trick


@dataclass(frozen=True, slots=True)
class Observation:
    options: Options
    rules: Rules
    seat: int
    hand_index: int
    dealer: int
    phase: Phase
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


def trick_order(obs: Observation) -> tuple[int, ...]:
    """The seats that play the current trick, in order (a seat twice in doppia, §9.2; only
    those who drew after a short talon, §9.1), from what the observation shows: the state's
    `trick_order` as any seat can tell it. Empty outside the play."""
    if obs.phase != Phase.PLAY:
        return ()
    rules = obs.rules
    seats = rules.seat_orders[obs.leader]
    played = [0] * rules.n_players
    for s, _ in obs.trick:
        played[s] += 1
    counts = [obs.hand_sizes[s] + played[s] for s in range(rules.n_players)]
    top = max(counts)
    if top == 0:
        return ()
    seats = tuple(s for s in seats if counts[s] == top)
    return seats * rules.plays_per_trick
