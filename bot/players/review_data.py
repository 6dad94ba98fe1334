"""The review's data (issue 51): a decision judged (`Decision`), a hand's review (`Review`),
the effort (`Budget`), as frozen dataclasses of ints, floats and strings that pickle, with
`to_dict`/`from_dict` and `to_json` for another process or the database. Made by
`bot.players.review.review_hand`; what the fields mean is said there."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

Judged = Literal["info", "open"]
INFO: Judged = "info"
OPEN: Judged = "open"
Kind = Literal["bid", "suit", "call", "card"]


@dataclass(frozen=True, slots=True)
class Budget:
    """The effort of a review, in counts (never the clock, so that it is deterministic).
    The default took 0.51 s of one core a chiamata hand on average, 0.74 s at most, with
    five `normal` players' records (`python -m bench.review`, docs/players.md)."""

    worlds: int = 24  # card decisions before the exact tricks: worlds sampled (INFO)
    exact_worlds: int = 12  # ... in the exact tricks: worlds, each solved exactly (INFO)
    open_rollouts: int = 24  # OPEN, before the exact tricks: rollouts per move
    bid_deals: int = 24  # bids, the suit, the card called: deals per seat (rollouts in OPEN)
    # Sampled worlds (deals) grow to this many times while a move is unsure (`_unsure`). Off
    # by default: on 16 hands a variant (normal players), three times the worlds at most
    # doubled the CPU and named the same costliest decision with another seed no more often
    # (due 4 hands of 16 against 3, chiamata 6 against 6), as did 64 worlds throughout.
    extend: float = 1.0  # card decisions
    bid_extend: float = 1.0  # bids, the suit, the card called
    exact_tricks: int = 3  # chiamata, INFO: exact from this many tricks from the end
    open_exact_tricks: int = 4  # chiamata, OPEN: likewise
    max_nodes: int = 400_000  # exact search per world beyond this: rollouts for the decision

    def scaled(self, factor: float) -> Budget:
        """Every count times `factor` (at least 1); the exact tricks stay."""
        if not factor > 0:
            raise ValueError("the budget factor must be positive")

        def times(n: int) -> int:
            return max(1, round(n * factor))

        return replace(
            self,
            worlds=times(self.worlds),
            exact_worlds=times(self.exact_worlds),
            open_rollouts=times(self.open_rollouts),
            bid_deals=times(self.bid_deals),
        )


DEFAULT_BUDGET = Budget()


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of one seat and what it cost (in the review's currency)."""

    seat: int
    index: int  # in the hand's action list (`HandState.actions`)
    kind: Kind
    move: int  # the action made
    best: int  # the best move found (the move made when none was better)
    cost: float  # value(best) - value(move), >= 0
    margin: float  # value(move) - the best value of any other move (> 0: it beat them all)
    error: float  # the standard error of value(best) - value(move) (0: every world solved)
    judged: Judged  # INFO: with the player's information; OPEN: every hand seen
    exact: bool  # every world solved exactly (else rollouts)
    worlds: int  # worlds (deals) the values are averaged over
    move_value: float  # the value of the move made, in the review's currency
    best_value: float  # ... and of the best move (cost = best_value - move_value, or 0)
    values: tuple[tuple[int, float], ...]  # (move, value) of one move of each kind judged
    move_label: str
    best_label: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "index": self.index,
            "kind": self.kind,
            "move": self.move_label,
            "best": self.best_label,
            "cost": round(self.cost, 4),
            "margin": round(self.margin, 4),
            "error": round(self.error, 4),
            "judged": self.judged,
            "exact": self.exact,
            "worlds": self.worlds,
            "move_value": round(self.move_value, 4),
            "best_value": round(self.best_value, 4),
            "move_action": self.move,
            "best_action": self.best,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Decision:
        """A decision back from `to_dict` (its values rounded; `values` is not kept)."""
        return cls(
            seat=int(data["seat"]),
            index=int(data["index"]),
            kind=data["kind"],
            move=int(data["move_action"]),
            best=int(data["best_action"]),
            cost=float(data["cost"]),
            margin=float(data["margin"]),
            error=float(data["error"]),
            judged=data["judged"],
            exact=bool(data["exact"]),
            worlds=int(data["worlds"]),
            move_value=float(data["move_value"]),
            best_value=float(data["best_value"]),
            values=(),
            move_label=str(data["move"]),
            best_label=str(data["best"]),
        )


@dataclass(frozen=True, slots=True)
class Review:
    """A finished hand's review: every decision judged, the costliest, the best move."""

    variant: str
    seed: int | str  # the hand's deal seed
    hand_index: int
    dealer: int
    review_seed: int | str
    mode: Judged
    currency: str  # "card points" or "score" (§7.12)
    decisions: tuple[Decision, ...]

    @property
    def costliest(self) -> Decision | None:
        """The decision that cost most (the first such), None when none cost anything."""
        best: Decision | None = None
        for d in self.decisions:
            if d.cost > 0 and (best is None or d.cost > best.cost):
                best = d
        return best

    @property
    def best_move(self) -> Decision | None:
        """The card play whose move beat every other move by the most (its `margin`), None
        when no card play beat all the others."""
        best: Decision | None = None
        for d in self.decisions:
            if d.kind == "card" and d.margin > 0 and (best is None or d.margin > best.margin):
                best = d
        return best

    def to_dict(self) -> dict[str, Any]:
        costliest = self.costliest
        best_move = self.best_move
        return {
            "variant": self.variant,
            "seed": self.seed,
            "hand_index": self.hand_index,
            "dealer": self.dealer,
            "review_seed": self.review_seed,
            "judged": self.mode,
            "currency": self.currency,
            "decisions": [d.to_dict() for d in self.decisions],
            "costliest": None if costliest is None else costliest.to_dict(),
            "best_move": None if best_move is None else best_move.to_dict(),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Review:
        """A review back from `to_dict` (or `json.loads(to_json())`)."""
        return cls(
            variant=str(data["variant"]),
            seed=data["seed"],
            hand_index=int(data["hand_index"]),
            dealer=int(data["dealer"]),
            review_seed=data["review_seed"],
            mode=data["judged"],
            currency=str(data["currency"]),
            decisions=tuple(Decision.from_dict(d) for d in data["decisions"]),
        )


__all__ = ["DEFAULT_BUDGET", "INFO", "OPEN", "Budget", "Decision", "Judged", "Kind", "Review"]
