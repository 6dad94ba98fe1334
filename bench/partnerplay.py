"""Partner play a club player respects (issue 41 §3), counted per level by `bench.strength`.

At each card a seat plays, from its own observation (what it knew then):

- `friend_safe`: the trick is being taken by a seat it knows to be its partner, and nothing
  it cannot see can take the trick from it (`bot.players.partners.friend_takes`);
- `load_chances`: of those, the ones where it held a plain carico (an Asso or a Tre that is
  not briscola), and `loads`: where it played one (onto its partner's safe trick);
- `needless_trumps`: of those, a briscola played over the partner's card while it held a
  card that is not briscola (trumping its partner's safe trick for nothing);
- `def_leads`, `def_trump_leads` (chiamata): a defender's leads, and those of a briscola.

Once per chiamata hand, for the caller's level: `calls` and `hopeless_calls`, a call whose
hand was below what it needed: its chance of reaching its target (§7.11) with that call, over
`HOPELESS_DEALS` random deals of the other cards played out by five `normal` players, below
`HOPELESS` (`call_chance`). The same deals for any level: they depend on the hand only.
"""

from __future__ import annotations

import random

from bot.engine import HandState, Options
from bot.engine.observation import Observation
from bot.engine.tricks import trick_winner
from bot.players.normal import NormalPlayer
from bot.players.partners import friend_takes

HOPELESS_DEALS = 30
HOPELESS = 0.2  # a call that reaches its target in fewer than this share of the deals


def is_defender(obs: Observation) -> bool:
    """Chiamata: this seat knows it is a defender (neither the caller nor the socio)."""
    return obs.rules.chiamata and obs.caller >= 0 and obs.seat not in (obs.caller, obs.partner)


def card_events(obs: Observation, card: int) -> list[str]:
    """The module's per-card counts this play adds (see the module's docstring)."""
    rules = obs.rules
    deck = rules.deck
    suit, strength, points = deck.suit, deck.strength, deck.points
    b = obs.briscola
    if not obs.trick:
        if is_defender(obs):
            return ["def_leads", "def_trump_leads"] if b >= 0 and suit[card] == b else ["def_leads"]
        return []
    taking = friend_takes(obs)
    if taking is None:
        return []
    w_card = taking[1]
    out = ["friend_safe"]
    plain = [c for c in obs.hand if suit[c] != b]
    if any(points[c] >= 10 for c in plain):
        out.append("load_chances")
        if suit[card] != b and points[card] >= 10:
            out.append("loads")
    if b >= 0 and suit[card] == b and plain and trick_winner((w_card, card), suit, strength, b):
        out.append("needless_trumps")
    return out


def call_chance(
    options: Options,
    hand: list[int],
    seat: int,
    dealer: int,
    called: int,
    target: int,
    seed: str,
    deals: int = HOPELESS_DEALS,
) -> float:
    """The share of `deals` random deals of the other cards in which `seat`, holding `hand`
    and calling `called` at `target`, reaches its target, five (four) `normal` players
    playing the hand out (§7.5-7.12)."""
    rules = options.rules()
    rng = random.Random(seed)
    rest = [c for c in range(rules.deck.size) if c not in hand]
    size = rules.hand_size
    won = 0
    for k in range(deals):
        rng.shuffle(rest)
        state = HandState.deal(options, 0, 0, dealer)
        pos = 0
        for s in range(rules.n_players):
            if s == seat:
                state.hands[s] = list(hand)
            else:
                state.hands[s] = rest[pos : pos + size]
                pos += size
        state.assume_call(seat, called, target)
        bots = [NormalPlayer(random.Random(f"{seed}:{k}:{s}")) for s in range(rules.n_players)]
        while not state.is_terminal():
            s = state.current
            state.apply(bots[s].act(state.observation(s)), s)
        sides = state.sides()
        won += sum(state.taken[s] for s in range(rules.n_players) if sides[s] == 0) >= target
    return won / deals


def hand_events(state: HandState, seed: int, k: int) -> list[tuple[int, str]]:
    """Per finished chiamata hand: (the caller's seat, `calls`) and, if its call was hopeless
    (`call_chance` below `HOPELESS`), (the caller's seat, `hopeless_calls`); none for a
    redeal or carichi (§7.4, §7.8)."""
    if state.caller < 0 or state.carichi or state.called_card < 0:
        return []
    dealt = HandState.deal(state.options, seed, k, state.dealer)
    hand = dealt.hands[state.caller]
    chance = call_chance(
        state.options,
        hand,
        state.caller,
        state.dealer,
        state.called_card,
        state.target,
        f"hopeless:{seed}:{k}:{sorted(hand)}:{state.called_card}:{state.target}",
    )
    out = [(state.caller, "calls")]
    if chance < HOPELESS:
        out.append((state.caller, "hopeless_calls"))
    return out
