"""One or more tests per rule of RULES.md §1-§10.2. Each test names the section it checks.

Action numbers are taken from `bot.engine.actions` (never hard-coded), card notation from the
deck (`1D` = Asso di denari, `10C` = Re di coppe, `AD`/`TD` in the 32-card deck).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import pytest

from bot.engine import (
    AUCTION,
    CALL_CARD,
    DECK32,
    DECK40,
    NAME_SUIT,
    OVER,
    PLAY,
    SPECTATOR,
    HandState,
    Match,
    Options,
    OptionsError,
    match_deltas,
)
from bot.engine import actions as A
from bot.engine.cards import card_id
from bot.engine.options import option_choices
from tests.support.deals import arrange, assert_illegal, opts, play, quattro

# Italian numbers from the strongest to the weakest (§1.1).
ORDER40 = (1, 3, 10, 9, 8, 7, 6, 5, 4, 2)
POINTS40 = {1: 11, 3: 10, 10: 4, 9: 3, 8: 2, 7: 0, 6: 0, 5: 0, 4: 0, 2: 0}
D, C, S, B = range(4)

# How `run` chooses a move: (state, legal actions) -> action.
Pick = Callable[[HandState, list[int]], int]


# --------------------------------------------------------------------------- helpers


def run(s: HandState, pick: Pick | None = None) -> HandState:
    """Play to the end; `pick(state, legal)` chooses (first legal action by default)."""
    while not s.is_terminal():
        legal = s.legal_actions()
        s.apply(pick(s, legal) if pick else legal[0])
    return s


def rng_pick(seed: int) -> Pick:
    r = random.Random(seed)
    return lambda _s, legal: legal[r.randrange(len(legal))]


def finish_with(s: HandState, taken: list[int], won: list[int] | None = None) -> HandState:
    """Mark a hand finished with the given captured card points per seat."""
    s.taken = list(taken)
    s.won = list(won) if won is not None else [1 if p else 0 for p in taken]
    s.phase = OVER
    s.current = -1
    return s


def side_taken(options: Options, side_points: list[int]) -> list[int]:
    """Card points per seat such that each side's total is `side_points[side]`."""
    side_of = options.rules().side_of
    taken = [0] * len(side_of)
    for side, p in enumerate(side_points):
        taken[side_of.index(side)] = p
    return taken


def give(s: HandState, card: int, seat: int) -> None:
    """Chiamata: move `card` into `seat`'s hand, swapping one card back (sizes unchanged)."""
    holder = s.holder_of(card)
    if holder == seat:
        return
    other = next(c for c in s.hands[seat] if c != card)
    s.hands[holder][s.hands[holder].index(card)] = other
    s.hands[seat][s.hands[seat].index(other)] = card


def chiamata_call(
    variant: str = "chiamata",
    rank: int = 1,
    suit: int = D,
    partner: int | None = None,
    dealer: int = 0,
    seed: int = 0,
    **kw: object,
) -> HandState:
    """Deal chiamata; the first bidder (right of the dealer) calls `rank`, everyone else
    passes, the caller names `suit`. `partner` = the seat to hold the called card."""
    o = opts(variant, **kw)
    s = HandState.deal(o, seed, 0, dealer)
    n = s.n_players
    caller = (dealer + 1) % n
    if partner is not None:
        give(s, card_id(rank, suit), partner)
    s.apply(A.CALL_RANK + rank)
    for _ in range(n - 1):
        s.apply(A.PASS)
    assert s.phase == NAME_SUIT and s.caller == caller
    s.apply(A.NAME_SUIT + suit)
    assert s.phase == PLAY
    return s


# --------------------------------------------------------------------------- §1 the deck


def test_s1_1_forty_cards_four_suits_of_ten() -> None:
    """RULES §1.1: 40 cards, four suits (D C S B), ten cards per suit."""
    assert DECK40.size == 40
    assert sorted(DECK40.suit) == sorted([0] * 10 + [1] * 10 + [2] * 10 + [3] * 10)
    for suit in range(4):
        numbers = sorted(DECK40.number[c] for c in range(40) if DECK40.suit[c] == suit)
        assert numbers == list(range(1, 11))
    s = HandState.deal(opts("due"), 3)
    assert sorted(s.all_cards()) == list(range(40))


def test_s1_1_trick_power_order_asso_tre_re_cavallo_fante_7_6_5_4_2() -> None:
    """RULES §1.1: per suit Asso > Tre > Re > Cavallo > Fante > 7 > 6 > 5 > 4 > 2, checked in
    real tricks of a non-briscola suit, both playing orders, every pair of ranks."""
    for hi, lo in itertools.combinations(ORDER40, 2):  # hi is stronger than lo
        for first, second in ((hi, lo), (lo, hi)):
            s = arrange(
                opts("due"),
                hands=[f"{second}C 5S 6S", f"{first}C 5B 6B"],
                turned="4D",
                dealer=0,
            )
            assert s.current == 1
            play(s, f"{first}C", f"{second}C")
            expected = 1 if first == hi else 0
            assert s.tricks[0].winner == expected, (first, second)


def test_s1_2_card_points_and_deck_total() -> None:
    """RULES §1.2: Asso 11, Tre 10, Re 4, Cavallo 3, Fante 2, others 0; the deck holds 120."""
    for c in range(40):
        assert DECK40.points[c] == POINTS40[DECK40.number[c]]
    assert DECK40.total_points == 120
    s = arrange(opts("due"), hands=["3C 5S 6S", "1C 5B 6B"], turned="4D")
    play(s, "1C", "3C")
    assert s.tricks[0].points == 21
    assert s.taken == [0, 21]


def test_s1_3_default_deck_is_italian_and_southern_needs_french() -> None:
    """RULES §1.3: `deck` defaults to italian; `southern` exists only with the french deck."""
    assert opts("due").deck == "italian"
    assert opts("due", deck="french").rules().deck.points == DECK40.points
    with pytest.raises(OptionsError):
        opts("due", southern=True)
    with pytest.raises(OptionsError):
        opts("due", deck="italian", southern=True)


def test_s1_3_southern_jack_above_queen_in_rank_and_points() -> None:
    """RULES §1.3: southern: Jack (8) ranks and scores above Queen (9): Jack 3, Queen 2."""
    deck = opts("due", deck="french", southern=True).rules().deck
    jack, queen = card_id(8, C), card_id(9, C)
    assert deck.points[jack] == 3 and deck.points[queen] == 2
    assert deck.strength[jack] > deck.strength[queen]
    assert deck.total_points == 120
    # the rest of the order is unchanged: Ace, 3, King above both, 7 below both
    assert deck.strength[card_id(10, C)] > deck.strength[jack]
    assert deck.strength[queen] > deck.strength[card_id(7, C)]
    # in real play: the Jack takes the Queen under southern, not under the default order
    for o, winner in ((opts("due", deck="french", southern=True), 1), (opts("due"), 0)):
        s = arrange(o, hands=["9C 5S 6S", "8C 5B 6B"], turned="4D")
        play(s, "8C", "9C")
        assert s.tricks[0].winner == winner
        assert s.tricks[0].points == 5


def test_s1_4_tre_removes_one_random_two() -> None:
    """RULES §1.4: with 3 players one Two, chosen at random, leaves the deck; 120 points stay."""
    seen = set()
    for seed in range(40):
        s = HandState.deal(opts("tre"), seed)
        assert len(s.removed) == 1
        (two,) = s.removed
        assert DECK40.number[two] == 2
        seen.add(two)
        in_play = [c for h in s.hands for c in h] + s.talon + [s.turned]
        assert len(in_play) == 39 and two not in in_play
        assert sum(DECK40.points[c] for c in in_play) == 120
    assert len(seen) > 1  # random, not always the same Two


def test_s1_4_sei_removes_all_four_twos() -> None:
    """RULES §1.4, §5.4: with 6 players the four Twos leave the deck: 36 cards, 120 points."""
    for seed in range(5):
        s = HandState.deal(opts("sei"), seed)
        assert sorted(s.removed) == [card_id(2, suit) for suit in range(4)]
        in_play = [c for h in s.hands for c in h] + s.talon + [s.turned]
        assert len(in_play) == 36
        assert all(DECK40.number[c] != 2 for c in in_play)
        assert sum(DECK40.points[c] for c in in_play) == 120


# --------------------------------------------------------------------------- §2 tricks


def test_s2_1_briscola_is_the_turned_card_suit() -> None:
    """RULES §2.1: the suit of the turned card is the briscola."""
    for variant in ("due", "tre", "quattro", "sei", "scoperta", "coperta", "doppia"):
        for seed in range(5):
            s = HandState.deal(opts(variant), seed)
            assert s.turned >= 0
            assert s.briscola == s.rules.deck.suit[s.turned]


def test_s2_2_no_obligation_to_follow_suit_or_trump() -> None:
    """RULES §2.2: any card may be played, even holding the led suit and a briscola."""
    s = arrange(opts("due"), hands=["7C 1D 5S", "2C 6B 4S"], turned="4D")
    play(s, "2C")
    legal = s.legal_actions()
    assert sorted(legal) == sorted(DECK40.card(x) for x in ("7C", "1D", "5S"))
    play(s, "5S")  # neither follows nor trumps
    assert s.tricks[0].winner == 1


@pytest.mark.parametrize(
    ("hands", "cards", "winner", "points"),
    [
        ("1C 6S 6B / 2D 7S 7B / 10D 4S 4B / 5D 5S 5B", "1C 2D 10D 5D", 2, 15),
        ("4C 6S 6B / 7C 7S 7B / 1C 4S 4B / 3C 5S 5B", "4C 7C 1C 3C", 2, 21),
        ("2C 6S 6B / 1S 7S 7B / 1B 4S 4B / 3S 5S 5B", "2C 1S 1B 3S", 0, 32),
        ("7D 6S 6B / 1C 7S 7B / 3D 4S 4B / 2D 5S 5B", "7D 1C 3D 2D", 2, 21),
    ],
    ids=[
        "s2_3-highest-briscola-wins-over-led-suit",
        "s2_3-highest-of-led-suit-without-briscola",
        "s2_3-off-suit-never-wins-even-an-asso",
        "s2_3-led-briscola-highest-briscola-wins",
    ],
)
def test_s2_3_trick_winner(hands: str, cards: str, winner: int, points: int) -> None:
    """RULES §2.3 (briscola denari, seat 0 leads): the highest briscola played takes the
    trick, over any led-suit card; without briscole the highest card of the led suit wins; a
    card of another suit that is not briscola never wins, even an Asso; if the led suit is
    briscola, the highest briscola wins. The winner takes the trick's points."""
    s = quattro(*hands.split(" / "))
    assert s.current == 0
    play(s, *cards.split())
    assert s.tricks[0].winner == winner
    assert s.tricks[0].points == points
    assert s.taken[winner] == points


def test_s2_4_winner_takes_cards_and_leads_next() -> None:
    """RULES §2.4: the trick's winner takes its points and leads the next trick."""
    s = quattro("4C 6S 6B", "7C 7S 7B", "1C 4S 4B", "3C 5S 5B")
    play(s, "4C", "7C", "1C", "3C")
    assert s.current == 2 and s.leader == 2
    assert s.taken == [0, 0, 21, 0]
    for _ in range(10):
        before = len(s.tricks)
        while len(s.tricks) == before:
            s.apply(s.legal_actions()[0])
        w = s.tricks[-1].winner
        if s.is_terminal():
            break
        assert s.current == w and s.leader == w


def test_s2_5_counter_clockwise_is_increasing_seat_order() -> None:
    """RULES §2.5: play goes round in seat order starting with the leader."""
    for variant in ("due", "tre", "quattro", "sei", "briskula32"):
        s = run(HandState.deal(opts(variant), 11), rng_pick(1))
        n = s.n_players
        for t in s.tricks:
            assert t.seats == tuple((t.leader + i) % n for i in range(n))


# --------------------------------------------------------------------------- §3 dealing


def test_s3_1_first_dealer_random_then_rotates_counter_clockwise() -> None:
    """RULES §3.1: the first dealer is random (reproducible from the seed); the dealer then
    moves to the next seat each hand."""
    dealers = {Match(opts("quattro"), seed).dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert Match(opts("quattro"), "x").dealer == Match(opts("quattro"), "x").dealer
    m = Match(opts("quattro", match="fixed5"), 5, dealer=2)
    seen = []
    for i in range(3):
        seen.append(m.dealer)
        st = m.deal()
        assert st.dealer == m.dealer
        m.record(finish_with(st, side_taken(m.options, [70, 50] if i % 2 else [50, 70])))
    assert seen == [2, 3, 0]
    assert m.dealer == 1


@pytest.mark.parametrize(
    ("variant", "n", "talon"),
    [("due", 2, 33), ("tre", 3, 29), ("quattro", 4, 27), ("sei", 6, 17)],
)
def test_s3_2_three_cards_each_and_a_turned_card(variant: str, n: int, talon: int) -> None:
    """RULES §3.2: 3 cards each, the next card turned face up (the briscola), the rest the
    talon; the turned card lies under the talon."""
    for seed in range(3):
        s = HandState.deal(opts(variant), seed)
        assert s.n_players == n
        assert [len(h) for h in s.hands] == [3] * n
        assert len(s.talon) == talon
        assert s.turned >= 0 and s.turned not in s.talon
        assert s.talon_left() == talon + 1
        assert s.briscola == DECK40.suit[s.turned]


def test_s3_2_turned_card_is_the_last_card_drawn() -> None:
    """RULES §3.2: the turned briscola is drawn only after every talon card."""
    s = HandState.deal(opts("quattro"), 2)
    pick = rng_pick(2)
    while not s.is_terminal():
        if s.turned_to < 0:
            assert s.talon_left() >= 1
        s.apply(pick(s, s.legal_actions()))
        if s.turned_to >= 0:
            assert s.talon_pos == len(s.talon)
    assert s.turned_to >= 0


@pytest.mark.parametrize(
    "variant",
    ["due", "tre", "quattro", "sei", "scoperta", "coperta", "briscolone", "briskula32", "doppia"],
)
def test_s3_3_right_of_the_dealer_leads_first(variant: str) -> None:
    """RULES §3.3: the player to the right of the dealer (the next seat) leads the first
    trick; in two players, the non-dealer."""
    o = opts(variant)
    n = o.rules().n_players
    for dealer in range(n):
        s = HandState.deal(o, 9, 0, dealer)
        assert s.current == (dealer + 1) % n
        assert s.leader == (dealer + 1) % n
        if n == 2:
            assert s.current != dealer


def test_s3_4_winner_draws_first_then_playing_order() -> None:
    """RULES §3.4: after a trick the winner draws first, then the others in playing order."""
    for variant in ("due", "tre", "quattro", "sei"):
        s = HandState.deal(opts(variant), 21)
        n = s.n_players
        talon = list(s.talon)
        before = [list(h) for h in s.hands]
        for _ in range(n):
            s.apply(s.legal_actions()[-1])
        w = s.tricks[0].winner
        for i in range(n):
            seat = (w + i) % n
            new = [c for c in s.hands[seat] if c not in before[seat]]
            assert new == [talon[i]], (variant, seat)
        assert s.talon_pos == n


@pytest.mark.parametrize("variant", ["due", "tre", "quattro", "sei"])
def test_s3_4_turned_card_goes_to_the_last_drawer(variant: str) -> None:
    """RULES §3.4: the player who draws last when the talon runs out gets the turned card."""
    for seed in range(4):
        s = HandState.deal(opts(variant), seed)
        n = s.n_players
        pick = rng_pick(seed)
        while s.turned_to < 0:
            s.apply(pick(s, s.legal_actions()))
        w = s.tricks[-1].winner
        assert s.turned_to == (w + n - 1) % n
        assert s.turned in s.hands[s.turned_to]


def test_s3_5_no_drawing_once_the_talon_is_empty() -> None:
    """RULES §3.5: when the talon is empty the last tricks are played without drawing."""
    for variant in ("due", "quattro", "sei", "tre"):
        s = HandState.deal(opts(variant), 4)
        pick = rng_pick(4)
        while not s.talon_exhausted():
            s.apply(pick(s, s.legal_actions()))
        sizes = [len(h) for h in s.hands]
        assert len(set(sizes)) == 1 and sizes[0] == 3
        left = 3
        while not s.is_terminal():
            n_tricks = len(s.tricks)
            s.apply(pick(s, s.legal_actions()))
            if len(s.tricks) > n_tricks:
                left -= 1
                assert [len(h) for h in s.hands] == [left] * s.n_players
                assert s.talon_pos == len(s.talon)
        assert left == 0


def test_s3_6_retrump_never_turns_an_asso_or_tre() -> None:
    """RULES §3.6: with `retrump`, a turned Ace or Three goes back into the talon."""
    turned_carico_without = 0
    for seed in range(200):
        plain = HandState.deal(opts("due"), seed)
        if DECK40.number[plain.turned] in (1, 3):
            turned_carico_without += 1
            re = HandState.deal(opts("due", retrump=True), seed)
            assert DECK40.number[re.turned] not in (1, 3)
            assert plain.turned in re.talon  # shuffled back in
            assert sorted(re.all_cards()) == list(range(40))
        s = HandState.deal(opts("quattro", retrump=True), seed)
        assert DECK40.number[s.turned] not in (1, 3)
        assert s.briscola == DECK40.suit[s.turned]
    assert turned_carico_without > 0  # the option changes something
    assert opts("due").retrump is False


def test_s3_7_points_hidden_until_the_last_trick() -> None:
    """RULES §3.7: without `show_points` no card points are shown before the last trick;
    before the last trick a player sees their own (side's) captured points."""
    for variant in ("due", "quattro"):
        s = HandState.deal(opts(variant), 8)
        pick = rng_pick(8)
        side_of = s.rules.side_of
        while not s.is_terminal():
            last = s.talon_exhausted() and len(s.hands[s.current]) == 1 and not s.trick
            for seat in range(s.n_players):
                ob = s.observation(seat)
                assert ob.all_points is None
                in_hand = len(s.hands[seat]) + sum(1 for p, _ in ob.trick if p == seat)
                if s.talon_exhausted() and in_hand == 1:
                    own = sum(s.taken[x] for x in range(s.n_players) if side_of[x] == side_of[seat])
                    assert ob.my_points == own
                else:
                    assert ob.my_points is None
                assert "points" not in str(ob.to_dict()["tricks"])
            if last:
                assert s.observation(s.current).my_points is not None
            s.apply(pick(s, s.legal_actions()))
        assert s.observation(0).all_points == tuple(s.taken)


def test_s3_7_show_points_shows_the_running_count() -> None:
    """RULES §3.7: option `show_points` shows the running count at every step."""
    s = HandState.deal(opts("quattro", show_points=True), 8)
    pick = rng_pick(3)
    while not s.is_terminal():
        for seat in range(4):
            ob = s.observation(seat)
            assert ob.all_points == tuple(s.taken)
            assert ob.my_points == s.taken[seat % 2] + s.taken[seat % 2 + 2]
        s.apply(pick(s, s.legal_actions()))


# --------------------------------------------------------------------------- §4 scoring


def test_s4_1_sixty_one_wins_sixty_sixty_is_void() -> None:
    """RULES §4.1: at least 61 wins the hand; 60-60 is void."""
    o = opts("due")
    r = finish_with(HandState.deal(o, 1), [61, 59]).result()
    assert r.winning_sides == (0,) and not r.void and r.deltas == (1, -1)
    r = finish_with(HandState.deal(o, 1), [59, 61]).result()
    assert r.winning_sides == (1,) and r.deltas == (-1, 1)
    r = finish_with(HandState.deal(o, 1), [60, 60]).result()
    assert r.void and r.winning_sides == () and r.deltas == (0, 0)
    q = opts("quattro")
    r = finish_with(HandState.deal(q, 1), [30, 40, 30, 20]).result()
    assert r.side_points == (60, 60) and r.void


def test_s4_1_void_hand_replayed_with_same_dealer_results_kept() -> None:
    """RULES §4.1: a 60-60 hand is replayed with the same dealer; earlier results are kept."""
    m = Match(opts("due"), 3, dealer=0)
    m.record(finish_with(m.deal(), [70, 50]))
    assert m.dealer == 1 and m.hands_won == [1, 0]
    m.record(finish_with(m.deal(), [60, 60]))
    assert m.dealer == 1
    assert m.hands_won == [1, 0]
    assert m.side_points == [70, 50]
    nxt = m.deal()
    assert nxt.dealer == 1 and nxt.hand_index == 2


def test_s4_2_three_sides_top_scorer_wins_and_ties_for_first_are_void() -> None:
    """RULES §4.2: three sides: the top scorer wins; 40-40-40 and a tie for first are void."""
    o = opts("tre")
    r = finish_with(HandState.deal(o, 1), [50, 40, 30]).result()
    assert r.winning_sides == (0,) and not r.void
    assert sum(r.deltas) == 0 and r.deltas[0] > 0 and r.deltas[1:] == (-1, -1)
    r = finish_with(HandState.deal(o, 1), [20, 30, 70]).result()
    assert r.winning_sides == (2,)
    for taken in ([40, 40, 40], [50, 50, 20], [20, 50, 50], [55, 10, 55]):
        r = finish_with(HandState.deal(o, 1), taken).result()
        assert r.void and r.winning_sides == () and r.deltas == (0, 0, 0), taken
    # three pairs in six: sides are the pairs
    p = opts("sei", teams="pairs")
    r = finish_with(HandState.deal(p, 1), [20, 20, 20, 20, 20, 20]).result()
    assert r.side_points == (40, 40, 40) and r.void
    r = finish_with(HandState.deal(p, 1), [20, 30, 10, 20, 30, 10]).result()
    assert r.side_points == (40, 60, 20) and r.winning_sides == (1,)


def test_s4_2_void_three_sided_hand_replayed_same_dealer() -> None:
    """RULES §4.2 with §4.1: a void 40-40-40 hand is replayed; the dealer does not move."""
    m = Match(opts("tre"), 4, dealer=2)
    m.record(finish_with(m.deal(), [40, 40, 40]))
    assert m.dealer == 2 and m.counted_hands() == 0 and m.hands_won == [0, 0, 0]
    m.record(finish_with(m.deal(), [60, 30, 30]))
    assert m.dealer == 0 and m.hands_won == [1, 0, 0]


def play_match(m: Match, outcomes: list[list[int]]) -> list[bool]:
    """Record one hand per side-points list; returns `m.over` after each."""
    overs: list[bool] = []
    for sp in outcomes:
        assert not m.over
        m.record(finish_with(m.deal(), side_taken(m.options, sp)))
        overs.append(m.over)
    return overs


def test_s4_3_default_formats() -> None:
    """RULES §4.3: best5 by default except Briscolone (points121); Chiamata plays to target."""
    for variant in ("due", "tre", "quattro", "sei", "scoperta", "coperta", "briskula32", "doppia"):
        assert opts(variant).rules().match == "best5"
        assert Match(opts(variant), 1).format == "best5"
    assert opts("briscolone").rules().match == "points121"
    assert Match(opts("chiamata"), 1).format == "target"
    with pytest.raises(OptionsError):
        opts("chiamata", match="best3")
    for fmt in ("single", "best3", "best5", "points120", "points121", "points151", "fixed5"):
        assert opts("due", match=fmt).rules().match == fmt
        assert opts("briscolone", match=fmt).rules().match == fmt


def test_s4_3_single() -> None:
    """RULES §4.3: `single` is one hand."""
    m = Match(opts("due", match="single"), 1)
    assert play_match(m, [[50, 70]]) == [True]
    assert m.winner == 1


def test_s4_3_best3_first_to_two_hands() -> None:
    """RULES §4.3: `best3` ends when a side has won 2 hands."""
    m = Match(opts("due", match="best3"), 1)
    assert play_match(m, [[70, 50], [50, 70], [80, 40]]) == [False, False, True]
    assert m.winner == 0
    m = Match(opts("quattro", match="best3"), 1)
    assert play_match(m, [[50, 70], [50, 70]]) == [False, True]
    assert m.winner == 1


def test_s4_3_best5_first_to_three_hands() -> None:
    """RULES §4.3: `best5` (the default) ends when a side has won 3 hands."""
    m = Match(opts("due"), 1)
    assert play_match(m, [[70, 50], [50, 70], [70, 50], [50, 70], [50, 70]]) == [
        False,
        False,
        False,
        False,
        True,
    ]
    assert m.winner == 1
    m = Match(opts("tre"), 1)
    assert play_match(m, [[60, 30, 30]] * 3) == [False, False, True]
    assert m.winner == 0


def test_s4_3_points120_cumulative() -> None:
    """RULES §4.3: `points120`: cumulative card points, first side to reach 120."""
    m = Match(opts("due", match="points120"), 1)
    assert play_match(m, [[70, 50], [51, 69]]) == [False, True]
    assert m.side_points == [121, 119] and m.winner == 0


def test_s4_3_points121_and_points151() -> None:
    """RULES §4.3: `points121` and `points151`: first to reach 121 / 151 card points."""
    m = Match(opts("due", match="points121"), 1)
    assert play_match(m, [[61, 59], [70, 50]]) == [False, True]
    assert m.winner == 0 and m.side_points == [131, 109]
    m = Match(opts("due", match="points121"), 1)
    assert play_match(m, [[20, 100], [40, 80]]) == [False, True]
    assert m.winner == 1
    m = Match(opts("due", match="points151"), 1)
    assert play_match(m, [[70, 50], [70, 50], [70, 50]]) == [False, False, True]
    assert m.side_points == [210, 150] and m.winner == 0


def test_s4_3_fixed5_plays_exactly_five_hands() -> None:
    """RULES §4.3: `fixed5`: exactly 5 hands are played, even after 3 wins."""
    m = Match(opts("quattro", match="fixed5"), 1)
    assert play_match(m, [[70, 50]] * 3 + [[50, 70]] * 2) == [False] * 4 + [True]
    assert m.winner == 0 and m.hands_won == [3, 2]
    assert m.counted_hands() == 5


def test_s4_3_fixed5_three_sides_tie_for_most_hands_stands() -> None:
    """RULES §4.3 fixed5: exactly five counted hands; with three sides a tie for most hands
    won stands and the tied sides are all winners (paid per §10.2: +1 / +1 / -2)."""
    m = Match(opts("tre", match="fixed5"), 1)
    outcomes = [[60, 30, 30], [30, 60, 30], [60, 30, 30], [30, 60, 30], [30, 30, 60]]
    assert play_match(m, outcomes) == [False] * 4 + [True]
    assert m.hands_won == [2, 2, 1] and m.counted_hands() == 5
    assert m.winners == (0, 1) and m.winner == -1
    assert m.ledger_deltas() == (1, 1, -2)
    with pytest.raises(ValueError):
        m.deal()  # a sixth hand is never dealt
    # three pairs in six: each member of a side pays or receives the side's amount
    m = Match(opts("sei", match="fixed5"), 1)
    sides = [[60, 40, 20], [40, 60, 20], [20, 40, 60], [60, 20, 40], [20, 60, 40]]
    assert play_match(m, sides) == [False] * 4 + [True]
    assert m.hands_won == [2, 2, 1] and m.winners == (0, 1)
    assert m.ledger_deltas() == (1, 1, -2, 1, 1, -2)
    # a unique top still wins alone
    m = Match(opts("tre", match="fixed5"), 1)
    play_match(m, [[60, 30, 30]] * 3 + [[30, 60, 30], [30, 30, 60]])
    assert m.over and m.winners == (0,) and m.winner == 0 and m.ledger_deltas() == (2, -1, -1)


def test_s4_3_fixed5_four_single_players_tie_stands() -> None:
    """RULES §4.3 fixed5 with four single players (§9.1): five hands, a 2-2-1-0 tie stands and
    both leaders win; §10.2's general rule: each losing side pays 1 to each winning side."""
    m = Match(opts("briskula32", players=4, match="fixed5"), 2)
    outcomes = [[70, 20, 20, 10], [20, 70, 20, 10], [70, 20, 20, 10], [20, 70, 20, 10]]
    outcomes.append([20, 20, 70, 10])
    assert play_match(m, outcomes) == [False] * 4 + [True]
    assert m.hands_won == [2, 2, 1, 0] and m.winners == (0, 1)
    assert m.ledger_deltas() == (2, 2, -2, -2)


def test_s4_3_fixed5_tied_winners_survive_a_snapshot() -> None:
    """RULES §4.3: a fixed5 match that ended on a tie restores with all its winners; a snapshot
    from before tied winners (only "winner") still loads."""
    m = Match(opts("tre", match="fixed5"), 1)
    play_match(m, [[60, 30, 30], [30, 60, 30], [60, 30, 30], [30, 60, 30], [30, 30, 60]])
    back = Match.from_dict(m.to_dict())
    assert back == m and back.winners == (0, 1) and back.ledger_deltas() == (1, 1, -2)
    old = Match(opts("due", match="single"), 1)
    play_match(old, [[70, 50]])
    data = old.to_dict()
    del data["winners"]
    restored = Match.from_dict(data)
    assert restored.winners == (0,) and restored.winner == 0 and restored.ledger_deltas() == (1, -1)
    data = Match(opts("due"), 1).to_dict()
    del data["winners"]
    assert Match.from_dict(data).winners == () and not Match.from_dict(data).over


def test_s4_3_points_target_reached_by_both_sides_on_one_hand() -> None:
    """RULES §4.3: when two sides reach a points target on the same hand the higher total
    wins; equal totals play one more hand."""
    m = Match(opts("due", match="points151"), 1)
    assert play_match(m, [[70, 50], [50, 70], [40, 80]]) == [False, False, True]
    assert m.side_points == [160, 200] and m.winners == (1,)  # both past 151: 200 wins
    m = Match(opts("due", match="points120"), 1)
    assert play_match(m, [[59, 61], [61, 59]]) == [False, False]
    assert m.side_points == [120, 120]  # both reached it, equal: one more hand
    assert play_match(m, [[70, 50]]) == [True]
    assert m.side_points == [190, 170] and m.winners == (0,) and m.ledger_deltas() == (1, -1)
    m = Match(opts("quattro", match="points121"), 1)
    play_match(m, [[61, 59], [59, 61], [62, 58]])
    assert m.side_points == [182, 178] and m.winners == (0,)
    m = Match(opts("tre", match="points120"), 1)
    assert play_match(m, [[60, 50, 10], [50, 60, 10], [10, 60, 50]]) == [False, False, True]
    assert m.side_points == [120, 170, 70] and m.winners == (1,)  # 120 and 170 reached
    assert m.ledger_deltas() == (-1, 2, -1)


def test_s4_4_void_hands_never_count() -> None:
    """RULES §4.4: a void hand is not a played hand in any format."""
    m = Match(opts("due", match="fixed5"), 2)
    overs = play_match(m, [[70, 50], [60, 60], [70, 50], [60, 60], [50, 70], [70, 50]])
    assert overs == [False] * 6
    assert m.counted_hands() == 4
    assert play_match(m, [[50, 70]]) == [True]
    assert m.counted_hands() == 5 and len(m.records) == 7 and m.hands_won == [3, 2]
    m = Match(opts("due", match="single"), 2)
    assert play_match(m, [[60, 60], [60, 60], [61, 59]]) == [False, False, True]
    m = Match(opts("due", match="points120"), 2)
    play_match(m, [[60, 60], [60, 60]])
    assert m.side_points == [0, 0] and not m.over
    m = Match(opts("tre", match="best3"), 2)
    assert play_match(m, [[40, 40, 40], [50, 50, 20], [30, 60, 30], [30, 60, 30]]) == [
        False,
        False,
        False,
        True,
    ]
    assert m.hands_won == [0, 2, 0] and m.winner == 1


# --------------------------------------------------------------------------- §5 pairs


def test_s5_1_partners_opposite_and_pooled() -> None:
    """RULES §5.1: seats 0 and 2 against 1 and 3; their captured cards are pooled."""
    o = opts("quattro")
    assert o.rules().side_of == (0, 1, 0, 1)
    for seed in range(5):
        s = run(HandState.deal(o, seed), rng_pick(seed))
        r = s.result()
        assert r.side_points == (s.taken[0] + s.taken[2], s.taken[1] + s.taken[3])
        assert sum(r.side_points) == 120
        if not r.void:
            w = r.winning_sides[0]
            assert r.side_points[w] >= 61
            assert r.deltas == tuple(1 if seat % 2 == w else -1 for seat in range(4))


def test_s5_2_partner_hand_visible_only_after_talon() -> None:
    """RULES §5.2: once the talon is exhausted partners see each other's hands, never before;
    opponents never."""
    s = HandState.deal(opts("quattro"), 6)
    pick = rng_pick(6)
    saw = False
    while not s.is_terminal():
        for seat in range(4):
            ob = s.observation(seat)
            partner = (seat + 2) % 4
            if s.talon_exhausted():
                assert ob.visible_hands == {partner: tuple(s.hands[partner])}
                saw = True
            else:
                assert ob.visible_hands == {}
            assert (seat + 1) % 4 not in ob.visible_hands
            assert (seat + 3) % 4 not in ob.visible_hands
        s.apply(pick(s, s.legal_actions()))
    assert saw


def test_s5_3_signals_off_by_default() -> None:
    """RULES §5.3: without `signals` (Briscola muta) there are no signal actions."""
    s = quattro("1D 6S 6B", "3D 7S 7B", "10D 4S 4B", "9D 5S 5B")
    play(s, "6S", "7S", "4S", "5S")
    assert not any(a >= A.SIGNAL for a in s.legal_actions())
    assert_illegal(s, A.SIGNAL + 0)
    with pytest.raises(OptionsError):
        opts("due", signals=True)


def test_s5_3_signals_after_first_trick_to_partner_only() -> None:
    """RULES §5.3: after the first trick a player may signal a briscola they hold (Asso, Tre,
    Re, Cavallo, Fante); the signal reaches the partner only."""
    s = quattro("1D 7S 6B", "3D 6S 7B", "10D 4S 4B", "5D 5S 5B", signals=True)
    assert s.current == 0
    assert not any(a >= A.SIGNAL for a in s.legal_actions())  # not during the first trick
    assert_illegal(s, A.SIGNAL + 0)
    play(s, "7S", "6S", "4S", "5S")
    assert s.tricks[0].winner == 0 and s.current == 0
    legal = s.legal_actions()
    assert A.SIGNAL + 0 in legal  # holds the Asso di briscola
    assert A.SIGNAL + 1 not in legal  # does not hold the Tre
    assert_illegal(s, A.SIGNAL + 1)
    s.apply(A.SIGNAL + 0)
    assert s.current == 0  # a signal is not a card play
    assert A.SIGNAL + 0 not in s.legal_actions()  # once
    assert_illegal(s, A.SIGNAL + 0)
    assert s.observation(0).signals == ((0, 0),)
    assert s.observation(2).signals == ((0, 0),)
    assert s.observation(1).signals == ()
    assert s.observation(3).signals == ()
    # every seat is offered exactly the signals of the signal-worthy briscole it holds
    worthy = dict(zip(A.SIGNAL_NUMBERS, range(5), strict=True))
    for _ in range(3):
        seat = s.current
        expected = {
            A.SIGNAL + worthy[DECK40.number[c]]
            for c in s.hands[seat]
            if DECK40.suit[c] == D and DECK40.number[c] in worthy
        } - {A.SIGNAL + k for x, k in s.signals if x == seat}
        assert {a for a in s.legal_actions() if a >= A.SIGNAL} == expected
        s.apply(s.hands[seat][0])


def test_s5_4_sei_pairs_three_pairs_at_i_and_i_plus_3() -> None:
    """RULES §5.4: six players in 3 pairs (default): partners at seats i and i+3; 36 cards."""
    o = opts("sei")
    assert o.rules().side_of == (0, 1, 2, 0, 1, 2)
    assert opts("sei", teams="pairs").rules().side_of == (0, 1, 2, 0, 1, 2)
    s = run(HandState.deal(o, 3), rng_pick(3))
    r = s.result()
    assert len(r.side_points) == 3
    assert r.side_points == tuple(s.taken[i] + s.taken[i + 3] for i in range(3))
    assert sum(r.side_points) == 120 and len(s.tricks) == 6
    assert sorted(s.all_cards()) == list(range(40))


def test_s5_4_sei_threes_two_teams_alternate_seats() -> None:
    """RULES §5.4: `teams=threes`: 2 teams of three on alternate seats."""
    o = opts("sei", teams="threes")
    assert o.rules().side_of == (0, 1, 0, 1, 0, 1)
    s = run(HandState.deal(o, 3), rng_pick(3))
    r = s.result()
    assert r.side_points == (s.taken[0] + s.taken[2] + s.taken[4], sum(s.taken[1::2]))
    if not r.void:
        w = r.winning_sides[0]
        assert r.deltas == tuple(1 if seat % 2 == w else -1 for seat in range(6))
    with pytest.raises(ValueError):  # built directly: the model refuses it too
        Options(variant="sei", teams="none")
    with pytest.raises(OptionsError):
        opts("quattro", teams="threes")


def test_s5_4_sei_refuses_teams_none_with_the_reason() -> None:
    """RULES §5.4: sei plays in `pairs` or `threes`; `teams=none` is refused (it used to be read
    as "unset" and silently left in pairs), in the words of the option check, so the bot's
    /settings and the command line refuse it too. §9.1: briskula32 and doppia with 4 players
    still take `none` (each for themselves) or `pairs`."""
    for spelling in ("none", "None", "NONE"):
        with pytest.raises(OptionsError, match=r"sei is played in pairs or threes \(§5\.4\)"):
            opts("sei", teams=spelling)
    assert opts("sei", teams="pairs").rules().n_sides == 3
    assert opts("sei", teams="threes").rules().n_sides == 2
    assert opts("sei").rules().n_sides == 3  # pairs by default
    for variant in ("briskula32", "doppia"):
        alone = opts(variant, players=4, teams="none")
        assert alone.teams == "none" and alone.rules().side_of == (0, 1, 2, 3)
        assert opts(variant, players=4, teams="pairs").rules().side_of == (0, 1, 0, 1)
        assert opts(variant, players=2, teams="none").rules().side_of == (0, 1)
    assert opts("briskula32", players=3, teams="none").rules().side_of == (0, 1, 2)
    with pytest.raises(OptionsError, match=r"§5\.1"):
        opts("quattro", teams="none")  # quattro is always in pairs
    with pytest.raises(OptionsError, match="does not apply"):
        opts("due", teams="none")


def test_s5_4_sei_threes_teammates_visible_after_talon() -> None:
    """RULES §5.2 with §5.4: in threes every teammate's hand is visible after the talon."""
    s = HandState.deal(opts("sei", teams="threes"), 5)
    pick = rng_pick(5)
    while not s.talon_exhausted():
        assert s.observation(0).visible_hands == {}
        s.apply(pick(s, s.legal_actions()))
    ob = s.observation(0)
    assert set(ob.visible_hands) == {2, 4}


# --------------------------------------------------------------------------- §6 two players


def test_s6_1_scoperta_hands_and_next_talon_card_public() -> None:
    """RULES §6.1: scoperta: both hands and the talon's next card are public."""
    s = HandState.deal(opts("scoperta"), 7)
    pick = rng_pick(7)
    while not s.is_terminal():
        for seat in (0, 1):
            ob = s.observation(seat)
            other = 1 - seat
            assert ob.visible_hands == {other: tuple(s.hands[other])}
            if s.talon_pos < len(s.talon):
                assert ob.talon_next == s.talon[s.talon_pos]
            elif s.turned_to < 0:
                assert ob.talon_next == s.turned
            else:
                assert ob.talon_next == -1
        s.apply(pick(s, s.legal_actions()))
    # plain due shows neither
    ob = HandState.deal(opts("due"), 7).observation(0)
    assert ob.visible_hands == {} and ob.talon_next == -1


def test_s6_2_coperta_blind_play_by_position() -> None:
    """RULES §6.2: coperta: a player does not see their own cards and plays one by position."""
    s = HandState.deal(opts("coperta"), 7)
    seat = s.current
    ob = s.observation(seat)
    assert ob.hand == () and ob.visible_hands == {}
    assert ob.hand_sizes[seat] == 3
    assert s.legal_actions() == [A.BLIND + 0, A.BLIND + 1, A.BLIND + 2]
    card = s.hands[seat][1]
    assert_illegal(s, card)  # a card id cannot be chosen
    assert_illegal(s, A.BLIND + 3)
    s.apply(A.BLIND + 1)
    assert s.trick == [card]
    run(s, rng_pick(1))
    assert sum(s.taken) == 120


# --------------------------------------------------------------------------- §7 chiamata


def test_s7_1_chiamata_deals_all_forty_cards() -> None:
    """RULES §7.1: all 40 cards dealt, 8 each to 5 players (10 each to 4); no talon or turned
    card; the hand starts with the auction."""
    for variant, n, k in (("chiamata", 5, 8), ("chiamata4", 4, 10)):
        s = HandState.deal(opts(variant), 3)
        assert [len(h) for h in s.hands] == [k] * n
        assert s.talon == [] and s.turned == -1 and s.briscola == -1
        assert sorted(c for h in s.hands for c in h) == list(range(40))
        assert s.phase == AUCTION


def test_s7_2_auction_starts_right_of_dealer_any_first_rank() -> None:
    """RULES §7.2: the auction starts right of the dealer; the first call may be any rank."""
    for dealer in range(5):
        s = HandState.deal(opts("chiamata"), 1, 0, dealer)
        assert s.current == (dealer + 1) % 5
        legal = s.legal_actions()
        assert A.PASS in legal
        assert {a - A.CALL_RANK for a in legal if A.CALL_RANK <= a < A.BID_POINTS} == set(
            range(1, 11)
        )


def test_s7_2_each_call_strictly_lower() -> None:
    """RULES §7.2: each call must be a rank strictly lower than the last."""
    s = HandState.deal(opts("chiamata"), 1, 0, 0)
    s.apply(A.CALL_RANK + 10)  # Re
    ranks = {a - A.CALL_RANK for a in s.legal_actions() if A.CALL_RANK <= a < A.BID_POINTS}
    assert ranks == {9, 8, 7, 6, 5, 4, 2}
    for higher_or_same in (1, 3, 10):
        assert_illegal(s, A.CALL_RANK + higher_or_same)
    s.apply(A.CALL_RANK + 7)
    ranks = {a - A.CALL_RANK for a in s.legal_actions() if A.CALL_RANK <= a < A.BID_POINTS}
    assert ranks == {6, 5, 4, 2}
    assert_illegal(s, A.CALL_RANK + 8)


def test_s7_2_southern_auction_follows_southern_rank_order() -> None:
    """RULES §7.2 with §1.3: ranks are called strictly lower in trick power; with `southern`
    the Jack (8) ranks above the Queen (9), so after calling the Jack the Queen is lower and
    may be called, and after the Queen the Jack may not."""
    o = opts("chiamata", deck="french", southern=True)
    s = HandState.deal(o, 1, 0, 0)
    s.apply(A.CALL_RANK + 8)  # Jack
    assert A.CALL_RANK + 9 in s.legal_actions()  # Queen is lower under southern
    s2 = HandState.deal(o, 1, 0, 0)
    s2.apply(A.CALL_RANK + 9)  # Queen
    assert A.CALL_RANK + 8 not in s2.legal_actions()


def test_s7_2_pass_is_final() -> None:
    """RULES §7.2: a pass is final for that hand: the seat is skipped and cannot bid again."""
    s = HandState.deal(opts("chiamata"), 1, 0, 0)
    s.apply(A.CALL_RANK + 1)  # seat 1
    s.apply(A.PASS)  # seat 2
    s.apply(A.CALL_RANK + 3)  # seat 3
    s.apply(A.CALL_RANK + 10)  # seat 4
    s.apply(A.CALL_RANK + 9)  # seat 0
    assert s.current == 1
    s.apply(A.CALL_RANK + 8)  # seat 1
    assert s.current == 3  # seat 2 is skipped
    assert_illegal(s, A.CALL_RANK + 7, seat=2)
    assert_illegal(s, A.PASS, seat=2)
    for _ in range(12):
        if s.phase != AUCTION:
            break
        assert s.current != 2
        s.apply(A.PASS)


def test_s7_2_auction_start_dealer_left() -> None:
    """RULES §7.2 option `auction_start`: `dealer_right` (default) opens with the next seat
    after the dealer; `dealer_left` (seed 004) with the seat before it (§2.5), and the auction
    then goes round in playing order. The first trick's lead is §7.10's, not moved."""
    assert opts("chiamata").auction_start == "dealer_right"
    for variant, n in (("chiamata", 5), ("chiamata4", 4)):
        for dealer in range(n):
            assert HandState.deal(opts(variant), 1, 0, dealer).current == (dealer + 1) % n
            s = HandState.deal(opts(variant, auction_start="dealer_left"), 1, 0, dealer)
            left = (dealer - 1) % n
            assert s.phase == AUCTION and s.current == left
            s.apply(A.CALL_RANK + 10, left)
            assert s.current == (left + 1) % n  # round in playing order: the dealer next
    s = HandState.deal(opts("chiamata", auction_start="dealer_left"), 1, 0, 2)
    assert s.current == 1
    assert_illegal(s, A.PASS, seat=3)
    s.apply(A.CALL_RANK + 4)  # seat 1
    for _ in range(4):
        s.apply(A.PASS)  # 2, 3, 4, 0
    assert s.phase == NAME_SUIT and s.caller == 1
    s.apply(A.NAME_SUIT + D)
    assert s.leader == 3 and s.current == 3  # §7.10 lead=dealer_right: right of dealer 2
    s = HandState.deal(opts("chiamata", auction_start="dealer_left", auction="points"), 1, 0, 0)
    assert s.current == 4


def test_s7_2_first_must_call() -> None:
    """RULES §7.2 option `first_must_call` (seed 004 "deve chiamare"): the first player may
    not pass; the others may. Off by default. Everyone-passes (§7.4) can then never happen."""
    s = HandState.deal(opts("chiamata"), 1, 0, 0)
    assert opts("chiamata").first_must_call is False and A.PASS in s.legal_actions()
    for extra in ({}, {"auction_start": "dealer_left"}, {"carichi": True}):
        s = HandState.deal(opts("chiamata", first_must_call=True, **extra), 1, 0, 0)
        first = s.current
        legal = s.legal_actions()
        assert A.PASS not in legal
        assert {a - A.CALL_RANK for a in legal if A.CALL_RANK <= a < A.BID_POINTS} == set(
            range(1, 11)
        )
        assert (A.CARICHI in legal) == bool(extra.get("carichi"))
        assert_illegal(s, A.PASS)
        s.apply(A.CALL_RANK + 2)  # even the Two
        assert s.current != first and A.PASS in s.legal_actions()
        for _ in range(s.n_players - 1):
            s.apply(A.PASS)
        assert s.phase == NAME_SUIT and s.caller == first and s.target == 61
    s = HandState.deal(opts("chiamata4", first_must_call=True, auction="points"), 1, 0, 3)
    assert s.current == 0 and A.PASS not in s.legal_actions()
    assert min(s.legal_actions()) == A.BID_POINTS + 61
    s.apply(A.BID_POINTS + 61)
    assert A.PASS in s.legal_actions()
    for seed in range(20):  # random play never ends in an all-pass redeal
        s = run(HandState.deal(opts("chiamata", first_must_call=True), seed), rng_pick(seed))
        assert s.bids[0][1] != A.PASS and not s.result().redeal


def test_s7_2_auction_options_validated_per_variant() -> None:
    """RULES §7.2: `auction_start` and `first_must_call` exist only in chiamata; a bad value or
    another variant is refused with the reason."""
    for name, value in (("auction_start", "dealer_left"), ("first_must_call", True)):
        for variant in ("due", "quattro", "briscolone"):
            with pytest.raises(OptionsError, match="only in chiamata"):
                opts(variant, **{name: value})
        assert getattr(opts("chiamata4", **{name: value}), name) == value
    with pytest.raises(OptionsError, match="auction_start"):
        opts("chiamata", auction_start="dealer_opposite")
    with pytest.raises(OptionsError, match="first_must_call"):
        opts("chiamata", first_must_call="sometimes")


def test_s7_3_two_can_be_contended_by_points_62_to_120() -> None:
    """RULES §7.3: after a call of the Two the others bid points, strictly higher, from 62 up
    to 120."""
    s = HandState.deal(opts("chiamata"), 1, 0, 0)
    s.apply(A.CALL_RANK + 2)  # seat 1 calls the Two
    assert s.phase == AUCTION and s.current == 2
    legal = s.legal_actions()
    assert set(legal) == {A.PASS} | {A.BID_POINTS + p for p in range(62, 121)}
    assert_illegal(s, A.BID_POINTS + 61)
    assert_illegal(s, A.CALL_RANK + 2)
    s.apply(A.BID_POINTS + 65)
    assert_illegal(s, A.BID_POINTS + 65)
    assert_illegal(s, A.BID_POINTS + 64)
    s.apply(A.BID_POINTS + 120)
    assert s.legal_actions() == [A.PASS]


def test_s7_3_two_caller_may_raise() -> None:
    """RULES §7.3: every player who has not passed may raise, the Two's caller included."""
    s = HandState.deal(opts("chiamata"), 1, 0, 0)
    s.apply(A.CALL_RANK + 2)  # seat 1
    s.apply(A.BID_POINTS + 62)  # seat 2
    s.apply(A.PASS)  # seat 3
    s.apply(A.PASS)  # seat 4
    s.apply(A.PASS)  # seat 0
    assert s.phase == AUCTION and s.current == 1
    assert A.BID_POINTS + 63 in s.legal_actions()
    s.apply(A.BID_POINTS + 63)
    assert s.current == 2
    s.apply(A.PASS)
    assert s.phase == NAME_SUIT and s.caller == 1 and s.target == 63


def test_s7_3_overbid_off_the_two_ends_the_auction() -> None:
    """RULES §7.3: with `overbid` off, calling the Two ends the auction at once (target 61)."""
    assert opts("chiamata").overbid is True
    s = HandState.deal(opts("chiamata", overbid=False), 1, 0, 0)
    s.apply(A.CALL_RANK + 5)
    s.apply(A.CALL_RANK + 2)  # seat 2
    assert s.phase == NAME_SUIT and s.caller == 2 and s.current == 2 and s.target == 61
    s.apply(A.NAME_SUIT + S)
    assert s.called_card == card_id(2, S)


def test_s7_3_two_caller_raises_false_the_two_caller_only_passes() -> None:
    """RULES §7.3 option `two_caller_raises=false`: once someone bids points over their Two,
    the Two's caller makes no points bid: on their turns they can only pass. The others still
    raise. Default `true` (test_s7_3_two_caller_may_raise)."""
    assert opts("chiamata").two_caller_raises is True
    s = HandState.deal(opts("chiamata", two_caller_raises=False), 1, 0, 0)
    s.apply(A.CALL_RANK + 6)  # seat 1
    s.apply(A.CALL_RANK + 2)  # seat 2 calls the Two
    s.apply(A.BID_POINTS + 62)  # seat 3
    s.apply(A.PASS)  # seat 4
    assert s.current == 0 and A.BID_POINTS + 63 in s.legal_actions()
    s.apply(A.BID_POINTS + 63)  # seat 0
    assert s.current == 1
    s.apply(A.BID_POINTS + 64)  # seat 1, who called a rank before the Two, may raise
    assert s.current == 2
    assert s.legal_actions() == [A.PASS]
    assert_illegal(s, A.BID_POINTS + 65)
    s.apply(A.PASS)  # seat 2
    assert s.current == 3 and A.BID_POINTS + 65 in s.legal_actions()
    s.apply(A.PASS)
    s.apply(A.PASS)  # seat 0
    assert s.phase == NAME_SUIT and s.caller == 1 and s.target == 64
    # if nobody contends the Two, its caller is the chiamante at 61
    s = HandState.deal(opts("chiamata4", two_caller_raises=False), 1, 0, 0)
    s.apply(A.CALL_RANK + 2)
    for _ in range(3):
        s.apply(A.PASS)
    assert s.phase == NAME_SUIT and s.caller == 1 and s.target == 61


def test_s7_3_two_caller_raises_validated() -> None:
    """RULES §7.3: `two_caller_raises=false` needs the rank auction's overbid; with
    overbid=false or auction=points it is refused with the reason; only in chiamata."""
    with pytest.raises(OptionsError, match="overbid"):
        opts("chiamata", overbid=False, two_caller_raises=False)
    with pytest.raises(OptionsError, match="auction=points"):
        opts("chiamata", auction="points", two_caller_raises=False)
    with pytest.raises(OptionsError, match="only in chiamata"):
        opts("sei", two_caller_raises=False)
    assert opts("chiamata", overbid=False, two_caller_raises=True).two_caller_raises


def test_s7_4_auction_ends_when_all_but_one_passed() -> None:
    """RULES §7.4: the auction ends when all but one have passed; the last caller is the
    caller with target 61 (or their points bid)."""
    s = HandState.deal(opts("chiamata"), 1, 0, 0)
    s.apply(A.CALL_RANK + 10)  # seat 1
    s.apply(A.CALL_RANK + 9)  # seat 2
    for _ in range(3):
        s.apply(A.PASS)  # 3, 4, 0
    assert s.phase == AUCTION and s.current == 1
    s.apply(A.PASS)
    assert s.phase == NAME_SUIT and s.caller == 2 and s.target == 61 and s.current == 2
    s = HandState.deal(opts("chiamata"), 1, 0, 0)
    for _ in range(4):
        s.apply(A.PASS)  # 1, 2, 3, 4
    assert s.phase == AUCTION and s.current == 0  # the last one still gets to speak
    s.apply(A.CALL_RANK + 1)
    assert s.phase == NAME_SUIT and s.caller == 0


def test_s7_4_all_pass_redeal_by_next_dealer() -> None:
    """RULES §7.4: if every player passes, the hand is dealt again by the next dealer."""
    m = Match(opts("chiamata"), 5, dealer=3)
    s = m.deal()
    for _ in range(5):
        s.apply(A.PASS)
    assert s.is_terminal()
    r = s.result()
    assert r.redeal and r.deltas == (0,) * 5
    m.record(s)
    assert m.dealer == 4 and m.hand_index == 1 and m.scores == [0] * 5 and not m.over
    nxt = m.deal()
    assert nxt.dealer == 4 and nxt.current == 0


def test_s7_5_caller_names_suit_sets_briscola_and_called_card() -> None:
    """RULES §7.5: the caller names the suit: the called card is rank+suit, its suit briscola."""
    for suit in range(4):
        s = HandState.deal(opts("chiamata"), 2, 0, 0)
        s.apply(A.CALL_RANK + 9)
        for _ in range(4):
            s.apply(A.PASS)
        assert s.legal_actions() == [A.NAME_SUIT + x for x in range(4)]
        s.apply(A.NAME_SUIT + suit)
        assert s.called_card == card_id(9, suit)
        assert s.briscola == suit
        assert s.partner == s.holder_of(card_id(9, suit))
        assert s.phase == PLAY


def test_s7_6_partner_hidden_until_called_card_played() -> None:
    """RULES §7.6: nobody but the partner knows the partner until the called card is played;
    then everyone does."""
    s = chiamata_call(rank=1, suit=C, partner=3)
    called = card_id(1, C)
    assert s.called_card == called and s.partner == 3
    while s.reveal_trick < 0:
        for seat in (*range(5), SPECTATOR):
            ob = s.observation(seat)
            if seat == 3:
                assert ob.partner == 3
            else:
                assert ob.partner == -1 and not ob.partner_revealed
        legal = s.legal_actions()
        if s.current == 3:  # the partner keeps the called card for three tricks
            a = called if len(s.tricks) >= 3 else next(x for x in legal if x != called)
        else:
            a = legal[0]
        s.apply(a)
    assert called in s.trick or called in s.tricks[-1].cards
    for seat in (*range(5), SPECTATOR):
        ob = s.observation(seat)
        assert ob.partner == 3 and ob.partner_revealed


def test_s7_6_observation_does_not_depend_on_who_is_partner() -> None:
    """RULES §7.6: before the called card is played, a non-partner seat's observation is
    identical whichever other seat holds it (no hint in any message it can see)."""
    s = chiamata_call(rank=3, suit=B, partner=2)
    run_steps = 0
    called = s.called_card
    while run_steps < 12:
        legal = s.legal_actions()
        s.apply(next(a for a in reversed(legal) if a != called))
        run_steps += 1
    assert s.reveal_trick < 0 and s.holder_of(called) == 2
    for viewer in (*range(5), SPECTATOR):
        if viewer == 2:
            continue
        for other in range(5):
            if other in (viewer, 2) or len(s.hands[other]) != len(s.hands[2]):
                continue
            alt = s.clone()
            alt.hands[2], alt.hands[other] = alt.hands[other], alt.hands[2]
            alt.partner = alt.holder_of(called)
            assert alt.partner == other
            assert alt.observation(viewer).to_dict() == s.observation(viewer).to_dict()


def test_s7_7_calling_own_card_plays_alone() -> None:
    """RULES §7.7: if the caller holds the called card they play alone against four."""
    s = chiamata_call(rank=1, suit=S, partner=1)
    assert s.caller == 1 and s.partner == 1
    assert s.observation(1).partner == 1
    assert s.observation(0).partner == -1
    r = finish_with(s, [0, 70, 20, 20, 10]).result()
    assert r.side_points == (70, 50) and r.deltas == (-1, 4, -1, -1, -1)


def test_s7_8_carichi() -> None:
    """RULES §7.8: with `carichi` a player may call "carichi": the auction ends, they play
    alone and there is no briscola suit."""
    s = HandState.deal(opts("chiamata"), 1, 0, 0)
    assert A.CARICHI not in s.legal_actions()
    assert_illegal(s, A.CARICHI)
    s = HandState.deal(opts("chiamata", carichi=True), 1, 0, 0)
    s.apply(A.CALL_RANK + 7)
    assert A.CARICHI in s.legal_actions()
    s.apply(A.CARICHI)  # seat 2
    assert s.phase == PLAY and s.caller == 2 and s.partner == 2 and s.carichi
    assert s.briscola == -1
    # no briscola: the highest card of the led suit wins, whatever else is played
    lead = s.current
    first = s.hands[lead][0]
    s.apply(first)
    for _ in range(4):
        s.apply(s.legal_actions()[0])
    t = s.tricks[0]
    same = [(seat, c) for seat, c in t.plays if DECK40.suit[c] == DECK40.suit[first]]
    assert t.winner == max(same, key=lambda p: DECK40.strength[p[1]])[0]
    run(s, rng_pick(2))
    r = s.result()
    assert r.deltas[2] in (4, -4, 8, -8)
    assert sum(r.deltas) == 0
    with pytest.raises(OptionsError):
        opts("chiamata", auction="points", carichi=True)


def test_s7_8_carichi_mode_continues() -> None:
    """RULES §7.8 option `carichi_mode=continues`: carichi is one more step of the auction,
    below the last rank named; the others may go on calling ranks lower than the last one
    named (not over carichi again); if carichi stands its caller plays alone without
    briscola."""
    o = opts("chiamata", carichi=True, carichi_mode="continues")
    s = HandState.deal(o, 1, 0, 0)
    s.apply(A.CALL_RANK + 10)  # seat 1: Re
    s.apply(A.CARICHI)  # seat 2
    assert s.phase == AUCTION and s.current == 3 and not s.carichi and s.caller == -1
    legal = s.legal_actions()
    assert A.CARICHI not in legal  # not over a standing carichi
    assert_illegal(s, A.CARICHI)
    assert {a - A.CALL_RANK for a in legal if A.CALL_RANK <= a < A.BID_POINTS} == {
        9,
        8,
        7,
        6,
        5,
        4,
        2,
    }  # lower than the Re, the last rank named
    assert_illegal(s, A.CALL_RANK + 10)
    s.apply(A.CALL_RANK + 7)  # seat 3 goes on below the Re
    assert A.CARICHI in s.legal_actions()  # carichi may come again below the 7
    for _ in range(4):
        s.apply(A.PASS)  # 4, 0, 1, 2
    assert s.phase == NAME_SUIT and s.caller == 3 and not s.carichi
    # carichi stands: alone, no briscola, target 61
    s = HandState.deal(o, 1, 0, 0)
    s.apply(A.CALL_RANK + 10)  # seat 1
    s.apply(A.CARICHI)  # seat 2
    for _ in range(4):
        s.apply(A.PASS)  # 3, 4, 0, 1
    assert s.phase == PLAY and s.caller == 2 and s.partner == 2 and s.carichi
    assert s.briscola == -1 and s.called_card == -1 and s.target == 61
    assert s.current == 1  # §7.10 lead=dealer_right
    r = finish_with(s, [10, 20, 70, 10, 10]).result()
    assert r.deltas == (-1, -1, 4, -1, -1)
    # a first call of carichi, and the Two after it leads to the points overbid (§7.3)
    s = HandState.deal(o, 1, 0, 0)
    s.apply(A.CARICHI)  # seat 1
    s.apply(A.CALL_RANK + 2)  # seat 2
    assert s.phase == AUCTION and A.BID_POINTS + 62 in s.legal_actions()
    assert A.CARICHI not in s.legal_actions()
    # `ends` (the default) still ends the auction at once
    assert opts("chiamata", carichi=True).carichi_mode == "ends"
    s = HandState.deal(opts("chiamata", carichi=True, carichi_mode="ends"), 1, 0, 0)
    s.apply(A.CALL_RANK + 10)
    s.apply(A.CARICHI)
    assert s.phase == PLAY and s.caller == 2 and s.carichi


def test_s7_8_carichi_mode_validated() -> None:
    """RULES §7.8: `carichi_mode=continues` needs carichi=true (refused with the reason);
    only in chiamata; unknown values refused."""
    with pytest.raises(OptionsError, match="carichi=true"):
        opts("chiamata", carichi_mode="continues")
    with pytest.raises(OptionsError, match="carichi=true"):
        opts("chiamata4", auction="points", carichi_mode="continues")
    with pytest.raises(OptionsError, match="only in chiamata"):
        opts("due", carichi_mode="ends")
    with pytest.raises(OptionsError, match="carichi_mode"):
        opts("chiamata", carichi=True, carichi_mode="sometimes")
    assert opts("chiamata4", carichi=True, carichi_mode="continues").rules().carichi_mode == (
        "continues"
    )


def test_s7_9_points_auction_then_call_any_card() -> None:
    """RULES §7.9: `auction=points`: bids are targets 61..120, each higher than the last; the
    winner calls any card, whose suit is briscola; the target is the winning bid."""
    s = HandState.deal(opts("chiamata", auction="points"), 1, 0, 0)
    assert set(s.legal_actions()) == {A.PASS} | {A.BID_POINTS + p for p in range(61, 121)}
    assert_illegal(s, A.BID_POINTS + 60)
    assert_illegal(s, A.CALL_RANK + 1)
    s.apply(A.BID_POINTS + 61)
    s.apply(A.BID_POINTS + 70)
    assert_illegal(s, A.BID_POINTS + 70)
    s.apply(A.PASS)
    s.apply(A.PASS)
    s.apply(A.PASS)
    assert s.current == 1
    s.apply(A.PASS)
    assert s.phase == CALL_CARD and s.caller == 2 and s.target == 70
    assert s.legal_actions() == [A.CALL_CARD + c for c in range(40)]
    card = s.hands[4][0]
    s.apply(A.CALL_CARD + card)
    assert s.called_card == card and s.briscola == DECK40.suit[card] and s.partner == 4
    assert s.phase == PLAY


def test_s7_10_lead_option() -> None:
    """RULES §7.10: `lead=dealer_right` (default): right of the dealer leads the first trick;
    `lead=caller`: the caller leads."""
    s = HandState.deal(opts("chiamata"), 1, 0, 2)
    s.apply(A.PASS)  # seat 3
    s.apply(A.CALL_RANK + 4)  # seat 4
    for _ in range(3):
        s.apply(A.PASS)
    s.apply(A.NAME_SUIT + D)
    assert s.current == 3 and s.leader == 3
    s = HandState.deal(opts("chiamata", lead="caller"), 1, 0, 2)
    s.apply(A.PASS)
    s.apply(A.CALL_RANK + 4)
    for _ in range(3):
        s.apply(A.PASS)
    s.apply(A.NAME_SUIT + D)
    assert s.current == 4 and s.leader == 4
    s = HandState.deal(opts("chiamata", lead="caller", carichi=True), 1, 0, 2)
    s.apply(A.CALL_RANK + 3)  # seat 3
    s.apply(A.CARICHI)  # seat 4
    assert s.phase == PLAY and s.caller == 4 and s.current == 4


def test_s7_11_sixty_with_target_61_loses() -> None:
    """RULES §7.11: the caller's side wins if its card points reach the target: 60 loses."""
    s = chiamata_call(rank=1, suit=D, partner=3)
    r = finish_with(s.clone(), [20, 30, 10, 30, 30]).result()
    assert r.side_points == (60, 60) and r.winning_sides == (1,) and not r.void
    assert r.deltas == (1, -2, 1, -1, 1)
    r = finish_with(s.clone(), [20, 31, 10, 30, 29]).result()
    assert r.side_points == (61, 59) and r.winning_sides == (0,)
    assert r.deltas == (-1, 2, -1, 1, -1)


def test_s7_11_target_from_points_overbid() -> None:
    """RULES §7.11, §7.4: after "Due a 64" the caller's side needs 64: 63 loses, 64 wins."""
    s = HandState.deal(opts("chiamata"), 1, 0, 0)
    s.apply(A.CALL_RANK + 2)  # seat 1
    s.apply(A.BID_POINTS + 64)  # seat 2
    for _ in range(4):
        s.apply(A.PASS)
    assert s.caller == 2 and s.target == 64
    give(s, card_id(2, C), 4)
    s.apply(A.NAME_SUIT + C)
    assert s.partner == 4
    r = finish_with(s.clone(), [20, 17, 33, 20, 30]).result()
    assert r.side_points == (63, 57) and r.winning_sides == (1,)
    assert r.deltas == (1, 1, -2, 1, -1)
    r = finish_with(s.clone(), [20, 16, 33, 20, 31]).result()
    assert r.side_points == (64, 56) and r.winning_sides == (0,)
    assert r.deltas == (-1, -1, 2, -1, 1)


def test_s7_12_caller_with_partner() -> None:
    """RULES §7.12: caller with a partner wins: +2, +1, -1 x3; loses: the reverse."""
    s = chiamata_call(rank=10, suit=S, partner=4)
    assert (s.caller, s.partner) == (1, 4)
    r = finish_with(s.clone(), [10, 40, 20, 10, 40]).result()
    assert r.deltas == (-1, 2, -1, -1, 1) and not r.cappotto
    r = finish_with(s.clone(), [30, 20, 30, 20, 20]).result()
    assert r.deltas == (1, -2, 1, 1, -1) and not r.cappotto


def test_s7_12_caller_alone() -> None:
    """RULES §7.12: caller alone wins: +4, -1 x4; loses: the reverse."""
    s = chiamata_call(rank=10, suit=S, partner=1)
    r = finish_with(s.clone(), [10, 80, 10, 10, 10]).result()
    assert r.deltas == (-1, 4, -1, -1, -1)
    r = finish_with(s.clone(), [30, 40, 20, 20, 10]).result()
    assert r.deltas == (1, -4, 1, 1, 1)


def test_s7_12_cappotto_doubles() -> None:
    """RULES §7.12: cappotto (the losing side ended with 0 card points) doubles the scores."""
    s = chiamata_call(rank=10, suit=S, partner=4)
    r = finish_with(s.clone(), [0, 60, 0, 0, 60]).result()
    assert r.cappotto and r.deltas == (-2, 4, -2, -2, 2)
    r = finish_with(s.clone(), [40, 0, 40, 40, 0]).result()
    assert r.cappotto and r.deltas == (2, -4, 2, 2, -2)
    alone = chiamata_call(rank=10, suit=S, partner=1)
    r = finish_with(alone.clone(), [0, 120, 0, 0, 0]).result()
    assert r.cappotto and r.deltas == (-2, 8, -2, -2, -2)
    r = finish_with(alone.clone(), [30, 0, 30, 30, 30]).result()
    assert r.cappotto and r.deltas == (2, -8, 2, 2, 2)


def test_s7_12_cappotto_zero_points_vs_all_tricks() -> None:
    """RULES §7.12: `cappotto=zero_points` (default) counts 0 card points even with tricks
    taken; `cappotto=all_tricks` needs the losers to have taken no trick."""
    # defenders took one trick worth 0 points
    won = [1, 5, 0, 0, 2]
    s = chiamata_call(rank=10, suit=S, partner=4)
    r = finish_with(s, [0, 60, 0, 0, 60], won).result()
    assert r.cappotto and r.deltas == (-2, 4, -2, -2, 2)
    s = chiamata_call(rank=10, suit=S, partner=4, cappotto="all_tricks")
    r = finish_with(s, [0, 60, 0, 0, 60], won).result()
    assert not r.cappotto and r.deltas == (-1, 2, -1, -1, 1)
    s = chiamata_call(rank=10, suit=S, partner=4, cappotto="all_tricks")
    r = finish_with(s, [0, 60, 0, 0, 60], [0, 6, 0, 0, 2]).result()
    assert r.cappotto and r.deltas == (-2, 4, -2, -2, 2)


def test_s7_12_four_player_form() -> None:
    """RULES §7.12: 4-player form: caller and partner +1 each, the two others -1; alone:
    +3, -1 x3; reversed on a loss; doubled by cappotto."""
    s = chiamata_call("chiamata4", rank=1, suit=D, partner=3)
    assert (s.caller, s.partner) == (1, 3)
    assert finish_with(s.clone(), [20, 40, 20, 40]).result().deltas == (-1, 1, -1, 1)
    assert finish_with(s.clone(), [40, 30, 20, 30]).result().deltas == (1, -1, 1, -1)
    assert finish_with(s.clone(), [0, 60, 0, 60]).result().deltas == (-2, 2, -2, 2)
    alone = chiamata_call("chiamata4", rank=1, suit=D, partner=1)
    assert finish_with(alone.clone(), [20, 70, 20, 10]).result().deltas == (-1, 3, -1, -1)
    assert finish_with(alone.clone(), [20, 50, 30, 20]).result().deltas == (1, -3, 1, 1)
    assert finish_with(alone.clone(), [0, 120, 0, 0]).result().deltas == (-2, 6, -2, -2)


def test_s7_12_scores_zero_sum() -> None:
    """RULES §7.12: zero-sum in every case (real random hands of both forms)."""
    for variant in ("chiamata", "chiamata4"):
        for seed in range(30):
            s = run(HandState.deal(opts(variant), seed), rng_pick(seed))
            r = s.result()
            assert sum(r.deltas) == 0
            if not r.redeal:
                assert sum(r.card_points) == 120


def test_s7_13_game_to_eleven() -> None:
    """RULES §7.13: a game ends when a player reaches the target score (default 11)."""
    assert opts("chiamata").target == 11
    m = Match(opts("chiamata"), 1, dealer=0)
    for i in range(3):
        s = m.deal()
        s.caller = s.partner = 1  # seat 1 calls alone and wins each time: +4
        s.target = 61
        m.record(finish_with(s, [0, 61, 59, 0, 0]))
        assert m.scores[1] == 4 * (i + 1)
        assert m.over == (i == 2)
    assert sum(m.scores) == 0
    top = max(m.scores)
    assert top >= 11 and m.winner == m.scores.index(top)
    assert m.ledger_deltas() == tuple(m.scores)
    with pytest.raises(ValueError):
        m.deal()


def test_s7_13_custom_and_open_target() -> None:
    """RULES §7.13: option `target`; 0 is an open league that never ends."""
    for target, over_after in ((4, 1), (8, 2), (0, None)):
        m = Match(opts("chiamata", target=target), 2, dealer=0)
        for i in range(4):
            s = m.deal()
            s.caller = s.partner = 1
            s.target = 61
            m.record(finish_with(s, [0, 100, 20, 0, 0]))
            assert m.over == (over_after is not None and i + 1 >= over_after)
            if m.over:
                assert m.winner == 1
                break
        assert m.over == (over_after is not None)
    with pytest.raises(OptionsError):
        opts("chiamata", target=-1)
    with pytest.raises(OptionsError):
        opts("due", target=11)


def test_s7_13_several_players_reach_the_target_on_one_hand() -> None:
    """RULES §7.13: when several players reach the target on the same hand the highest score
    wins; equal highest scores play one more hand."""

    def hand(m: Match, caller: int, partner: int, taken: list[int]) -> None:
        s = m.deal()
        s.caller, s.partner, s.target = caller, partner, 61
        m.record(finish_with(s, taken))

    m = Match(opts("chiamata", target=4), 1, dealer=0)
    hand(m, 1, 2, [0, 40, 30, 25, 25])  # caller 1 and partner 2 win: +2 / +1
    hand(m, 2, 1, [0, 30, 40, 25, 25])  # roles swapped: seats 1 and 2 at 3 each
    assert m.scores == [-2, 3, 3, -2, -2] and not m.over
    hand(m, 3, 4, [40, 40, 30, 10, 0])  # 3 and 4 lose: seats 1 and 2 both reach 4
    assert m.scores == [-1, 4, 4, -4, -3] and not m.over  # equal highest: one more hand
    hand(m, 1, 1, [10, 70, 20, 10, 10])  # seat 1 alone wins: +4
    assert m.scores == [-2, 8, 3, -5, -4] and m.over and m.winners == (1,) and m.winner == 1
    m = Match(opts("chiamata", target=4), 1, dealer=0)
    hand(m, 1, 2, [0, 40, 30, 25, 25])
    hand(m, 2, 1, [0, 30, 40, 25, 25])
    hand(m, 1, 2, [0, 40, 30, 25, 25])  # seat 1 at 5, seat 2 at 4: both reached, 5 wins
    assert m.scores == [-3, 5, 4, -3, -3] and m.over and m.winner == 1


def _chiamata_hand(m: Match, caller: int, partner: int, won: bool) -> None:
    """Record one chiamata hand of `m`: `caller` (with `partner`, or alone when they are the
    same seat) wins or loses it with card points on both sides (no cappotto, §7.12)."""
    s = m.deal()
    s.caller, s.partner, s.target = caller, partner, 61
    side = {caller, partner}
    ours = 70 if won else 50
    taken = [0] * s.n_players
    taken[caller] = ours - (10 if partner != caller else 0)
    if partner != caller:
        taken[partner] = 10
    others = [x for x in range(s.n_players) if x not in side]
    for i, x in enumerate(others):
        taken[x] = (120 - ours) // len(others) + (1 if i < (120 - ours) % len(others) else 0)
    m.record(finish_with(s, taken))


def _redeal(m: Match) -> None:
    """Record an all-pass chiamata hand (§7.4): dealt again by the next dealer, void."""
    s = m.deal()
    for _ in range(s.n_players):
        s.apply(A.PASS)
    assert s.result().redeal
    m.record(s)


def test_s7_13_target_seven_ends_at_seven() -> None:
    """RULES §7.13: `target` 7 ends the game when a player reaches 7."""
    m = Match(opts("chiamata", target=7), 3, dealer=0)
    _chiamata_hand(m, 1, 1, won=True)  # seat 1 alone: +4
    _chiamata_hand(m, 1, 2, won=True)  # seat 1 caller: +2
    assert m.scores[1] == 6 and not m.over
    _chiamata_hand(m, 2, 1, won=True)  # seat 1 partner: +1
    assert m.scores[1] == 7 and m.over and m.winner == 1
    assert m.counted_hands() == 3 and m.format == "target"


def test_s7_13_target_twenty_one() -> None:
    """RULES §7.13: `target` 21 plays on past 11 and ends when a player reaches 21."""
    m = Match(opts("chiamata", target=21), 3, dealer=0)
    for _ in range(5):
        _chiamata_hand(m, 1, 1, won=True)  # +4 a hand
    assert m.scores[1] == 20 and not m.over
    _chiamata_hand(m, 1, 1, won=True)
    assert m.scores[1] == 24 and m.over and m.winner == 1


def test_s7_13_target_choices_are_seven_eleven_twenty_one_and_open() -> None:
    """RULES §7.13: `target` 7, 11 or 21 (default 11); 0 is an open league."""
    assert option_choices("target") == ("7", "11", "21", "0")
    assert Options.parse("chiamata").target == 11
    for value in option_choices("target"):
        assert Options.parse("chiamata", {"target": value}).target == int(value)


@pytest.mark.parametrize(
    ("variant", "hands"), [("chiamata", 5), ("chiamata", 10), ("chiamata4", 4), ("chiamata4", 8)]
)
def test_s7_13_fixed_hands_end_after_exactly_that_many_counted_hands(
    variant: str, hands: int
) -> None:
    """RULES §7.13: option `hands` ends the game after that many counted hands, the highest
    score winning; `target` does not apply (seat 1 passes 11 long before)."""
    m = Match(opts(variant, hands=hands), 4, dealer=0)
    assert m.format == "hands" and m.rules.hands == hands
    for k in range(hands):
        assert not m.over
        _chiamata_hand(m, 1, 1, won=True)  # seat 1 alone wins every hand
        assert m.counted_hands() == k + 1
    # alone, +4 a hand with five, +3 with four (§7.12): past 11, which does not apply
    assert m.scores[1] == (m.rules.n_players - 1) * hands > 11
    assert m.over and m.winner == 1 and m.winners == (1,)
    assert m.ledger_deltas() == tuple(m.scores) and sum(m.scores) == 0
    with pytest.raises(ValueError):
        m.deal()


def test_s7_13_fixed_hands_winner_is_the_highest_score() -> None:
    """RULES §7.13: when the fixed hands are played the highest score wins, whoever it is
    (here not the seat that led after the first hands)."""
    m = Match(opts("chiamata", hands=5), 4, dealer=0)
    _chiamata_hand(m, 1, 1, won=True)  # [-1, 4, -1, -1, -1]
    for _ in range(4):
        _chiamata_hand(m, 3, 4, won=True)  # 3 +2, 4 +1 each
    assert m.scores == [-5, 0, -5, 7, 3]
    assert m.over and m.winner == 3 and m.counted_hands() == 5


def test_s7_13_fixed_hands_tie_on_top_plays_one_more_hand_and_another() -> None:
    """RULES §7.13: equal highest scores after the fixed hands play one more hand, and
    another while they stay equal."""
    m = Match(opts("chiamata", hands=5), 4, dealer=0)
    _chiamata_hand(m, 1, 1, won=True)
    _chiamata_hand(m, 2, 2, won=True)
    _chiamata_hand(m, 0, 3, won=False)
    _chiamata_hand(m, 4, 0, won=True)
    _chiamata_hand(m, 3, 4, won=False)
    assert m.scores == [-2, 4, 4, -6, 0] and m.counted_hands() == 5
    assert not m.over  # seats 1 and 2 equal on top: one more hand
    _chiamata_hand(m, 0, 0, won=True)  # seat 0 alone: 1 and 2 still equal
    assert m.scores == [2, 3, 3, -7, -1] and not m.over
    _chiamata_hand(m, 2, 2, won=True)
    assert m.scores == [1, 2, 7, -8, -2]
    assert m.over and m.winner == 2 and m.counted_hands() == 7


def test_s7_13_fixed_hands_redeals_do_not_count() -> None:
    """RULES §7.13 with §4.4 and §7.4: an all-pass redeal is void and is not one of the
    fixed hands."""
    m = Match(opts("chiamata", hands=5), 4, dealer=0)
    for k in range(5):
        _redeal(m)
        assert not m.over and m.counted_hands() == k
        _chiamata_hand(m, 1, 1, won=True)
    assert m.over and m.winner == 1
    assert m.counted_hands() == 5 and len(m.records) == 10
    assert sum(r.void for r in m.records) == 5


def test_s7_13_fixed_hands_validated_against_the_players() -> None:
    """RULES §7.13: `hands` is a multiple of the players, 5 or 10 with five, 4 or 8 with
    four (0, the default: play to the target); chiamata only; `target` does not apply with
    it, so another target is refused rather than ignored."""
    assert option_choices("hands") == ("0", "4", "5", "8", "10")
    assert Options.parse("chiamata").hands == 0
    assert Options.parse("chiamata", {"hands": "10"}).hands == 10
    assert Options.parse("chiamata4", {"hands": "8"}).hands == 8
    for variant, bad, allowed in (
        ("chiamata", 4, "5 or 10"),
        ("chiamata", 8, "5 or 10"),
        ("chiamata", 3, "5 or 10"),
        ("chiamata4", 5, "4 or 8"),
        ("chiamata4", 10, "4 or 8"),
    ):
        with pytest.raises(OptionsError, match=allowed):
            opts(variant, hands=bad)
    for variant in ("due", "quattro", "briscolone"):
        with pytest.raises(OptionsError, match="hands"):
            opts(variant, hands=5)
    for target in (7, 21, 0):
        with pytest.raises(OptionsError, match="target"):
            opts("chiamata", hands=5, target=target)
    assert opts("chiamata", hands=5, target=11).rules().hands == 5  # the default is harmless
    with pytest.raises(OptionsError):
        opts("chiamata", hands=-5)


def test_s7_13_refused_hands_change_nothing() -> None:
    """RULES §7.13: a `hands` value the seats refuse leaves the options as they were; a
    fixed number of hands takes a target that no longer applies back to its default."""
    before = opts("chiamata", target=21)
    with pytest.raises(OptionsError):
        before.with_value("hands", "4")
    assert before.target == 21 and before.hands == 0
    fixed = before.with_value("hands", "5")
    assert fixed.hands == 5 and fixed.target == 11 and "target" not in fixed.explicit()
    assert fixed.with_value("hands", "0").hands == 0


def test_s7_13_match_snapshot_keeps_the_hands_and_old_ones_load() -> None:
    """RULES §7.13: a match with `hands` survives to_dict/from_dict; a snapshot stored
    before the option existed loads as playing to its target (hands 0)."""
    m = Match(opts("chiamata", hands=5), 4, dealer=0)
    _chiamata_hand(m, 1, 1, won=True)
    back = Match.from_dict(m.to_dict())
    assert back == m and back.rules.hands == 5 and back.options.hands == 5
    old = Match(opts("chiamata", target=21), 4, dealer=0)
    _chiamata_hand(old, 1, 1, won=True)
    data = old.to_dict()
    assert "hands" not in data["options"]
    loaded = Match.from_dict(data)
    assert loaded.rules.hands == 0 and loaded.rules.target == 21 and loaded.format == "target"
    assert loaded.scores == old.scores


# --------------------------------------------------------------------------- §8 briscolone


def test_s8_1_five_cards_no_briscola() -> None:
    """RULES §8.1: 5 cards each; no turned card and no briscola suit."""
    s = HandState.deal(opts("briscolone"), 4)
    assert [len(h) for h in s.hands] == [5, 5]
    assert s.turned == -1 and s.briscola == -1 and len(s.talon) == 30
    assert s.observation(0).turned == -1 and s.observation(0).briscola == -1


def test_s8_2_must_follow_suit_when_able() -> None:
    """RULES §8.2: players must follow the led suit when they can; otherwise any card."""
    s = arrange(opts("briscolone"), hands=["2C 1S 1B 3D 4D", "5C 6S 6B 7S 7B"], dealer=0)
    assert s.current == 1
    play(s, "5C")
    assert s.legal_actions() == [DECK40.card("2C")]
    assert_illegal(s, DECK40.card("1S"))
    play(s, "2C")
    assert s.tricks[0].winner == 1  # 5 beats 2 in the led suit
    assert s.current == 1
    play(s, "6S")
    assert s.legal_actions() == [DECK40.card("1S")]  # holds a Spade: must play it
    assert_illegal(s, DECK40.card("1B"))
    s2 = arrange(opts("briscolone"), hands=["2D 1S 1B 3D 4D", "5C 6S 6B 7S 7B"], dealer=0)
    play(s2, "5C")
    assert sorted(s2.legal_actions()) == sorted(s2.hands[0])  # void in the led suit


def test_s8_3_highest_of_led_suit_wins_and_drawing() -> None:
    """RULES §8.3: the trick goes to the highest card of the led suit; drawing as in §3.4."""
    s = arrange(opts("briscolone"), hands=["2D 1S 1B 3B 4B", "5C 6S 6B 7S 7B"], dealer=0)
    talon = list(s.talon)
    play(s, "5C", "1S")  # off-suit Asso never wins
    assert s.tricks[0].winner == 1 and s.tricks[0].points == 11
    assert s.hands[1][-1] == talon[0] and s.hands[0][-1] == talon[1]
    assert [len(h) for h in s.hands] == [5, 5]
    run(s, rng_pick(4))
    assert sum(s.taken) == 120 and len(s.tricks) == 20
    for t in s.tricks:
        led = DECK40.suit[t.cards[0]]
        best = max(
            (p for p in t.plays if DECK40.suit[p[1]] == led), key=lambda p: DECK40.strength[p[1]]
        )
        assert t.winner == best[0]


def test_s8_4_briscolone_match_to_121_dealer_alternates() -> None:
    """RULES §8.4: cumulative card points to 121 (default) or 151; the dealer alternates."""
    m = Match(opts("briscolone"), 3, dealer=0)
    assert m.format == "points121"
    assert play_match(m, [[70, 50]]) == [False]
    assert m.dealer == 1
    assert play_match(m, [[51, 69]]) == [True]
    assert m.winner == 0 and m.side_points == [121, 119]
    m = Match(opts("briscolone", match="points151"), 3, dealer=1)
    dealers = []
    for sp in ([70, 50], [70, 50], [80, 40]):
        dealers.append(m.dealer)
        assert not m.over
        play_match(m, [sp])
    assert dealers == [1, 0, 1]
    assert m.over and m.winner == 0 and m.side_points == [220, 140]


# --------------------------------------------------------------------------- §9 Briškula


def test_s9_1_briskula32_deck() -> None:
    """RULES §9.1: 32 cards A, 10, K, Q, J, 9, 8, 7 per suit; points 11, 10, 4, 3, 2; 120."""
    assert DECK32.size == 32
    pts = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
    for suit in "DCSB":
        for r, p in pts.items():
            assert DECK32.points[DECK32.card(r + suit)] == p
        strengths = [DECK32.strength[DECK32.card(r + suit)] for r in "ATKQJ987"]
        assert strengths == sorted(strengths, reverse=True) and len(set(strengths)) == 8
    assert DECK32.total_points == 120
    s = HandState.deal(opts("briskula32"), 1)
    assert s.rules.deck is DECK32 and s.n_players == 2
    assert [len(h) for h in s.hands] == [3, 3] and s.turned >= 0 and len(s.talon) == 25
    run(s, rng_pick(1))
    assert sum(s.taken) == 120 and sorted(s.all_cards()) == list(range(32))


def test_s9_1_briskula32_players_and_pairs() -> None:
    """RULES §9.1: 2 to 4 players each for themselves, or 4 in pairs."""
    for n in (2, 3, 4):
        r = opts("briskula32", players=n).rules()
        assert r.n_players == n and r.side_of == tuple(range(n))
    assert opts("briskula32", players=4, teams="pairs").rules().side_of == (0, 1, 0, 1)
    for bad in ({"players": 5}, {"players": 1}, {"players": 3, "teams": "pairs"}):
        with pytest.raises(OptionsError):
            Options.parse("briskula32", bad)
    with pytest.raises(OptionsError):
        opts("briskula32", players=4, teams="threes")


def test_s9_1_briskula32_only_drawers_play_next_trick() -> None:
    """RULES §9.1: when the talon cannot give a card to everyone, only those who drew play
    the following trick, so all hold the same number of cards."""
    for seed in range(6):
        s = HandState.deal(opts("briskula32", players=3), seed)
        pick = rng_pick(seed)
        partial_seen = False
        while not s.is_terminal():
            start = [list(h) for h in s.hands]
            talon_before = s.talon_left()
            k = len(s.tricks)
            while len(s.tricks) == k:
                s.apply(pick(s, s.legal_actions()))
            if 0 < talon_before < 3:
                # the talon (one card and the turned one) cannot serve all three
                w = s.tricks[-1].winner
                drew = [x for x in range(3) if set(s.hands[x]) - set(start[x])]
                assert drew == sorted([w, (w + 1) % 3])
                assert s.turned_to == (w + 1) % 3
                assert s.current == w
                k = len(s.tricks)
                while len(s.tricks) == k:
                    assert s.current in drew
                    s.apply(pick(s, s.legal_actions()))
                assert s.tricks[-1].seats == (w, (w + 1) % 3)
                assert len({len(h) for h in s.hands}) == 1
                partial_seen = True
        assert partial_seen
        assert sum(s.taken) == 120 and sorted(s.all_cards()) == list(range(32))


def test_s9_2_doppia_four_cards_two_plays_each() -> None:
    """RULES §9.2: doppia: 4 cards each; everyone plays twice to each trick (one card each
    round the table, then a second)."""
    for n in (2, 4):
        s = HandState.deal(opts("doppia", players=n), 3)
        assert [len(h) for h in s.hands] == [4] * n
        pick = rng_pick(3)
        run(s, pick)
        for t in s.tricks:
            assert len(t.cards) == 2 * n
            first_round = tuple((t.leader + i) % n for i in range(n))
            assert t.seats == first_round + first_round
        assert sum(s.taken) == 120 and sorted(s.all_cards()) == list(range(40))


def test_s9_2_doppia_highest_briscola_takes_all() -> None:
    """RULES §9.2: the highest briscola, else the highest card of the led suit, takes all the
    cards of the double trick."""
    s = arrange(opts("doppia"), hands=["1C 2D 5S 6S", "3C 7C 5B 6B"], turned="4D", dealer=0)
    play(s, "7C", "1C", "3C", "2D")  # seat 1, 0, 1, 0: the Two of briscola takes it
    t = s.tricks[0]
    assert t.seats == (1, 0, 1, 0) and t.winner == 0 and t.points == 21
    s = arrange(opts("doppia"), hands=["1C 2B 5S 6S", "3C 7C 5B 6B"], turned="4D", dealer=0)
    play(s, "7C", "2B", "3C", "1C")
    assert s.tricks[0].winner == 0  # the Asso of the led suit, played last


def test_s9_2_doppia_everyone_draws_two_winner_first() -> None:
    """RULES §9.2: everyone then draws two cards, the winner first (a first card each round the
    table, then a second)."""
    for n in (2, 4):
        s = HandState.deal(opts("doppia", players=n), 12)
        talon = list(s.talon)
        before = [list(h) for h in s.hands]
        while not s.tricks:
            s.apply(s.legal_actions()[0])
        w = s.tricks[0].winner
        for i in range(n):
            seat = (w + i) % n
            new = [c for c in s.hands[seat] if c not in before[seat]]
            assert new == [talon[i], talon[n + i]]
        assert [len(h) for h in s.hands] == [4] * n and s.current == w


# --------------------------------------------------------------------------- §10 ledger


def test_s10_1_chiamata_hand_deltas_written_and_zero_sum() -> None:
    """RULES §10.1: every finished Chiamata hand writes its score changes; they sum to zero."""
    m = Match(opts("chiamata", target=0), 6)
    total = [0] * 5
    for i in range(12):
        s = run(m.deal(), rng_pick(i))
        rec = m.record(s)
        assert sum(rec.deltas) == 0
        total = [a + b for a, b in zip(total, rec.deltas, strict=True)]
        assert m.ledger_deltas() == tuple(total)
        assert sum(m.ledger_deltas()) == 0
    assert not m.over and any(total)


def test_s10_2_match_winners_plus_one_losers_minus_one() -> None:
    """RULES §10.2: other variants write +1 to each winner and -1 to each loser of a finished
    match (teams: each member), zero-sum; nothing while the match runs."""
    m = Match(opts("due", match="best3"), 1)
    play_match(m, [[70, 50]])
    assert m.ledger_deltas() == (0, 0)
    play_match(m, [[70, 50]])
    assert m.over and m.ledger_deltas() == (1, -1)
    m = Match(opts("quattro", match="single"), 1)
    play_match(m, [[50, 70]])
    assert m.ledger_deltas() == (-1, 1, -1, 1)
    m = Match(opts("sei", teams="threes", match="single"), 1)
    play_match(m, [[70, 50]])
    assert m.ledger_deltas() == (1, -1, 1, -1, 1, -1)
    # three sides: every loser -1, the winner the balance (zero-sum)
    m = Match(opts("tre", match="single"), 1)
    play_match(m, [[30, 60, 30]])
    d = m.ledger_deltas()
    assert d[0] == -1 and d[2] == -1 and d[1] > 0 and sum(d) == 0
    m = Match(opts("sei", match="single"), 1)
    play_match(m, [[30, 60, 30]])
    d = m.ledger_deltas()
    assert [d[i] for i in (0, 2, 3, 5)] == [-1] * 4 and d[1] == d[4] > 0 and sum(d) == 0


def _pairwise_oracle(side_of: tuple[int, ...], winners: set[int]) -> tuple[int, ...]:
    """§10.2 literally: every losing side pays 1 to every winning side, member by member."""
    out = [0] * len(side_of)
    sides = sorted(set(side_of))
    for loser in (x for x in sides if x not in winners):
        for winner in winners:
            for seat, side in enumerate(side_of):
                out[seat] += (side == winner) - (side == loser)
    return tuple(out)


def test_s10_2_each_losing_side_pays_one_to_each_winning_side() -> None:
    """RULES §10.2: each losing side pays 1 to each winning side (teams: each member the
    side's amount). Two sides +1/-1; three sides +2/-1/-1; two tied winners +1/+1/-2; four
    single players +3/-1/-1/-1; zero-sum in every case."""
    assert match_deltas((0, 1), 0) == (1, -1)
    assert match_deltas((0, 1, 2), 1) == (-1, 2, -1)
    assert match_deltas((0, 1, 2), (0, 2)) == (1, -2, 1)
    assert match_deltas((0, 1, 2, 3), 3) == (-1, -1, -1, 3)
    assert match_deltas((0, 1, 2, 3), (0, 1)) == (2, 2, -2, -2)
    assert match_deltas((0, 1, 0, 1), 1) == (-1, 1, -1, 1)
    assert match_deltas((0, 1, 2, 0, 1, 2), (1,)) == (-1, 2, -1, -1, 2, -1)
    assert match_deltas((0, 1, 2, 0, 1, 2), (0, 1)) == (1, 1, -2, 1, 1, -2)
    for variant, raw in (
        ("due", {}),
        ("tre", {}),
        ("quattro", {}),
        ("sei", {}),
        ("sei", {"teams": "threes"}),
        ("briskula32", {"players": 4}),
        ("briskula32", {"players": 4, "teams": "pairs"}),
        ("doppia", {"players": 4}),
    ):
        side_of = opts(variant, **raw).rules().side_of
        sides = sorted(set(side_of))
        for k in range(1, len(sides)):
            for won in itertools.combinations(sides, k):
                d = match_deltas(side_of, won)
                assert d == _pairwise_oracle(side_of, set(won)), (variant, won)
                assert sum(d) == 0


def test_s10_2_real_matches_zero_sum() -> None:
    """RULES §10.2 with §4.3: real random matches end, and their ledger is zero-sum."""
    for variant in ("due", "tre", "quattro", "briscolone", "briskula32"):
        m = Match(opts(variant), 7)
        for i in range(40):
            if m.over:
                break
            m.record(run(m.deal(), rng_pick(i)))
        assert m.over
        d = m.ledger_deltas()
        assert sum(d) == 0 and max(d) > 0 and min(d) == -1
