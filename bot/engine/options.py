"""Variants and table options (RULES.md §3-§9), validated at the boundary.

`Options` is the pydantic model a table, the CLI and exports use. `Rules` is what the engine
reads on its hot path: a frozen dataclass of plain values derived once from `Options`.
Variants are data: one `Rules` per table, one game loop for all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from bot.engine.cards import DECK32, DECK40, DECK40_SOUTHERN, Deck

Variant = Literal[
    "due",
    "tre",
    "quattro",
    "sei",
    "chiamata",
    "chiamata4",
    "briscolone",
    "scoperta",
    "coperta",
    "briskula32",
    "doppia",
]
VARIANTS: tuple[str, ...] = get_args(Variant)
MatchFormat = Literal["single", "best3", "best5", "points120", "points121", "points151", "fixed5"]
MATCH_FORMATS: tuple[str, ...] = get_args(MatchFormat)

CHIAMATA_VARIANTS = frozenset({"chiamata", "chiamata4"})
_TURNED_CARD_VARIANTS = frozenset(
    {"due", "tre", "quattro", "sei", "scoperta", "coperta", "briskula32", "doppia"}
)
_TEAM_VARIANTS = frozenset({"quattro", "sei", "briskula32", "doppia"})


class OptionsError(ValueError):
    """An option that does not exist, a bad value, or a combination the rules do not allow."""


class Options(BaseModel):
    """A table's variant and rule options. Unset options take the variant's default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    variant: Variant = "due"
    deck: Literal["italian", "french"] = "italian"  # §1.3, display only
    southern: bool = False  # §1.3, french deck only
    retrump: bool = False  # §3.6
    show_points: bool = False  # §3.7
    match: MatchFormat | None = None  # §4.3; None = the variant's default
    signals: bool = False  # §5.3
    teams: Literal["none", "pairs", "threes"] | None = None  # §5.4, §9.1
    players: int | None = None  # §9: briskula32 (2..4) and doppia (2 or 4)
    overbid: bool = True  # §7.3
    carichi: bool = False  # §7.8
    auction: Literal["rank", "points"] = "rank"  # §7.9
    lead: Literal["dealer_right", "caller"] = "dealer_right"  # §7.10
    cappotto: Literal["zero_points", "all_tricks"] = "zero_points"  # §7.12
    target: int = 11  # §7.13; 0 = an open league that never ends

    @model_validator(mode="after")
    def _check_combination(self) -> Options:
        v = self.variant
        explicit = self.model_fields_set
        chiamata = v in CHIAMATA_VARIANTS

        def forbid(name: str, why: str) -> None:
            if name in explicit:
                raise ValueError(f"option {name!r} {why}")

        if self.southern and self.deck != "french":
            raise ValueError("option 'southern' needs deck=french (§1.3)")
        if v not in _TURNED_CARD_VARIANTS:
            forbid("retrump", f"needs a turned briscola card, and {v} has none")
        if v not in ("quattro", "sei"):
            forbid("signals", "exists only in quattro and sei (§5.3)")
        if chiamata:
            forbid("match", "does not apply to chiamata: it plays to `target` (§7.13)")
        else:
            for name in ("overbid", "carichi", "auction", "lead", "cappotto", "target"):
                forbid(name, "exists only in chiamata (§7)")
        if chiamata and self.auction == "points":
            forbid("overbid", "belongs to the rank auction; auction=points bids points already")
            forbid("carichi", "belongs to the rank auction (§7.8)")
        if self.target < 0:
            raise ValueError("target must be 0 (open league) or a positive score")

        if v in ("briskula32", "doppia"):
            allowed = (2, 3, 4) if v == "briskula32" else (2, 4)
            if self.players is not None and self.players not in allowed:
                raise ValueError(f"{v} is played by {', '.join(map(str, allowed))} players")
        else:
            forbid("players", f"is fixed by the variant {v}")

        if self.teams is not None:
            if v not in _TEAM_VARIANTS:
                raise ValueError(f"option 'teams' does not apply to {v}")
            if v == "quattro" and self.teams != "pairs":
                raise ValueError("quattro is played in pairs (§5.1)")
            if v == "sei" and self.teams == "none":
                raise ValueError("sei is played in pairs or threes (§5.4)")
            if v in ("briskula32", "doppia"):
                if self.teams == "threes":
                    raise ValueError(f"{v} has no teams of three")
                if self.teams == "pairs" and self.players != 4:
                    raise ValueError(f"{v} in pairs needs players=4 (§9.1)")
        return self

    @classmethod
    def parse(cls, variant: str, raw: Mapping[str, Any] | None = None) -> Options:
        """Build from loose key=value input (CLI, chat). Raises `OptionsError` with a clear text."""
        data = dict(raw or {})
        if "variant" in data:
            raise OptionsError("'variant' is not a table option: the variant is chosen on its own")
        for key, value in list(data.items()):
            if not isinstance(value, str) or value.lower() not in ("none", "null", ""):
                continue
            # `teams=none` is a value of its own (each for themselves, §9.1), not "unset": read
            # as unset it would leave sei in pairs instead of refusing it (§5.4).
            data[key] = "none" if key == "teams" and value.lower() == "none" else None
        try:
            return cls(variant=variant, **data)
        except ValidationError as exc:
            raise OptionsError(_explain(exc)) from None

    def resolved_match(self) -> str:
        if self.match is not None:
            return self.match
        return "points121" if self.variant == "briscolone" else "best5"

    def rules(self) -> Rules:
        return rules_for(self)

    def explicit(self) -> dict[str, Any]:
        """Only the options the table set, for compact records."""
        return self.model_dump(include=self.model_fields_set | {"variant"})


def _explain(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            known = ", ".join(k for k in Options.model_fields if k != "variant")
            msg = f"unknown option; the options are: {known}"
        parts.append(f"{where}: {msg}" if where else msg)
    return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class Rules:
    """The resolved rules the engine reads. Derived from `Options`; never built by hand."""

    variant: str
    n_players: int
    deck: Deck
    hand_size: int
    turned_card: bool  # a face-up briscola under the talon (§3.2)
    remove_twos: int  # 1 with three players, 4 with six (§1.4)
    follow_suit: bool  # Briscolone (§8.2)
    no_briscola: bool  # Briscolone (§8.1)
    plays_per_trick: int  # 2 in doppia (§9.2)
    side_of: tuple[int, ...]  # side index of each seat; sides pool their cards
    n_sides: int
    reveal_partners: bool  # §5.2
    signals: bool  # §5.3
    chiamata: bool
    public_hands: bool  # scoperta (§6.1)
    blind: bool  # coperta (§6.2)
    retrump: bool
    show_points: bool
    overbid: bool
    carichi: bool
    auction: str
    lead: str
    cappotto: str
    match: str
    target: int
    seat_orders: tuple[tuple[int, ...], ...]  # seat_orders[s]: every seat, from s onwards

    @property
    def has_teams(self) -> bool:
        return self.n_sides < self.n_players


_RULES_CACHE: dict[Options, Rules] = {}


def rules_for(options: Options) -> Rules:
    cached = _RULES_CACHE.get(options)
    if cached is not None:
        return cached
    o = options
    v = o.variant
    deck = DECK40_SOUTHERN if o.southern else DECK40
    n = {"due": 2, "scoperta": 2, "coperta": 2, "briscolone": 2, "tre": 3, "quattro": 4}.get(v, 0)
    hand_size = 3
    remove_twos = 0
    plays = 1
    teams = o.teams or "none"
    if v == "quattro":
        teams = "pairs"
    elif v == "sei":
        n, remove_twos, teams = 6, 4, o.teams or "pairs"
    elif v == "tre":
        remove_twos = 1
    elif v == "chiamata":
        n, hand_size = 5, 8
    elif v == "chiamata4":
        n, hand_size = 4, 10
    elif v == "briscolone":
        hand_size = 5
    elif v == "briskula32":
        deck = DECK32
        n = o.players or 2
    elif v == "doppia":
        n, hand_size, plays = o.players or 2, 4, 2

    if teams == "pairs" and n == 6:
        side_of = tuple(i % 3 for i in range(6))  # partners at i and i+3 (§5.4)
    elif teams == "pairs":
        side_of = tuple(i % 2 for i in range(n))  # opposite seats (§5.1)
    elif teams == "threes":
        side_of = tuple(i % 2 for i in range(n))  # alternate seats (§5.4)
    else:
        side_of = tuple(range(n))
    rules = Rules(
        variant=v,
        n_players=n,
        deck=deck,
        hand_size=hand_size,
        turned_card=v in _TURNED_CARD_VARIANTS,
        remove_twos=remove_twos,
        follow_suit=v == "briscolone",
        no_briscola=v == "briscolone",
        plays_per_trick=plays,
        side_of=side_of,
        n_sides=len(set(side_of)),
        reveal_partners=len(set(side_of)) < n,
        signals=o.signals,
        chiamata=v in CHIAMATA_VARIANTS,
        public_hands=v == "scoperta",
        blind=v == "coperta",
        retrump=o.retrump,
        show_points=o.show_points,
        overbid=o.overbid,
        carichi=o.carichi,
        auction=o.auction,
        lead=o.lead,
        cappotto=o.cappotto,
        match=o.resolved_match(),
        target=o.target,
        seat_orders=tuple(tuple((s + i) % n for i in range(n)) for s in range(n)),
    )
    _RULES_CACHE[options] = rules
    return rules
