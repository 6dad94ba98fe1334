"""Variants and table options (RULES.md §3-§9), validated at the boundary.

`Options` is the pydantic model a table, the CLI and exports use. `Rules` is what the engine
reads on its hot path: a frozen dataclass of plain values derived once from `Options`.
Variants are data: one `Rules` per table, one game loop for all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import NoneType, UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

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
_CHIAMATA_OPTIONS = (
    "auction_start",
    "first_must_call",
    "overbid",
    "two_caller_raises",
    "carichi",
    "carichi_mode",
    "auction",
    "lead",
    "cappotto",
    "target",
    "hands",
)


# Options that refine another one, and the ones they refine: a value other than the default
# applies only with some values of those (`_check_combination`); `Options.with_value` takes a
# refinement back to its default when what it refines changes under it.
REFINES: dict[str, tuple[str, ...]] = {
    "southern": ("deck",),  # §1.3
    "two_caller_raises": ("auction", "overbid"),  # §7.3
    "carichi_mode": ("carichi", "auction"),  # §7.8
    "overbid": ("auction",),  # §7.3: the rank auction's
    "carichi": ("auction",),  # §7.8: the rank auction's
    "target": ("hands",),  # §7.13: a target applies only without a fixed number of hands
}


# §7.13: the fixed numbers of counted hands chiamata may play, by the number of players (a
# multiple of them, so that every seat deals equally).
FIXED_HANDS: dict[int, tuple[int, ...]] = {5: (5, 10), 4: (4, 8)}
_CHIAMATA_PLAYERS = {"chiamata": 5, "chiamata4": 4}


class OptionsError(ValueError):
    """An option that does not exist, a bad value, or a combination the rules do not allow."""


@dataclass(frozen=True, slots=True)
class Choices:
    """The values offered for a number option, in the order they are offered (`option_choices`):
    the type of a number does not list them."""

    values: tuple[int, ...]


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
    players: Annotated[int | None, Choices((2, 3, 4))] = None  # §9: briskula32; doppia 2 or 4
    auction_start: Literal["dealer_right", "dealer_left"] = "dealer_right"  # §7.2
    first_must_call: bool = False  # §7.2: the first player may not pass
    overbid: bool = True  # §7.3
    two_caller_raises: bool = True  # §7.3: the Two's caller may bid points over it
    carichi: bool = False  # §7.8
    carichi_mode: Literal["ends", "continues"] = "ends"  # §7.8
    auction: Literal["rank", "points"] = "rank"  # §7.9
    lead: Literal["dealer_right", "caller"] = "dealer_right"  # §7.10
    cappotto: Literal["zero_points", "all_tricks"] = "zero_points"  # §7.12
    target: Annotated[int, Choices((7, 11, 21, 0))] = 11  # §7.13; 0 = an open league, no end
    # §7.13: a fixed number of counted hands, 0 = off (play to `target`); a multiple of the
    # players so that every seat deals equally (`FIXED_HANDS`).
    hands: Annotated[int, Choices((0, 4, 5, 8, 10))] = 0

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
            for name in _CHIAMATA_OPTIONS:
                forbid(name, "exists only in chiamata (§7)")
        if chiamata and self.auction == "points":
            forbid("overbid", "belongs to the rank auction; auction=points bids points already")
            forbid("carichi", "belongs to the rank auction (§7.8)")
        # Options that refine another one: their default is harmless anywhere in chiamata, the
        # other value is refused where it could never take effect.
        if chiamata and not self.two_caller_raises:
            if self.auction == "points":
                raise ValueError(
                    "option 'two_caller_raises' belongs to the rank auction's Two (§7.3); "
                    "auction=points has no Two"
                )
            if not self.overbid:
                raise ValueError(
                    "option 'two_caller_raises=false' needs overbid=true: with overbid off the"
                    " Two ends the auction and nobody bids points over it (§7.3)"
                )
        if chiamata and self.carichi_mode != "ends" and not self.carichi:
            raise ValueError("option 'carichi_mode' needs carichi=true (§7.8)")
        if self.target < 0:
            raise ValueError("target must be 0 (open league) or a positive score")
        if chiamata and self.hands:
            n = _CHIAMATA_PLAYERS[v]
            allowed = FIXED_HANDS[n]
            if self.hands not in allowed:
                raise ValueError(
                    f"option 'hands' with {n} players is {' or '.join(map(str, allowed))}, so"
                    " that every seat deals equally, or 0 to play to the target (§7.13)"
                )
            if self.target != Options.model_fields["target"].default:
                raise ValueError(
                    "option 'target' does not apply with a fixed number of hands (§7.13):"
                    " set hands=0 to play to a target"
                )

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

    def with_value(self, key: str, value: str | None) -> Options:
        """These options with `key` set to `value` (None: back to its default). An option
        that only applies with the old value goes back to its default with it (carichi=false
        takes carichi_mode=continues back to `ends`, §7.8; overbid=false takes
        two_caller_raises back, §7.3), so no setting is stuck behind another. Raises
        `OptionsError` if `value` itself is refused with the rest."""
        data = {
            k: str(v).lower()
            for k, v in self.explicit().items()
            if k != "variant" and v is not None  # unset: not the value "none" (teams, §9.1)
        }
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
        try:
            return Options.parse(self.variant, data)
        except OptionsError as refused:
            dependents = [k for k in data if key in REFINES.get(k, ())]
            if not dependents:
                raise
            try:
                return Options.parse(
                    self.variant, {k: v for k, v in data.items() if k not in dependents}
                )
            except OptionsError:
                raise refused from None

    def resolved_match(self) -> str:
        if self.match is not None:
            return self.match
        return "points121" if self.variant == "briscolone" else "best5"

    def rules(self) -> Rules:
        return rules_for(self)

    def explicit(self) -> dict[str, Any]:
        """Only the options the table set, for compact records."""
        return self.model_dump(include=self.model_fields_set | {"variant"})


def switch_values(default: bool) -> tuple[str, str]:
    """A yes/no setting's values as `Options.parse` reads them, its default first."""
    return str(default).lower(), str(not default).lower()


def option_choices(key: str) -> tuple[str, ...]:
    """The values the option `key` may be set to, spelled as `Options.parse` reads them, in
    the order a choice offers them: a `Literal`'s in its order, a bool's default first, a
    number's from its `Choices`. Which of them the other options allow is `Options`' check."""
    field = Options.model_fields[key]
    for meta in field.metadata:
        if isinstance(meta, Choices):
            return tuple(str(v) for v in meta.values)
    kind = field.annotation
    if get_origin(kind) in (Union, UnionType):  # `X | None`: unset takes the variant's default
        (kind,) = (a for a in get_args(kind) if a is not NoneType)
    if get_origin(kind) is Literal:
        return tuple(str(v) for v in get_args(kind))
    if kind is bool:
        return switch_values(bool(field.default))
    raise ValueError(f"option {key!r} lists no values: give it a Literal type or Choices")


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
    auction_start: str  # §7.2: "dealer_right" or "dealer_left"
    first_must_call: bool  # §7.2
    overbid: bool
    two_caller_raises: bool  # §7.3
    carichi: bool
    carichi_mode: str  # §7.8: "ends" or "continues"
    auction: str
    lead: str
    cappotto: str
    match: str
    target: int  # §7.13; 0 = an open league (and unused with `hands`)
    hands: int  # §7.13: a fixed number of counted hands, 0 = play to `target`
    seat_orders: tuple[tuple[int, ...], ...]  # seat_orders[s]: every seat, from s onwards

    @property
    def has_teams(self) -> bool:
        return self.n_sides < self.n_players

    def first_bidder(self, dealer: int) -> int:
        """§7.2: who speaks first in the auction. `dealer_right` is the next seat after the
        dealer (§2.5); `dealer_left` (seed 004) the seat before it. Either way the auction then
        goes round in playing order."""
        step = -1 if self.auction_start == "dealer_left" else 1
        return (dealer + step) % self.n_players


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
        auction_start=o.auction_start,
        first_must_call=o.first_must_call,
        overbid=o.overbid,
        two_caller_raises=o.two_caller_raises,
        carichi=o.carichi,
        carichi_mode=o.carichi_mode,
        auction=o.auction,
        lead=o.lead,
        cappotto=o.cappotto,
        match=o.resolved_match(),
        target=o.target,
        hands=o.hands,
        seat_orders=tuple(tuple((s + i) % n for i in range(n)) for s in range(n)),
    )
    _RULES_CACHE[options] = rules
    return rules
