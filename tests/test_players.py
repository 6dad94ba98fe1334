"""Computer players: legal play everywhere, honesty, card tracking, exact endgames, bidding,
and strength against `random` (paired deals, fixed seeds: deterministic)."""

from __future__ import annotations

import random
import statistics
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from bot.engine import (
    AUCTION,
    NAME_SUIT,
    PLAY,
    HandState,
    Options,
    OptionsError,
    Trick,
    first_dealer,
)
from bot.engine import actions as A
from bot.engine.cards import card_id
from bot.engine.observation import Observation
from bot.engine.tricks import trick_winner
from bot.players import LEVELS, PLAYERS, Player, bidding, configure, make_player, normal
from bot.players.common import card_actions
from bot.players.hard import HardPlayer, _bare_carico, carichi_onto_callers_side, exact_cards
from bot.players.heuristics import NORMAL, NORMAL_CHIAMATA, score_cards
from bot.players.knowledge import REMOVED, TALON, Knowledge
from bot.players.normal import NormalPlayer
from bot.players.search import Solver, rollout, sides_of, solve_two
from tests.support.players import STRONG, WEAK, auction_obs, brute_force
from tests.support.variants import COMBOS

D, C, S, B = range(4)


def level(name: str, seed: object) -> Player:
    """A player of `name`; hard searches a fixed number of worlds (deterministic, fast)."""
    if name == "hard":
        return make_player("hard", f"{seed}", iterations=4)
    return make_player(name, f"{seed}")


def play_hand(options: Options, names: list[str], seed: int, k: int) -> HandState:
    n = options.rules().n_players
    bots = [level(nm, f"{seed}:{k}:{s}") for s, nm in enumerate(names)]
    state = HandState.deal(options, seed, k, (first_dealer(seed, n) + k) % n)
    while not state.is_terminal():
        seat = state.current
        action = bots[seat].act(state.observation(seat))
        state.apply(action, seat)  # raises IllegalAction on an illegal move
    return state


def normal_chiamata_turns(
    seed: int, deals: int, tag: str, variant: str = "chiamata"
) -> Iterator[tuple[int, HandState, Observation, int]]:
    """Every turn of `deals` chiamata hands of `normal` players (five; `variant`
    "chiamata4": four) (hand k dealt by seat k % n, players seeded "{tag}{k}:{seat}"): (k,
    state, the mover's observation, its action), the action applied once the caller has
    looked."""
    options = Options.parse(variant)
    n = options.rules().n_players
    for k in range(deals):
        state = HandState.deal(options, seed, k, k % n)
        bots = [make_player("normal", f"{tag}{k}:{s}") for s in range(n)]
        while not state.is_terminal():
            seat = state.current
            obs = state.observation(seat)
            action = bots[seat].act(obs)
            yield k, state, obs, action
            state.apply(action, seat)


# --------------------------------------------------------------------------- legal play


def test_the_levels_are_registered() -> None:
    assert set(LEVELS) == {"easy", "normal", "hard"}
    assert {"random", "simple", "easy", "normal", "hard"} <= set(PLAYERS)
    hard = make_player("hard", 1, budget=0.05)
    assert isinstance(hard, HardPlayer) and hard.budget == 0.05
    with pytest.raises(ValueError, match="unknown player"):
        make_player("grandmaster")


def test_configure_sets_the_default_budget() -> None:
    configure(budget=0.03)
    try:
        hard = make_player("hard", 1)
        assert isinstance(hard, HardPlayer) and hard.budget == 0.03
    finally:
        configure(budget=0.2)
    with pytest.raises(ValueError):
        configure(budget=0)


@pytest.mark.parametrize(("variant", "opts"), COMBOS, ids=lambda x: str(x))
def test_every_level_plays_every_variant_legally(variant: str, opts: dict[str, str]) -> None:
    """Each level at every seat, and the three levels mixed at one table: whole hands
    without an illegal move (the engine raises on one)."""
    options = Options.parse(variant, opts)
    n = options.rules().n_players
    for lv in ("easy", "normal"):
        for k in range(2):
            assert play_hand(options, [lv] * n, 5, k).is_terminal()
    mixed = [LEVELS[s % 3] for s in range(n)]
    assert play_hand(options, mixed, 6, 0).is_terminal()
    assert play_hand(options, ["hard"] * n, 7, 0).is_terminal()


# --------------------------------------------------------------------------- honesty


def hidden_twin(state: HandState, seat: int, rng: random.Random) -> HandState:
    """The same hand with every card `seat` cannot see dealt differently among the places it
    cannot see into (other hands, the talon, the removed cards): same sizes, same public
    history. Cards the seat can see stay where they are."""
    obs = state.observation(seat)
    twin = state.clone()
    pinned = {obs.turned} if obs.turned >= 0 else set()
    if obs.talon_next >= 0:
        pinned.add(obs.talon_next)
    slots: list[tuple[str, int, int]] = []  # (place, index in place, card)
    for s in range(state.n_players):
        if s == seat or s in obs.visible_hands:
            continue
        for i, c in enumerate(state.hands[s]):
            if c not in pinned:
                slots.append(("hand", s * 100 + i, c))
    for i in range(state.talon_pos, len(state.talon)):
        if state.talon[i] not in pinned:
            slots.append(("talon", i, state.talon[i]))
    cards = [c for _, _, c in slots]
    rng.shuffle(cards)
    twin.hands = [list(h) for h in state.hands]
    twin.talon = list(state.talon)
    twin.removed = list(state.removed)
    for (place, idx, _), c in zip(slots, cards, strict=True):
        if place == "hand":
            twin.hands[idx // 100][idx % 100] = c
        else:
            twin.talon[idx] = c
    if state.rules.remove_twos == 1:  # §1.4: the removed Two may be any hidden Two
        twos = [
            (place, idx)
            for (place, idx, _), c in zip(slots, cards, strict=True)
            if state.rules.deck.number[c] == 2
        ]
        if twos and rng.random() < 0.5:
            place, idx = rng.choice(twos)
            gone = twin.removed[0]
            if place == "hand":
                twin.removed[0] = twin.hands[idx // 100][idx % 100]
                twin.hands[idx // 100][idx % 100] = gone
            else:
                twin.removed[0] = twin.talon[idx]
                twin.talon[idx] = gone
    if twin.called_card >= 0 and not twin.carichi:
        twin.partner = twin.holder_of(twin.called_card)
        if twin.partner < 0:
            twin.partner = state.partner
    return twin


HONESTY_CASES = [
    ("due", {}),
    ("tre", {}),
    ("quattro", {"signals": "true"}),
    ("briscolone", {}),
    ("scoperta", {}),
    ("chiamata", {}),
    ("chiamata", {"auction": "points"}),
    ("chiamata4", {}),
    ("briskula32", {"players": "3"}),
]


@pytest.mark.parametrize(("variant", "opts"), HONESTY_CASES, ids=lambda x: str(x))
def test_players_see_only_their_observation(variant: str, opts: dict[str, str]) -> None:
    """Two states that differ only in cards a seat cannot see give that seat the same
    observation, and every level (hard with a fixed number of worlds) the same move."""
    options = Options.parse(variant, opts)
    rng = random.Random(f"honest:{variant}")
    differing = 0
    for k in range(6):
        state = HandState.deal(options, 31, k, k % options.rules().n_players)
        steps = rng.randrange(0, 3 * options.rules().n_players)
        for _ in range(steps):  # somewhere into the hand (the auction, or a few tricks)
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        if state.is_terminal():
            continue
        seat = state.current
        twin = hidden_twin(state, seat, rng)
        assert twin.observation(seat).to_dict() == state.observation(seat).to_dict()
        differing += twin.to_dict() != state.to_dict()
        for name in ("easy", "normal", "hard"):
            a = level(name, f"h{k}").act(state.observation(seat))
            b = level(name, f"h{k}").act(twin.observation(seat))
            assert a == b, (name, k)
    assert differing >= 3  # the twins really hid something


def test_hard_stops_after_its_fixed_number_of_worlds() -> None:
    options = Options.parse("due")
    state = HandState.deal(options, 3, 0, 0)
    for _ in range(6):
        state.apply(state.legal_actions()[0])
    # the search's own count (in due, before the last ten cards, `hard` otherwise plays the
    # due network's card without searching)
    hard = HardPlayer(random.Random(1), iterations=7, learned_due=False)
    obs = state.observation(state.current)
    assert hard.act(obs) in obs.legal
    assert 1 <= hard.last_worlds <= 7


# --------------------------------------------------------------------------- knowledge


def test_knowledge_tracks_seen_and_unseen_cards_in_due() -> None:
    options = Options.parse("due")
    state = HandState.deal(options, 4, 0, 0)
    for _ in range(5):
        state.apply(state.legal_actions()[0])
    seat = state.current
    obs = state.observation(seat)
    know = Knowledge.of(obs)
    played = {c for t in obs.tricks for c in t.cards} | {c for _, c in obs.trick}
    expected = set(range(40)) - set(obs.hand) - played - {obs.turned}
    assert set(know.unseen) == expected
    other = 1 - seat
    assert know.hidden[other] == obs.hand_sizes[other]
    assert know.talon_hidden == obs.talon_left - 1  # the turned card is known
    rng = random.Random(0)
    for _ in range(50):
        world = know.sample_world(rng)
        assert world.hands[seat] == list(obs.hand)
        assert len(world.hands[other]) == obs.hand_sizes[other]
        assert len(world.talon) == know.talon_hidden
        assert sorted(world.hands[other] + world.talon) == sorted(expected)
        rebuilt = HandState.from_observation(obs, world)
        assert rebuilt.observation(seat).to_dict() == obs.to_dict()


def test_knowledge_reads_a_void_in_briscolone() -> None:
    """§8.2: once the talon is gone, a player who did not follow suit has none of it left."""
    options = Options.parse("briscolone")
    rng = random.Random(5)
    found = 0
    for k in range(60):
        state = HandState.deal(options, 8, k, 0)
        while not state.is_terminal() and state.talon_left() > 0:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        while not state.is_terminal():
            seat = state.current
            obs = state.observation(seat)
            know = Knowledge.of(obs)
            for (s, su), cap in know.caps.items():
                if cap == 0:
                    found += 1
                    assert not any(
                        options.rules().deck.suit[c] == su for c in state.hands[s]
                    )  # the inference is true
                    for _ in range(10):
                        world = know.sample_world(rng)
                        assert not any(options.rules().deck.suit[c] == su for c in world.hands[s])
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    assert found > 10


def test_knowledge_places_the_called_card_in_chiamata() -> None:
    """§7.6-7.7: the caller who does not hold the called card knows another hand has it;
    the partner knows it has it; a defender may see it with the caller (alone) too."""
    options = Options.parse("chiamata")
    state = HandState.deal(options, 2, 0, 0)
    caller = 1
    called = next(c for c in range(40) if c not in state.hands[caller] and c % 10 == 0)
    state.apply(A.CALL_RANK + 1)
    for _ in range(4):
        state.apply(A.PASS)
    state.apply(A.NAME_SUIT + called // 10)
    assert state.phase == PLAY and state.called_card == called
    partner = state.partner
    rng = random.Random(3)
    know = Knowledge.of(state.observation(caller))
    assert called in know.unseen and TALON in know.forbid[called] and REMOVED in know.forbid[called]
    for _ in range(30):
        world = know.sample_world(rng)
        assert called not in world.hands[caller]
    know_p = Knowledge.of(state.observation(partner))
    assert called in know_p.hand
    defender = next(s for s in range(5) if s not in (caller, partner))
    know_d = Knowledge.of(state.observation(defender))
    assert know_d.weight[(caller, called)] < 1.0  # alone is possible, but unlikely


# --------------------------------------------------------------------------- exact play


@pytest.mark.parametrize("variant", ["due", "quattro", "briscolone"])
def test_solver_matches_brute_force_minimax(variant: str) -> None:
    options = Options.parse(variant)
    rng = random.Random(11)
    left_cards = 8
    for k in range(25):
        state = HandState.deal(options, 12, k, 0)
        while sum(len(h) for h in state.hands) + state.talon_left() > left_cards:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        if not Solver.applicable(state):
            continue
        sides = sides_of(state)
        mine = tuple(s == sides[state.current] for s in sides)
        moves = state.legal_actions()
        values = Solver(state, mine).root_values(moves)
        for move, v in zip(moves, values, strict=True):
            child = state.clone()
            child.apply(move)
            before = sum(t for s, t in enumerate(state.taken) if mine[s])
            gained = sum(t for s, t in enumerate(child.taken) if mine[s]) - before
            assert v == gained + brute_force(child, mine)


def test_two_player_endgame_solver_matches_the_general_one() -> None:
    options = Options.parse("due")
    rng = random.Random(2)
    deck = options.rules().deck
    memo: dict[tuple[tuple[int, ...], tuple[int, ...], bool], int] = {}
    for k in range(60):
        state = HandState.deal(options, 13, k, 0)
        while state.talon_left() > 0 or state.trick:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        lead = state.current
        mine = (True, False)
        fast = solve_two(
            tuple(sorted(state.hands[lead])),
            tuple(sorted(state.hands[1 - lead])),
            mine[lead],
            state.briscola,
            deck.suit,
            deck.strength,
            deck.points,
            memo,
        )
        assert fast == Solver(state, mine).value() == brute_force(state, mine)


def constructed_endgame(hands: list[list[str]], briscola_card: str, leader: int) -> HandState:
    """Due with the talon gone (§3.5): the given hands, every other card already played in
    earlier tricks (seat 1 drew the turned card and played it), `leader` to lead."""
    options = Options.parse("due")
    deck = options.rules().deck
    state = HandState.deal(options, 0, 0, 1 - leader)  # `leader` leads the first trick (§3.3)
    held = [[deck.card(x) for x in h] for h in hands]
    turned = deck.card(briscola_card)
    gone = [c for c in range(40) if c not in held[0] + held[1]]
    state.hands = held
    state.talon = []
    state.talon_pos = 0
    state.turned, state.turned_to = turned, 1
    state.briscola = deck.suit[turned]
    state.tricks = []
    state.taken = [0, 0]
    state.won = [0, 0]
    for i in range(0, len(gone), 2):
        pair = (gone[i], gone[i + 1])
        pts = deck.points[pair[0]] + deck.points[pair[1]]
        state.tricks.append(Trick(0, (0, 1), pair, i // 2 % 2, pts))
        state.taken[i // 2 % 2] += pts
        state.won[i // 2 % 2] += 1
    assert state.leader == state.current == leader and state.trick_order == (leader, 1 - leader)
    return state


def exact_values(state: HandState) -> dict[int, int]:
    """Two players: the card points the seat to move wins from here after each legal card,
    with best play by both sides (`brute_force`)."""
    seat = state.current
    mine = tuple(s == seat for s in range(2))
    values = {}
    for c in state.legal_actions():
        child = state.clone()
        child.apply(c)
        values[c] = child.taken[seat] - state.taken[seat] + brute_force(child, mine)
    return values


def talon_gone(seed: int, k: int, rng: random.Random) -> HandState:
    """A `due` hand dealt from `seed` and `k`, played at random until the talon is gone."""
    state = HandState.deal(Options.parse("due"), seed, k, 0)
    while state.talon_left() > 0:
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    return state


def test_normal_and_hard_play_a_constructed_endgame_exactly() -> None:
    """Briscola bastoni (seat 1 drew the turned 6), talon gone, everything known. Seat 0
    leads with the Asso di spade, the 6 di coppe and the Tre di bastoni against the Cavallo
    and the Asso di coppe and the 6 di bastoni. The cheapest lead (the 6 di coppe) is what
    a greedy player leads; exact play leads the Asso di spade (21 points against 13)."""
    state = constructed_endgame([["1S", "6C", "3B"], ["9C", "1C", "6B"]], "6B", 0)
    deck = state.rules.deck
    obs = state.observation(0)
    assert obs.talon_left == 0 and Knowledge.of(obs).fully_known()
    values = {deck.label(c): v for c, v in exact_values(state).items()}
    assert values == {"1S": 21, "6C": 13, "3B": 13}
    # the judgement alone leads the cheap card; normal's exact endgame (issue 17 §6) and
    # hard's search lead the Asso
    judgement = NormalPlayer(random.Random(0), exact_endgame=False, learned_due=False)
    assert judgement.act(obs) == deck.card("6C")
    assert NormalPlayer(random.Random(0)).act(obs) == deck.card("1S")
    assert HardPlayer(random.Random(0), iterations=1).act(obs) == deck.card("1S")


def test_hard_finds_the_best_card_in_random_known_endgames() -> None:
    rng = random.Random(21)
    checked = 0
    for k in range(40):
        state = talon_gone(22, k, rng)
        values = exact_values(state)
        choice = HardPlayer(random.Random(k), iterations=1).act(state.observation(state.current))
        assert values[choice] == max(values.values())
        checked += len(set(values.values())) > 1
    assert checked >= 10


def test_normal_plays_every_known_endgame_exactly_in_due() -> None:
    """Issue 17 §6: in `due`, once the talon is gone every card is known and `normal` plays
    each of the last tricks for the most card points (brute-force minimax says which), as a
    leader and as a follower. Without its exact endgame and the due network (the player
    before the change) it misplays some of these very positions."""
    rng = random.Random(17)
    decisions = misplayed_before = 0
    for k in range(60):
        state = talon_gone(23, k, rng)
        while not state.is_terminal():
            values = exact_values(state)
            obs = state.observation(state.current)
            choice = NormalPlayer(random.Random(k)).act(obs)
            assert values[choice] == max(values.values()), (k, state.hands, values, choice)
            before = NormalPlayer(random.Random(k), exact_endgame=False, learned_due=False)
            misplayed_before += values[before.act(obs)] < max(values.values())
            decisions += len(values) > 1
            state.apply(choice)
    assert decisions >= 200
    assert misplayed_before > 0


def test_normal_two_draws_out_plays_close_to_the_best_card_over_every_world() -> None:
    """§3.4-3.5: in `due` with two draws left (`normal.SAMPLE_TALON` cards), the unseen
    cards lie in up to 120 ways; `normal` solves a sample of them exactly. Its card's value
    over all the ways (each solved by `Solver`, the talon's draws included, weighed as
    `Knowledge` weighs them) falls short of the best card's by a small fraction of what the
    judgement alone (no endgame, no due network) gives away."""
    rng = random.Random(41)
    options = Options.parse("due")
    decisions = 0
    lost = lost_before = 0.0
    for k in range(25):
        state = HandState.deal(options, 41, k, k % 2)
        while state.talon_left() > normal.SAMPLE_TALON:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        for _ in range(2):  # the leader's decision, then the follower's
            obs = state.observation(state.current)
            cards = card_actions(obs)
            value = dict.fromkeys(cards, 0.0)
            weight = 0.0
            for world, w in Knowledge.of(obs).enumerate_worlds():
                world_state = HandState.from_observation(obs, world)
                mine = tuple(side == sides_of(world_state)[obs.seat] for side in (0, 1))
                for c, v in zip(cards, Solver(world_state, mine).root_values(cards), strict=True):
                    value[c] += w * v
                weight += w
            best = max(value.values())
            choice = NormalPlayer(random.Random(k)).act(obs)
            before = NormalPlayer(random.Random(k), exact_endgame=False, learned_due=False)
            lost += (best - value[choice]) / weight
            lost_before += (best - value[before.act(obs)]) / weight
            decisions += 1
            state.apply(cards[0])
    assert decisions == 50
    assert lost_before > 10.0  # card points over the 50 decisions
    assert lost < lost_before / 3


# --------------------------------------------------------------------------- bidding


@pytest.mark.parametrize("name", ["normal", "hard"])
def test_bidding_passes_a_weak_hand_and_calls_with_a_strong_one(name: str) -> None:
    state, seat = auction_obs(WEAK)
    player = make_player(name, 1, iterations=40)
    assert player.act(state.observation(seat)) == A.PASS
    state, seat = auction_obs(STRONG)
    player = make_player(name, 1, iterations=40)
    action = player.act(state.observation(seat))
    assert A.CALL_RANK <= action < A.BID_POINTS


def test_normal_names_the_suit_it_is_long_in_and_calls_alone_only_when_strong() -> None:
    state, seat = auction_obs(STRONG)
    state.apply(A.CALL_RANK + 2, seat)  # calls the Two
    for _ in range(4):
        state.apply(A.PASS)
    assert state.phase == NAME_SUIT and state.caller == seat  # naming the suit
    action = NormalPlayer(random.Random(0)).act(state.observation(seat))
    assert action == A.NAME_SUIT + D
    state, seat = auction_obs(WEAK)
    state.apply(A.CALL_RANK + 1, seat)
    for _ in range(4):
        state.apply(A.PASS)
    action = NormalPlayer(random.Random(0)).act(state.observation(seat))
    assert card_id(1, action - A.NAME_SUIT) not in state.hands[seat]  # not alone when weak


LONG = ["1D", "3D", "10D", "9D", "8D", "7D", "6D", "1C"]  # seven denari
MIDDLING = ["1S", "2S", "3S", "5S", "4S", "2B", "6B", "7B"]  # five spade, the Two among them
FIVE = ["1D", "3D", "6D", "5D", "4D", "2C", "4S", "7B"]  # five denari, little else


def _won_auction(state: HandState, seat: int, player: Player) -> int:
    """`player` bids for `seat`, the others pass; the card it calls (§7.2-7.5)."""
    state.apply(player.act(state.observation(seat)), seat)
    while state.phase == AUCTION:
        state.apply(A.PASS)
    assert state.phase == NAME_SUIT and state.caller == seat
    state.apply(player.act(state.observation(seat)), seat)
    return state.called_card


def test_hard_goes_alone_on_purpose_only_with_a_long_suit() -> None:
    """§7.7 (issue 17 §4): seven denari with the Asso and the Tre call the Asso of denari,
    alone; five with little else call a socio: alone pays double (§7.12) but wins far less
    often."""
    state, seat = auction_obs(LONG)
    called = _won_auction(state, seat, make_player("hard", 1, iterations=200))
    assert called in state.hands[seat] and called == card_id(1, D)
    state, seat = auction_obs(FIVE)
    called = _won_auction(state, seat, make_player("hard", 1, iterations=200))
    assert called not in state.hands[seat] and called // 10 == D


def test_hard_does_not_fight_down_to_its_own_two() -> None:
    """§7.2-7.3 (issue 17 §4): with only the Two left to call and the Two of its best suit in
    hand, a middling hand passes instead of ending up alone: the rollouts give it about 0.57
    alone at 61 (+0.5 expected at face value), less the measured optimism of alone
    estimates (`ALONE_BIAS`) it is a loss."""
    state, seat = auction_obs(MIDDLING)
    for rank in (1, 3, 10, 9, 8, 7, 6, 5, 4):  # it bids down with the others to the Four
        state.apply(A.CALL_RANK + rank)
    state.apply(A.PASS)
    assert state.current == seat
    obs = state.observation(seat)
    assert A.CALL_RANK + 2 in obs.legal
    assert make_player("hard", 1, iterations=200).act(obs) == A.PASS


def test_hard_goes_alone_over_a_contested_two_only_when_sure() -> None:
    """§7.3 (issue 17 §4): five spades with the Asso, the Tre and the Two. Where nobody else
    called the Two, it calls it (alone: the rollouts give about 0.8 at 61); where another
    seat did, it does not overbid alone: such bidders hold strong hands the deals know
    nothing of (`ALONE_BIAS_CONTESTED`)."""
    hand = ["1S", "2S", "3S", "6S", "9S", "2B", "6B", "7B"]
    for last, expected in ((A.PASS, A.CALL_RANK + 2), (A.CALL_RANK + 2, A.PASS)):
        state, seat = auction_obs(hand)
        for rank in (1, 3, 10, 9, 8, 7, 6, 5, 4):  # it bids down with the others to the Four
            state.apply(A.CALL_RANK + rank)
        state.apply(last)  # the fifth seat passes, or calls the Two
        assert state.current == seat
        assert make_player("hard", 1, iterations=200).act(state.observation(seat)) == expected


def _normal_hands(variant: str, hands: int, seed: int, bid: Any = None) -> list[HandState]:
    """`hands` hands of `variant` played to the end by `normal` in every seat."""
    options = Options.parse(variant)
    n = options.rules().n_players
    out = []
    for k in range(hands):
        state = HandState.deal(options, seed, k, (first_dealer(seed, n) + k) % n)
        bots = [NormalPlayer(random.Random(f"{seed}:{k}:{s}"), bid=bid) for s in range(n)]
        while not state.is_terminal():
            seat = state.current
            state.apply(bots[seat].act(state.observation(seat)), seat)
        out.append(state)
    return out


def _auction_shape(hands: list[HandState]) -> tuple[float, float, set[int]]:
    """Share of hands called at the Two, the callers' win rate, and the other ranks called
    in at least 5% of hands."""
    assert all(h.caller >= 0 for h in hands)  # nobody redeals (§7.4)
    ranks = [h.rules.deck.number[h.called_card] for h in hands]
    two = sum(r == 2 for r in ranks) / len(ranks)
    won = sum(h.result().deltas[h.caller] > 0 for h in hands) / len(hands)
    common = {r for r in ranks if r != 2 and ranks.count(r) >= len(ranks) / 20}
    return two, won, common


def test_normal_auction_stops_at_the_rank_the_strongest_hand_affords() -> None:
    """§7.2-7.4, §7.11 (issue 17 §5): with five players the auction says something. With the
    thresholds of before nearly every hand was bid down to the Two and settled by points bids
    one above the other, the caller winning half; now many stop at the rank the strongest
    hand can afford (the Quattro, the Cinque) and the caller wins more often than not. On
    these 200 hands: the Two in 55% and 59.5% won, against 95.5% and 57.5% before (50% before
    `normal` kept its high briscole, `NORMAL_CHIAMATA`)."""
    two, won, common = _auction_shape(_normal_hands("chiamata", 200, 17))
    assert two < 0.7 and won > 0.53
    assert {4, 5} <= common
    old = bidding.BidStyle(base=18.0, per_rank=1.8)
    two_old, won_old, common_old = _auction_shape(_normal_hands("chiamata", 200, 17, old))
    assert two_old > 0.85 and not common_old  # the same checks fail before
    assert won_old < won


def normal_against(
    monkeypatch: pytest.MonkeyPatch,
    variant: str,
    before: Any,
    seed: int,
    deals: int,
) -> tuple[float, float]:
    """`normal` against `before(rng)` (a player as it was) over paired deals of `variant`
    (`bench.strength.play_deal`): the mean §7.12 score difference per seat-hand and its
    standard error."""
    from bench import strength

    monkeypatch.setitem(strength.BASELINES, "before", lambda rng, budget, iterations: before(rng))
    results = [
        strength.play_deal(variant, "normal", "before", seed, k, 0.2, None) for k in range(deals)
    ]
    diffs = [r.score_diff for r in results]
    return statistics.fmean(diffs), statistics.stdev(diffs) / len(diffs) ** 0.5


def test_normal_bids_looser_with_four_players(monkeypatch: pytest.MonkeyPatch) -> None:
    """§7.12 four-player form (issue 17 §5): with ten cards each a partner's card is worth
    more and callers won four hands in five under the five-player thresholds of before;
    `normal`'s looser four-player thresholds outscore those over paired deals (measured
    +0.09 to +0.12 per seat-hand on 2,000 deals per seed; +0.25, standard error 0.05, here)."""
    old = bidding.BidStyle(base=18.0, per_rank=1.8)
    mean, se = normal_against(
        monkeypatch, "chiamata4", lambda rng: NormalPlayer(rng, bid=old), 23, 200
    )
    assert mean - 2 * se > 0


def test_normal_keeps_its_high_briscole_in_chiamata(monkeypatch: pytest.MonkeyPatch) -> None:
    """§7.12 (issue 17): every card is dealt in chiamata, so a high briscola kept is worth
    more than in due; `normal`'s chiamata judgement (`NORMAL_CHIAMATA`) spends its Asso and
    Tre of briscola less readily than the due one (`NORMAL`) and outscores it over paired
    deals (+0.15 per seat-hand, standard error 0.04, here)."""
    mean, se = normal_against(
        monkeypatch, "chiamata", lambda rng: NormalPlayer(rng, NORMAL), 29, 300
    )
    assert mean - 2 * se > 0


# --------------------------------------------------------------------------- strength


def paired_due(a: str, b: str, deals: int, seed: int) -> tuple[float, float]:
    """Mean card-point difference (a minus b) per game and a's win rate, over paired deals."""
    options = Options.parse("due")
    diffs = []
    wins = 0
    for k in range(deals):
        dealer = (first_dealer(seed, 2) + k) % 2
        total = 0
        for swap in (False, True):
            names = [b, a] if swap else [a, b]
            bots = [make_player(nm, f"{seed}:{k}:{s}") for s, nm in enumerate(names)]
            state = HandState.deal(options, seed, k, dealer)
            while not state.is_terminal():
                seat = state.current
                state.apply(bots[seat].act(state.observation(seat)), seat)
            sa = 1 if swap else 0
            total += state.taken[sa] - state.taken[1 - sa]
            wins += state.taken[sa] > 60
        diffs.append(total / 2)
    return statistics.fmean(diffs), wins / (2 * deals)


def test_normal_beats_random_in_due() -> None:
    diff, win_rate = paired_due("normal", "random", 200, 77)
    assert diff > 25  # measured about +44
    assert win_rate > 0.8  # measured about 0.9


def test_rollouts_finish_hands() -> None:
    options = Options.parse("quattro")
    rng = random.Random(4)
    for k in range(10):
        state = HandState.deal(options, 4, k, 0)
        rollout(state, rng)
        assert state.is_terminal()
        assert sum(state.taken) == 120


def test_normal_outscores_easy_in_chiamata() -> None:
    """§7.12 scores over paired deals (each deal twice, seats swapped): normal's bidding and
    play earn more per seat-hand than easy's (measured +0.061 over these 300 deals; +0.044
    with the auction thresholds of before issue 17 §5)."""
    from bench.strength import play_deal

    results = [play_deal("chiamata", "normal", "easy", 91, k, 0.2, None) for k in range(300)]
    normal_seat_hands = sum(r.games for r in results)
    easy_seat_hands = 5 * sum(r.hands for r in results) - normal_seat_hands
    normal = sum(r.a_score for r in results) / normal_seat_hands
    easy = sum(r.b_score for r in results) / easy_seat_hands
    assert normal > 0 > easy
    assert sum(r.a_score + r.b_score for r in results) == 0  # the ledger is zero-sum


def test_bench_takes_table_options_and_refuses_mixed_sides() -> None:
    """§5.4: `bench.strength` seats one level on the even seats, the other on the odd ones.
    Sei in pairs (partners at seats i and i+3) would put both levels in every pair, so it is
    refused; in teams of three (alternate seats, `sei:teams=threes`) each level is a team.
    Garbage options get a clear error; the deal is played with the options given."""
    from bench.strength import play_deal, seating_problem, table_options

    threes = table_options("sei:teams=threes")
    assert threes.rules().side_of == (0, 1, 0, 1, 0, 1)
    assert seating_problem(threes) is None
    assert seating_problem(table_options("sei")) is not None
    for variant in ("due", "tre", "quattro", "chiamata", "chiamata4", "briskula32"):
        assert seating_problem(table_options(variant)) is None, variant
    for garbage in ("sei:teams", "sei:teams=fives", "sei:nonsense=1"):
        with pytest.raises(OptionsError):
            table_options(garbage)
    r = play_deal("sei:teams=threes", "normal", "random", 5, 0, 0.2, None)
    assert r.games == 2 and len(r.times["normal"]) > 0


def test_bench_command_refuses_a_mixed_table_before_playing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """§5.4: `python -m bench.strength --variants sei` (pairs) stops with a clear error
    naming the way out, as does a garbage option, and plays nothing."""
    from bench.strength import main

    for variant, words in (("sei", "sei:teams=threes"), ("sei:teams", "key=value")):
        with pytest.raises(SystemExit) as exc:
            main(["--variants", variant, "--matchups", "normal-random", "--deals", "1"])
        assert exc.value.code == 2
        captured = capsys.readouterr()
        assert words in captured.err and "deals" not in captured.out


def test_bench_counts_each_seat_hand_in_one_role() -> None:
    """§7.7, §7.12: the bench's score by role puts every seat-hand of a level in exactly one
    role (caller, socio, defender, or caller alone) with its score, and counts a caller alone
    once (the role's count and the alone count agree). `random` often names the suit of a
    card it holds, so some of these hands are played alone."""
    from bench.strength import ROLES, play_deal

    alone = 0
    for k in range(30):
        r = play_deal("chiamata", "normal", "random", 5, k, 0.2, None)
        for lv, score in (("normal", r.a_score), ("random", r.b_score)):
            roles = [r.play.get(f"{lv}:role_{role}", 0) for role in ROLES]
            assert sum(roles) == r.seat_hands[lv]
            assert sum(r.play.get(f"{lv}:role_{role}_score", 0) for role in ROLES) == score
            assert r.play.get(f"{lv}:role_alone", 0) == r.play.get(f"{lv}:alone", 0)
            alone += r.play.get(f"{lv}:alone", 0)
    assert alone > 0


def test_bench_seers_search_the_real_deal() -> None:
    """§7.6: the bench's ceiling players cheat exactly as named. `hardseer`'s worlds are the
    real deal; `hardsocio`'s give the called card to the real socio while the socio is
    hidden (a seat's own worlds often do not) and otherwise place the hidden cards as
    `hard` would; both play legal cards."""
    from bench import seers

    seer = seers.Seer(random.Random(1), 0.2, 8, socio_only=False)
    socio = seers.Seer(random.Random(2), 0.2, 8, socio_only=True)
    checked = elsewhere = 0
    for _, state, obs, _ in normal_chiamata_turns(53, 6, "s"):
        if state.phase != PLAY or state.reveal_trick >= 0 or obs.seat == state.partner:
            continue
        checked += 1
        rng = random.Random(checked)
        seer.state = socio.state = state
        world = seer._knowledge(obs).sample_world(rng)
        assert world.hands == [list(h) for h in state.hands]
        assert seer._knowledge(obs).enumerate_worlds()[0][0].hands == world.hands
        for _ in range(5):
            assert state.called_card in socio._knowledge(obs).sample_world(rng).hands[state.partner]
            own = Knowledge.of(obs).sample_world(rng)
            elsewhere += state.called_card not in own.hands[state.partner]
        if checked % 5 == 0:
            assert seer.act(obs) in obs.legal and socio.act(obs) in obs.legal
    assert checked > 30 and elsewhere > 0, (checked, elsewhere)


def test_bench_tells_loads_by_choice_from_forced_ones() -> None:
    """§2.3, §7.6: the bench's defenders' loads (a plain carico put, not in last seat, on a
    trick it does not take) count as "by choice" exactly when the defender's hand, as it was
    when it played, held another card that is not a plain carico; the bench rebuilds that
    hand from the finished hand's tricks, checked here against the hands seen during play."""
    from bench.strength import chiamata_play

    options = Options.parse("chiamata")
    totals = {"free": 0, "forced": 0}
    for k in range(40):
        state = HandState.deal(options, 9, k, k % 5)
        players = [make_player("normal" if s % 2 else "random", f"loads:{k}:{s}") for s in range(5)]
        expected = {"free": 0, "forced": 0, "free_net": 0}
        plays: list[tuple[int, int, list[int], list[int]]] = []  # seat, card, hand, trick
        while not state.is_terminal():
            seat = state.current
            action = players[seat].act(state.observation(seat))
            if state.phase == PLAY:
                plays.append((seat, action, list(state.hands[seat]), list(state.trick)))
            state.apply(action, seat)
        deck = state.rules.deck
        suit, strength, points = deck.suit, deck.strength, deck.points
        b = state.briscola
        callers = {state.caller, state.partner}
        for i, (seat, card, hand, trick) in enumerate(plays):
            t = i // 5
            last = len(trick) == 4
            if not trick or last or seat in callers or points[card] < 10 or suit[card] == b:
                continue
            w = trick_winner(trick, suit, strength, b)
            if trick_winner((trick[w], card), suit, strength, b) == 1:
                continue
            free = any(x != card and (points[x] < 10 or suit[x] == b) for x in hand)
            if free:
                expected["free"] += 1
                kept = state.tricks[t].winner in callers
                expected["free_net"] += -points[card] if kept else points[card]
            else:
                expected["forced"] += 1
        counts = chiamata_play(state, ["random" if s % 2 == 0 else "normal" for s in range(5)])
        got_free = sum(v for key, v in counts.items() if key.endswith(":def_loads_free"))
        got_all = sum(v for key, v in counts.items() if key.endswith(":def_loads"))
        got_net = sum(v for key, v in counts.items() if key.endswith(":def_loads_free_net"))
        assert (got_free, got_all - got_free, got_net) == (
            expected["free"],
            expected["forced"],
            expected["free_net"],
        )
        totals["free"] += expected["free"]
        totals["forced"] += expected["forced"]
    assert totals["free"] > 0 and totals["forced"] > 0


# --------------------------------------------------------------------------- chiamata defence


def guarded_carichi(obs: Any) -> tuple[set[int], bool]:
    """Issue 17 §1, a defender's view of the trick in front of it: the carichi (a plain Asso
    or Tre) that would not win it, and whether the trick is one not to load: a known
    opponent (the caller, or the revealed socio) is winning it, or, in last seat, a seat that
    may be the hidden socio took it with a briscola."""
    deck = obs.rules.deck
    suit, strength, points = deck.suit, deck.strength, deck.points
    b = obs.briscola
    me = obs.seat
    if obs.caller < 0 or obs.carichi or me == obs.caller or obs.partner == me or not obs.trick:
        return set(), False
    cards = [c for _, c in obs.trick]
    w = trick_winner(cards, suit, strength, b)
    w_seat, w_card = obs.trick[w]
    known_foe = w_seat == obs.caller or (obs.partner_revealed and w_seat == obs.partner)
    last = len(obs.trick) == obs.rules.n_players - 1
    hidden_trumper = last and not obs.partner_revealed and suit[w_card] == b and suit[cards[0]] != b
    losing = {
        c
        for c in obs.legal
        if A.is_card(c)
        and points[c] >= 10
        and suit[c] != b
        and trick_winner((w_card, c), suit, strength, b) == 0
    }
    return losing, known_foe or hidden_trumper


def defence_breaches(style: Any, deals: int) -> tuple[int, int]:
    """(positions where the rule applied and another card was there, carichi thrown there
    anyway) over `deals` chiamata hands of five `normal` players with `style`."""
    options = Options.parse("chiamata")
    seen = breaches = 0
    for k in range(deals):
        state = HandState.deal(options, 417, k, first_dealer(417, 5))
        players = [NormalPlayer(random.Random(f"{k}:{s}"), style) for s in range(5)]
        while not state.is_terminal():
            obs = state.observation(state.current)
            action = players[state.current].act(obs)
            if obs.phase == PLAY:
                losing, guard = guarded_carichi(obs)
                others = [c for c in obs.legal if A.is_card(c) and c not in losing]
                if guard and losing and others:
                    seen += 1
                    breaches += action in losing
            state.apply(action, state.current)
    return seen, breaches


def test_defenders_do_not_load_carichi_onto_an_opponents_trick() -> None:
    """Issue 17 §1: a defender never throws a carico that does not win onto a trick a known
    opponent is winning, nor in last seat onto a trick a possible socio took with a
    briscola, when it has another card; without the rule `normal` did so often. Both
    judgements: `normal`'s in chiamata (`NORMAL_CHIAMATA`) and `hard`'s anchor (`NORMAL`)."""
    for style in (NORMAL_CHIAMATA, NORMAL):
        seen, breaches = defence_breaches(style, 40)
        assert seen > 30 and breaches == 0, (style, seen, breaches)
    seen_old, breaches_old = defence_breaches(replace(NORMAL_CHIAMATA, guard_carichi=0.0), 40)
    assert breaches_old > 5, (seen_old, breaches_old)


def test_s7_6_rollouts_keep_the_socio_hidden_from_the_others() -> None:
    """Issue 17 §2: in the search's rollouts only the socio knows who the socio is until the
    called card is played: a defender in last seat loads a trick the hidden socio is winning
    as a friend's (as a real defender would), and stops once the socio is known."""
    options = Options.parse("chiamata")
    deck = options.rules().deck
    suit, strength, points = deck.suit, deck.strength, deck.points
    hidden_seen = revealed_differ = 0
    rng = random.Random(12)
    for k in range(300):
        state = HandState.deal(options, 77, k, first_dealer(77, 5))
        state.apply(A.CALL_RANK + 1)  # the first to speak calls the Asso, the others pass
        while state.phase != NAME_SUIT:
            state.apply(A.PASS)
        caller = state.current
        suits = [s for s in range(4) if card_id(1, s) not in state.hands[caller]]
        state.apply(A.NAME_SUIT + rng.choice(suits))
        while state.phase == PLAY:
            trick = state.trick_plays()
            if len(trick) == 4 and state.current not in (caller, state.partner):
                cards = [c for _, c in trick]
                w = trick_winner(cards, suit, strength, state.briscola)
                if trick[w][0] == state.partner:
                    hand = list(state.hands[state.current])
                    b = state.briscola
                    load = max(
                        hand, key=lambda c: (suit[c] != b) * 100 + points[c] * 5 - strength[c]
                    )
                    after = state.clone()
                    rollout(after, random.Random(0), eps=0.0)
                    played = after.tricks[len(state.tricks)].plays[-1][1]
                    if state.reveal_trick < 0:
                        hidden_seen += 1
                        assert played == load, (state.current, hand, played)
                    else:
                        revealed_differ += played != load
            state.apply(random.Random(k).choice(state.legal_actions()))
    assert hidden_seen > 20 and revealed_differ > 5, (hidden_seen, revealed_differ)


def bare_carico_leads(guard: bool, deals: int) -> tuple[int, int]:
    """Chiamata leads by `hard` (16 worlds a move) holding a bare carico — a plain Asso, or a
    plain Tre whose Asso is still out — where its judgement would lead something else, before
    the tricks it solves exactly (`exact_cards`): (such leads, bare carichi led)."""
    chances = led = 0
    for k, state, obs, _ in normal_chiamata_turns(41, deals, "b"):
        if state.phase == PLAY and not obs.trick and sum(obs.hand_sizes) > exact_cards(obs.rules):
            know = Knowledge.of(obs)
            bare = {c for c in obs.hand if _bare_carico(obs, know, c)}
            if bare and hard_judgement(obs) not in bare:
                chances += 1
                hard = HardPlayer(random.Random(k), iterations=16, guard_bare=guard)
                led += hard.act(obs) in bare
    return chances, led


def test_hard_leads_no_bare_carico_against_its_judgement() -> None:
    """Issue 17 §3: the search's greedy rollouts misjudge a plain Asso (or a Tre whose Asso
    is out) led into the briscole; `hard` leads one in chiamata only where its judgement
    (the anchor of its search) would. Without the guard its search does lead some."""
    chances, led = bare_carico_leads(True, 12)
    assert chances > 20 and led == 0, (chances, led)
    chances, led = bare_carico_leads(False, 12)
    assert led > 0, (chances, led)


def hard_throws_onto_callers_side(
    guard: bool, deals: int, variant: str = "chiamata"
) -> tuple[int, int, int, list[int]]:
    """Chiamata positions of a defender, someone still to play after it, holding a plain
    carico that would not take a trick the caller's side may be taking, and another card:
    (positions, carichi `hard` (16 worlds a move) throws there, of those where its judgement
    would not, the cards it played)."""
    chances = thrown = against = 0
    played = []
    for k, state, obs, _ in normal_chiamata_turns(47, deals, "l", variant):
        if state.phase != PLAY:
            continue
        losing = carichi_onto_callers_side(obs)
        if not losing or all(c in losing for c in obs.hand):
            continue
        chances += 1
        hard = HardPlayer(random.Random(k), iterations=16, guard_load=guard)
        played.append(hard.act(obs))
        if played[-1] in losing:
            thrown += 1
            against += hard_judgement(obs) not in losing
    return chances, thrown, against, played


def test_hard_defender_loads_no_carico_onto_the_callers_side() -> None:
    """Issue 17 §1: `hard`'s defender throws no plain carico that does not win onto a trick
    the caller's side may be taking while someone is still to play, whatever its worlds or
    its judgement say (in the worlds the seats behind take such tricks back more often than
    real ones do: in probes such throws lost 7.7 to 8.5 card points each). Without the
    guard it throws some, and some against its judgement. Five players only (the next
    test)."""
    chances, thrown, _, _ = hard_throws_onto_callers_side(True, 40)
    assert chances > 30 and thrown == 0, (chances, thrown)
    chances, thrown, against, _ = hard_throws_onto_callers_side(False, 40)
    assert thrown > 0 and against > 0, (chances, thrown, against)


def test_hard_defender_carico_guard_is_off_with_four_players() -> None:
    """With four players (two defenders) the guard measured no better (docs/players.md): there
    `hard` plays the same cards with it and without it, some of them such carichi."""
    guarded = hard_throws_onto_callers_side(True, 12, "chiamata4")
    free = hard_throws_onto_callers_side(False, 12, "chiamata4")
    assert guarded[0] > 5 and guarded[1] > 0, guarded
    assert guarded[3] == free[3]


def hard_judgement(obs: Observation) -> int:
    """The card `hard`'s judgement (its anchor, `hard.ANCHOR`) plays, of the moves it
    searches."""
    from bot.players.hard import ANCHOR, distinct_moves

    know = Knowledge.of(obs)
    moves = distinct_moves(obs, know, card_actions(obs))
    prior = score_cards(obs, know, moves, ANCHOR)
    return max(moves, key=lambda c: (prior[c], -c))


def called_card_plays(guard: bool, deals: int) -> tuple[int, int]:
    """Chiamata positions of a hidden socio holding the called card (before the tricks `hard`
    solves exactly, `exact_cards`) where `hard`'s judgement would play another card, and
    how many times `hard` (16 worlds a move) plays the called card there: (positions, called
    cards played)."""
    chances = played = 0
    for k, state, obs, _ in normal_chiamata_turns(43, deals, "c"):
        hidden = obs.seat == state.partner != state.caller and state.reveal_trick < 0
        if state.phase == PLAY and hidden and sum(obs.hand_sizes) > exact_cards(obs.rules):
            if hard_judgement(obs) == state.called_card:
                continue
            chances += 1
            hard = HardPlayer(random.Random(k), iterations=16, guard_called=guard)
            played += hard.act(obs) == state.called_card
    return chances, played


def test_s7_6_hard_socio_stays_hidden_where_its_judgement_would() -> None:
    """§7.6, issue 17 §2: playing the called card shows who the socio is, which the search's
    rollouts value at little; `hard`'s hidden socio plays it only where its judgement (the
    anchor of its search) would. Without the guard its search does play it in some of those
    positions."""
    chances, played = called_card_plays(True, 40)
    assert chances > 50 and played == 0, (chances, played)
    chances, played = called_card_plays(False, 40)
    assert played > 0, (chances, played)


def test_s7_6_hard_keeps_the_called_card_apart_from_its_look_alikes() -> None:
    """§7.6: `hard` searches one card of each set that plays alike (same suit and points, no
    card anyone else holds between them), but the hidden socio's called card is never merged
    with another: playing it shows who the socio is, playing its look-alike does not. Found
    in hands of five `normal` players: positions where a look-alike is in the socio's hand."""
    from bot.players.hard import distinct_moves

    look_alikes = 0
    for _, state, obs, _ in normal_chiamata_turns(47, 60, "l"):
        hidden = obs.seat == state.partner != state.caller and state.reveal_trick < 0
        if state.phase == PLAY and hidden:
            deck = obs.rules.deck
            called = state.called_card
            cards = card_actions(obs)
            know = Knowledge.of(obs)
            moves = distinct_moves(obs, know, cards)
            rest = distinct_moves(obs, know, [c for c in cards if c != called])
            assert set(moves) == {called} | set(rest)
            look_alikes += any(
                deck.suit[c] == deck.suit[called] and deck.points[c] == deck.points[called]
                for c in rest
            )
    assert look_alikes > 0


def test_s7_6_public_play_tells_who_the_socio_is() -> None:
    """§7.6, issue 17 §1: before the called card is played, who the socio is shows only in
    the public play. `partner_suspicion`'s log-odds, as a choice among the seats each player
    cannot rule out (the non-callers but itself), name the true socio with a log-loss well
    under knowing nothing (ln 3 or ln 4 a position): over 150 hands of five `normal`
    players 0.91 against 1.17, where the weights fitted on `normal`'s earlier play (before
    `NORMAL_CHIAMATA`) score 0.96. On that earlier play they scored 0.76, and the hand-set
    weights before them 1.08."""
    import math

    from bot.players.knowledge import partner_suspicion

    losses: list[float] = []
    blind: list[float] = []  # knowing nothing: each seat it cannot rule out alike
    for _, state, obs, _ in normal_chiamata_turns(31, 150, "suspicion:"):
        alone = state.partner == state.caller
        if state.phase == PLAY and not alone and state.reveal_trick < 0 and obs.tricks:
            score = partner_suspicion(obs)
            cands = [s for s in range(5) if s not in (state.caller, obs.seat)]
            if state.partner in cands:
                z = [math.exp(score[s]) for s in cands]
                losses.append(-math.log(z[cands.index(state.partner)] / sum(z)))
                blind.append(math.log(len(cands)))
    uniform = sum(blind) / len(blind)
    loss = sum(losses) / len(losses)
    assert len(losses) > 1000
    assert loss < uniform - 0.25, (loss, uniform)
