"""Known answers: hands and situations whose outcome is fixed by RULES.md (and by the worked
examples of the seed documents), checked move by move."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from bot.engine import (
    AUCTION,
    DECK40,
    NAME_SUIT,
    OVER,
    PLAY,
    VARIANTS,
    HandState,
    Match,
    deal_cards,
)
from bot.engine import actions as A
from bot.engine.cards import card_id
from tests.support.deals import arrange, assert_illegal, opts, play, quattro

D, C, S, B = range(4)


def random_move(s: HandState, r: random.Random) -> None:
    legal = s.legal_actions()
    s.apply(legal[r.randrange(len(legal))])


def json_round_trip(s: HandState) -> HandState:
    return HandState.from_dict(json.loads(json.dumps(s.to_dict())))


# --------------------------------------------------------------------------- the turned card


def test_2p_last_drawing_trick_loser_gets_turned_briscola_scripted() -> None:
    """§3.4: in two players, the loser of the last drawing trick gets the turned briscola."""
    s = arrange(opts("due"), hands=["1C 5S 6S", "2C 5B 6B"], turned="4D", dealer=0)
    last_talon_card = s.talon[-1]
    s.talon_pos = len(s.talon) - 1  # one talon card left (plus the turned one)
    assert s.talon_left() == 2
    play(s, "2C", "1C")  # seat 1 leads, seat 0 takes with the Asso
    assert s.tricks[-1].winner == 0
    assert s.hands[0][-1] == last_talon_card  # the winner draws the last talon card
    assert s.turned_to == 1  # the loser draws the face-up briscola
    assert s.hands[1][-1] == DECK40.card("4D")
    assert s.talon_exhausted() and s.current == 0
    assert s.observation(0).turned == DECK40.card("4D") and s.observation(0).turned_to == 1


def test_4p_last_drawer_gets_turned_briscola_scripted() -> None:
    """§3.4: in four players the last drawer (the seat before the winner) gets it."""
    s = quattro("4C 6S 6B", "7C 7S 7B", "1C 4S 4B", "3C 5S 5B")
    tail = s.talon[-3:]
    s.talon_pos = len(s.talon) - 3
    play(s, "4C", "7C", "1C", "3C")  # seat 2 takes
    assert s.tricks[-1].winner == 2
    assert [s.hands[seat][-1] for seat in (2, 3, 0)] == tail
    assert s.turned_to == 1 and s.hands[1][-1] == DECK40.card("4D")
    assert s.current == 2


@pytest.mark.parametrize(("variant", "tricks"), [("due", 17), ("quattro", 7)])
def test_last_drawer_gets_turned_briscola_random_hands(variant: str, tricks: int) -> None:
    """§3.4: in real hands the turned card goes to the last to draw, the seat right before
    the winner of the last drawing trick (in two players, its loser)."""
    n = opts(variant).rules().n_players
    for seed in range(20):
        s = HandState.deal(opts(variant), seed)
        r = random.Random(seed)
        while s.turned_to < 0:
            random_move(s, r)
        assert len(s.tricks) == tricks
        assert s.turned_to == (s.tricks[-1].winner - 1) % n
        assert s.turned in s.hands[s.turned_to]
        assert s.talon_pos == len(s.talon)


# --------------------------------------------------------------------------- worked examples


def test_seed002_two_player_examples() -> None:
    """seeds/002 (§2.3): briscola is the four of spades (swords). A leads the 5 of clubs,
    B plays the ace of clubs: B takes. A leads the 5 of hearts, B the King of clubs: A takes.
    A leads the ace of diamonds, B the 6 of spades: B takes.
    (Suit mapping: denari=diamonds, coppe=hearts, spade=spades, bastoni=clubs.)"""
    cases = [("5B", "1B", "B"), ("5C", "10B", "A"), ("1D", "6S", "B")]
    for a_card, b_card, taker in cases:
        s = arrange(opts("due"), hands=[f"{b_card} 7D 7C", f"{a_card} 6D 6C"], turned="4S")
        # dealer 0: seat 1 (A, the non-dealer) leads; seat 0 is B
        play(s, a_card, b_card)
        assert s.tricks[0].winner == (1 if taker == "A" else 0), (a_card, b_card)


def test_seed002_four_player_example() -> None:
    """seeds/002 (§2.3-2.5, §5.1): A deals, briscola the three of hearts; D leads the 4 of
    spades, C the Jack of spades, B the two of hearts, A the 5 of clubs: the B & D team takes
    and B leads next. Seats: A=0, D=1, C=2, B=3."""
    s = arrange(
        opts("quattro"),
        hands=["5B 1D 2D", "4S 5D 6D", "8S 7D 9D", "2C 10D 3D"],
        turned="3C",
        dealer=0,
    )
    assert s.current == 1  # D, to the right of the dealer A
    play(s, "4S", "8S", "2C", "5B")
    t = s.tricks[0]
    assert t.winner == 3 and t.points == 2
    assert s.current == 3
    assert s.taken == [0, 0, 0, 2]
    assert s.rules.side_of[3] == s.rules.side_of[1]


def test_seed004_auction_example() -> None:
    """seeds/004 (§7.2-7.5): first calls Re, second passes, third Cavallo, fourth Sette, fifth
    passes; first Sei, third passes, fourth Cinque; first Quattro, fourth gives up. The first
    is the caller, names Coppe, and the holder of the Quattro di Coppe is the partner."""
    s = HandState.deal(opts("chiamata"), 17, 0, 0)
    script = [
        (1, A.CALL_RANK + 10),
        (2, A.PASS),
        (3, A.CALL_RANK + 9),
        (4, A.CALL_RANK + 7),
        (0, A.PASS),
        (1, A.CALL_RANK + 6),
        (3, A.PASS),
        (4, A.CALL_RANK + 5),
        (1, A.CALL_RANK + 4),
        (4, A.PASS),
    ]
    for seat, action in script:
        assert s.phase == AUCTION and s.current == seat
        s.apply(action, seat)
    assert s.phase == NAME_SUIT and s.caller == 1 and s.target == 61
    s.apply(A.NAME_SUIT + C, 1)
    assert s.called_card == card_id(4, C) and s.briscola == C
    assert s.partner == s.holder_of(card_id(4, C))
    assert s.phase == PLAY and s.current == 1


# --------------------------------------------------------------------------- void hands


def _find(variant: str, wanted: list[int], limit: int) -> int:
    o = opts(variant)
    for seed in range(limit):
        s = HandState.deal(o, seed, 0, 0)
        s.playout(random.Random(seed))
        if s.taken == wanted:
            return seed
    raise AssertionError(f"no {wanted} hand in {limit} seeds")


def test_sixty_sixty_replays_with_same_dealer() -> None:
    """§4.1: a real 60-60 hand is void: no winner, zero deltas; the match replays it with the
    same dealer, a fresh deal, and the earlier result kept (§4.4: not counted)."""
    seed = _find("due", [60, 60], 5000)
    m = Match(opts("due"), seed, dealer=0)
    s = m.deal()
    s.playout(random.Random(seed))
    r = s.result()
    assert r.void and r.winning_sides == () and r.deltas == (0, 0) and not r.redeal
    rec = m.record(s)
    assert rec.void
    assert m.dealer == 0 and m.hand_index == 1 and m.counted_hands() == 0
    assert m.hands_won == [0, 0] and m.side_points == [0, 0] and not m.over
    replay = m.deal()
    assert replay.dealer == 0 and replay.hand_index == 1
    assert replay.hands != HandState.deal(opts("due"), seed, 0, 0).hands
    # a decided hand moves the dealer on; a later 60-60 keeps the score and the dealer
    m.record(_finished(replay, [70, 50]))
    assert m.dealer == 1 and m.hands_won == [1, 0]
    m.record(_finished(m.deal(), [60, 60]))
    assert m.dealer == 1 and m.hands_won == [1, 0] and m.side_points == [70, 50]


def _finished(s: HandState, taken: list[int]) -> HandState:
    s.taken = list(taken)
    s.phase = OVER
    s.current = -1
    return s


def test_forty_forty_forty_replays() -> None:
    """§4.2: a real 40-40-40 hand of Briscola in tre is void and replayed (same dealer)."""
    seed = _find("tre", [40, 40, 40], 60000)
    m = Match(opts("tre"), seed, dealer=0)
    s = m.deal()
    s.playout(random.Random(seed))
    r = s.result()
    assert r.void and r.winning_sides == () and r.deltas == (0, 0, 0)
    m.record(s)
    assert m.dealer == 0 and m.counted_hands() == 0 and m.hands_won == [0, 0, 0]
    assert m.deal().dealer == 0


# --------------------------------------------------------------------------- cappotto


def _cappotto_deal(caller_wins: bool, cappotto: str = "zero_points") -> HandState:
    """Chiamata, dealer 0, seat 1 calls. Briscola denari (D).
    caller_wins: seat 1 holds the eight top denari and calls the Quattro (seat 2's).
    else: seat 3 holds them; seat 1 calls the Two, which seat 2 holds."""
    s = HandState.deal(opts("chiamata", cappotto=cappotto), 0, 0, 0)
    top = [card_id(n, D) for n in (1, 3, 10, 9, 8, 7, 6, 5)]
    others = [c for c in range(40) if DECK40.suit[c] != D]
    strong = 1 if caller_wins else 3
    low = [card_id(4, D), card_id(2, D)]
    hands: list[list[int]] = [[] for _ in range(5)]
    hands[strong] = top
    hands[2].append(low[0] if caller_wins else low[1])
    hands[1 if not caller_wins else 3].append(low[1] if caller_wins else low[0])
    for seat in range(5):
        while len(hands[seat]) < 8:
            hands[seat].append(others.pop())
    s.hands = hands
    assert sorted(c for h in hands for c in h) == list(range(40))
    return s


def _strong_policy(strong: int) -> Callable[[HandState], int]:
    def pick(s: HandState) -> int:
        legal = s.legal_actions()
        if s.current == strong:
            return max(legal, key=lambda c: (DECK40.suit[c] == D, DECK40.strength[c]))
        return legal[0]

    return pick


def test_cappotto_caller_side_takes_everything_doubles() -> None:
    """§7.12: the caller takes every trick: the defenders have 0 points: cappotto, and the
    scores double: caller +4, partner +2, each defender -2."""
    s = _cappotto_deal(caller_wins=True)
    s.apply(A.CALL_RANK + 4)  # seat 1: "un Quattro"
    for _ in range(4):
        s.apply(A.PASS)
    s.apply(A.NAME_SUIT + D)
    assert s.partner == 2 and s.current == 1
    pick = _strong_policy(1)
    while not s.is_terminal():
        s.apply(pick(s))
    r = s.result()
    assert all(t.winner == 1 for t in s.tricks) and len(s.tricks) == 8
    assert r.side_points == (120, 0) and r.cappotto
    assert r.deltas == (-2, 4, 2, -2, -2)
    assert s.returns() == [-2.0, 4.0, 2.0, -2.0, -2.0]


def test_cappotto_defenders_take_everything_doubles() -> None:
    """§7.12: the defenders take every trick: the caller's side has 0: the loss doubles:
    caller -4, partner -2, each defender +2 (also under cappotto=all_tricks)."""
    for mode in ("zero_points", "all_tricks"):
        s = _cappotto_deal(caller_wins=False, cappotto=mode)
        s.apply(A.CALL_RANK + 2)  # seat 1: the Two
        for _ in range(4):
            s.apply(A.PASS)
        assert s.caller == 1 and s.target == 61
        s.apply(A.NAME_SUIT + D)
        assert s.partner == 2
        pick = _strong_policy(3)
        while not s.is_terminal():
            s.apply(pick(s))
        r = s.result()
        assert all(t.winner == 3 for t in s.tricks)
        assert r.side_points == (0, 120) and r.cappotto
        assert r.deltas == (2, -4, -2, 2, 2)


# --------------------------------------------------------------------------- illegal actions


def test_illegal_wrong_seat() -> None:
    """§2.5 / engine contract: only the seat to act may act; nothing changes otherwise."""
    s = HandState.deal(opts("quattro"), 3, 0, 0)
    assert s.current == 1
    for seat in (0, 2, 3):
        assert_illegal(s, s.hands[seat][0], seat)
        assert_illegal(s, s.hands[1][0], seat)
    c = HandState.deal(opts("chiamata"), 3, 0, 0)
    assert_illegal(c, A.CALL_RANK + 1, seat=3)
    assert_illegal(c, A.PASS, seat=0)


def test_illegal_card_not_in_hand() -> None:
    """A card the seat does not hold cannot be played (plain, follow-suit and blind forms)."""
    for variant in ("due", "quattro", "briscolone", "coperta", "doppia", "chiamata4"):
        s = HandState.deal(opts(variant), 4, 0, 0)
        if s.phase == AUCTION:
            s.apply(A.CALL_RANK + 1)
            for _ in range(3):
                s.apply(A.PASS)
            s.apply(A.NAME_SUIT + B)
        seat = s.current
        not_held = next(c for c in range(40) if c not in s.hands[seat])
        assert_illegal(s, not_held)
        assert_illegal(s, not_held, seat)
        # a card already played is not held any more
        s.apply(s.legal_actions()[0])
        assert_illegal(s, s.trick[0])


def test_illegal_bid_not_lower() -> None:
    """§7.2: a rank call not strictly lower than the last is illegal."""
    s = HandState.deal(opts("chiamata"), 5, 0, 0)
    s.apply(A.CALL_RANK + 9)
    for rank in (1, 3, 10, 9):
        assert_illegal(s, A.CALL_RANK + rank)
    assert_illegal(s, A.BID_POINTS + 70)  # no points bid before the Two
    s.apply(A.CALL_RANK + 2)
    assert_illegal(s, A.CALL_RANK + 2)
    assert_illegal(s, A.BID_POINTS + 61)


def test_illegal_bid_after_passing() -> None:
    """§7.2: a pass is final: a seat that passed can never bid again."""
    s = HandState.deal(opts("chiamata"), 5, 0, 0)
    s.apply(A.PASS)  # seat 1
    s.apply(A.CALL_RANK + 1)  # seat 2
    s.apply(A.CALL_RANK + 3)  # seat 3
    s.apply(A.PASS)  # seat 4
    s.apply(A.PASS)  # seat 0
    assert s.current == 2  # seat 1 is skipped
    for action in (A.CALL_RANK + 2, A.PASS, A.BID_POINTS + 70):
        assert_illegal(s, action, seat=1)
    s.apply(A.PASS)  # seat 2
    assert s.phase == NAME_SUIT and s.caller == 3
    assert all(seat != 1 for seat, _ in s.bids[1:])
    s = HandState.deal(opts("chiamata"), 5, 0, 0)
    s.apply(A.CALL_RANK + 1)  # 1
    s.apply(A.PASS)  # 2
    s.apply(A.CALL_RANK + 3)  # 3
    s.apply(A.CALL_RANK + 10)  # 4
    s.apply(A.CALL_RANK + 9)  # 0
    s.apply(A.CALL_RANK + 8)  # 1
    assert s.current == 3
    assert_illegal(s, A.CALL_RANK + 7, seat=2)
    assert all(seat != 2 for seat, _ in s.bids[2:])


def test_illegal_misc() -> None:
    """Other illegal actions raise and change nothing: acting after the hand is over, naming a
    suit during the auction, a blind position outside coperta, an unknown action number."""
    s = HandState.deal(opts("due"), 6)
    assert_illegal(s, A.BLIND + 0)
    assert_illegal(s, A.PASS)
    assert_illegal(s, A.NAME_SUIT + D)
    assert_illegal(s, 999)
    assert_illegal(s, -1)
    s.playout(random.Random(1))
    assert s.is_terminal() and s.legal_actions() == []
    assert_illegal(s, 0)
    assert_illegal(s, 0, seat=0)
    c = HandState.deal(opts("chiamata"), 6)
    assert_illegal(c, A.NAME_SUIT + D)
    assert_illegal(c, A.CALL_CARD + 3)
    assert_illegal(c, c.hands[c.current][0])


def test_illegal_out_of_range_numbers_outside_play() -> None:
    """Engine contract (`apply` raises IllegalAction and changes nothing): during the auction,
    the suit naming and the card call, action numbers in the card / rank / suit / call-card
    ranges that name nothing (card 40, "rank 11", "suit 4", "card 40") are refused with
    IllegalAction like any other illegal action."""
    states = []
    s = HandState.deal(opts("chiamata"), 0, 0, 0)
    states.append(s.clone())  # auction
    s.apply(A.CALL_RANK + 1)
    for _ in range(4):
        s.apply(A.PASS)
    states.append(s.clone())  # naming the suit
    p = HandState.deal(opts("chiamata", auction="points"), 0, 0, 0)
    p.apply(A.BID_POINTS + 61)
    for _ in range(4):
        p.apply(A.PASS)
    states.append(p)  # calling the card
    for st in states:
        for action in (40, 99, A.CALL_RANK + 11, A.NAME_SUIT + 4, A.CALL_CARD + 40):
            assert_illegal(st, action)


# --------------------------------------------------------------------------- serialisation


@pytest.mark.parametrize("variant", VARIANTS)
def test_json_round_trip_every_phase(variant: str) -> None:
    """to_dict -> JSON -> from_dict gives an equal state that then plays on identically."""
    s = HandState.deal(opts(variant), "seed-α", 2, 1)
    r = random.Random(variant)
    step = 0
    while True:
        back = json_round_trip(s)
        assert back == s
        assert back.to_dict() == s.to_dict()
        assert back.legal_actions() == s.legal_actions()
        assert back.observation(0).to_dict() == s.observation(0).to_dict()
        if s.is_terminal():
            assert back.result() == s.result()
            break
        legal = s.legal_actions()
        a = legal[r.randrange(len(legal))]
        s.apply(a)
        back.apply(a)
        assert back == s
        step += 1
    assert step > 0


def test_match_json_round_trip() -> None:
    """Match.to_dict -> JSON -> from_dict is equal and continues identically."""
    for variant in ("due", "tre", "chiamata"):
        m = Match(opts(variant), 9)
        for i in range(3):
            if m.over:
                break
            s = m.deal()
            s.playout(random.Random(i))
            m.record(s)
            back = Match.from_dict(json.loads(json.dumps(m.to_dict())))
            assert back == m
            if not m.over:
                assert back.deal() == m.deal()
            assert back.ledger_deltas() == m.ledger_deltas()


# --------------------------------------------------------------------------- the deal


@pytest.mark.parametrize("variant", VARIANTS)
def test_deal_depends_only_on_seed_and_hand_index(variant: str) -> None:
    """§3.1-3.2, §7.1: the deal of hand k is a function of the seed and k alone: the same for
    any dealer (and any players at the seats); another k or seed deals differently."""
    o = opts(variant)
    n = o.rules().n_players
    for seed in (0, 1, "table-42"):
        for k in (0, 1, 5):
            ref = HandState.deal(o, seed, k, 0)
            expected = deal_cards(o.rules(), seed, k)
            assert (ref.hands, ref.talon, ref.turned, ref.removed) == expected
            for dealer in range(n):
                s = HandState.deal(o, seed, k, dealer)
                assert s.hands == ref.hands
                assert s.talon == ref.talon
                assert s.turned == ref.turned and s.removed == ref.removed
    a = HandState.deal(o, 1, 0, 0)
    assert HandState.deal(o, 1, 1, 0).hands != a.hands
    assert HandState.deal(o, 2, 0, 0).hands != a.hands


def test_match_deals_same_cards_whatever_the_first_dealer() -> None:
    """The k-th deal of a match depends on seed and k, not on who deals it."""
    o = opts("quattro")
    m1 = Match(o, 77, dealer=0)
    m2 = Match(o, 77, dealer=3)
    for i in range(3):
        d1, d2 = m1.deal(), m2.deal()
        assert d1.dealer != d2.dealer
        assert (d1.hands, d1.talon, d1.turned) == (d2.hands, d2.talon, d2.turned)
        d1.playout(random.Random(i))
        d2.playout(random.Random(i + 100))
        m1.record(d1)
        m2.record(d2)
