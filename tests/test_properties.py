"""Property tests (hypothesis) over every variant and a representative set of option
combinations: random deals, random legal move sequences, and invariants checked at every step.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import (
    AUCTION,
    DECK32,
    DECK40,
    DECK40_SOUTHERN,
    OVER,
    PLAY,
    SPECTATOR,
    VARIANTS,
    HandState,
    IllegalAction,
    Match,
    Options,
    Phase,
    World,
    trick_order,
    trick_winner,
)
from bot.engine import actions as A
from bot.engine.cards import Deck
from bot.engine.tricks import Trick
from bot.players.search import Solver, _beats, solve_two

CONFIGS: list[tuple[str, dict[str, object]]] = [
    ("due", {}),
    ("due", {"retrump": True}),
    ("due", {"show_points": True}),
    ("due", {"deck": "french", "southern": True}),
    ("tre", {}),
    ("tre", {"retrump": True, "show_points": True}),
    ("quattro", {}),
    ("quattro", {"signals": True}),
    ("quattro", {"signals": True, "show_points": True, "retrump": True}),
    ("sei", {}),
    ("sei", {"teams": "pairs", "signals": True}),
    ("sei", {"teams": "threes"}),
    ("sei", {"teams": "threes", "signals": True, "show_points": True}),
    ("chiamata", {}),
    ("chiamata", {"overbid": False}),
    ("chiamata", {"carichi": True}),
    ("chiamata", {"auction": "points"}),
    ("chiamata", {"lead": "caller"}),
    ("chiamata", {"cappotto": "all_tricks"}),
    ("chiamata", {"carichi": True, "overbid": False, "lead": "caller", "show_points": True}),
    ("chiamata", {"auction": "points", "lead": "caller", "cappotto": "all_tricks"}),
    ("chiamata", {"auction_start": "dealer_left"}),  # §7.2
    ("chiamata", {"first_must_call": True}),  # §7.2
    ("chiamata", {"two_caller_raises": False}),  # §7.3
    ("chiamata", {"carichi": True, "carichi_mode": "continues"}),  # §7.8
    (
        "chiamata",
        {
            "auction_start": "dealer_left",
            "first_must_call": True,
            "two_caller_raises": False,
            "carichi": True,
            "carichi_mode": "continues",
            "lead": "caller",
        },
    ),
    ("chiamata", {"auction": "points", "first_must_call": True, "auction_start": "dealer_left"}),
    ("chiamata4", {}),
    ("chiamata4", {"carichi": True, "carichi_mode": "continues", "two_caller_raises": False}),
    ("chiamata4", {"carichi": True, "lead": "caller"}),
    ("chiamata4", {"auction": "points"}),
    ("briscolone", {}),
    ("briscolone", {"show_points": True}),
    ("scoperta", {}),
    ("scoperta", {"retrump": True}),
    ("coperta", {}),
    ("coperta", {"show_points": True}),
    ("briskula32", {}),
    ("briskula32", {"players": 3}),
    ("briskula32", {"players": 4}),
    ("briskula32", {"players": 4, "teams": "pairs"}),
    ("briskula32", {"players": 3, "retrump": True}),
    ("doppia", {}),
    ("doppia", {"players": 4}),
    ("doppia", {"players": 4, "teams": "pairs", "retrump": True}),
]
IDS = [v + "".join(f"-{k}={x}" for k, x in raw.items()) for v, raw in CONFIGS]
assert {v for v, _ in CONFIGS} == set(VARIANTS)  # every variant the engine has


def outside(legal: frozenset[int]) -> st.SearchStrategy[int]:
    """Action numbers (card ids of every range, bids, suits, signals, garbage) not in `legal`."""
    return st.integers(-3, 1000).filter(lambda a: a not in legal)


def options_of(variant: str, raw: dict[str, object]) -> Options:
    return Options.parse(variant, raw)


# --------------------------------------------------------------------------- invariants


def expected_winner(s: HandState, trick: Trick) -> int:
    """§2.3 / §8.3 / §9.2 oracle: highest briscola, else highest card of the led suit."""
    deck = s.rules.deck
    led = deck.suit[trick.cards[0]]
    trumps = [p for p in trick.plays if deck.suit[p[1]] == s.briscola]
    pool = trumps or [p for p in trick.plays if deck.suit[p[1]] == led]
    seat: int = max(pool, key=lambda p: deck.strength[p[1]])[0]
    return seat


def check_state(s: HandState) -> None:
    deck = s.rules.deck
    # every card accounted for, exactly once
    assert sorted(s.all_cards()) == list(range(deck.size))
    # JSON round trip
    back = HandState.from_dict(json.loads(json.dumps(s.to_dict())))
    assert back == s
    assert back.legal_actions() == s.legal_actions()
    # completed tricks obey §2.3 (the oracle, and the engine's one definition of the rule)
    # and carry their points
    for t in s.tricks:
        assert t.winner == expected_winner(s, t)
        assert t.seats[trick_winner(t.cards, deck.suit, deck.strength, s.briscola)] == t.winner
        assert t.points == sum(deck.points[c] for c in t.cards)
    assert sum(s.taken) == sum(t.points for t in s.tricks)
    if s.phase == PLAY:
        # the retrumped turned card is never a carico (§3.6)
        if s.rules.retrump:
            assert deck.points[s.turned] < 10
        # seats still to play this trick hold a card
        assert s.hands[s.current]


def visible_seats(s: HandState, seat: int) -> set[int]:
    r = s.rules
    n = r.n_players
    if r.public_hands:
        return {x for x in range(n) if x != seat}
    if s.phase == PLAY and s.talon_exhausted():  # §5.2: teammates, once the talon is gone
        return {x for x in range(n) if x != seat and r.side_of[x] == r.side_of[seat]}
    return set()


def check_observations(s: HandState) -> None:
    r = s.rules
    n = r.n_players
    public = {s.turned, s.called_card}
    for seat in range(n):
        ob = s.observation(seat)
        assert ob.seat == seat
        assert ob.hand == (() if r.blind else tuple(s.hands[seat]))
        allowed = visible_seats(s, seat)
        assert set(ob.visible_hands) == allowed
        for x, cards in ob.visible_hands.items():
            assert cards == tuple(s.hands[x])
        hidden = {c for x in range(n) if x != seat and x not in allowed for c in s.hands[x]}
        # the talon is hidden, except its next card in scoperta (§6.1); removed Twos too
        hidden |= set(s.talon[s.talon_pos + (1 if r.public_hands else 0) :]) | set(s.removed)
        if r.blind:
            hidden |= set(s.hands[seat])
        hidden -= public
        shown = set(ob.hand) | {c for cs in ob.visible_hands.values() for c in cs}
        shown |= {a for a in ob.legal if 0 <= a < A.BLIND}
        if r.public_hands:
            assert ob.talon_next == (
                s.talon[s.talon_pos]
                if s.talon_pos < len(s.talon)
                else (s.turned if s.turned_to < 0 else -1)
            )
        else:
            assert ob.talon_next == -1
        shown.add(ob.talon_next)
        assert not (shown & hidden), (seat, shown & hidden)
        # legal actions only for the seat to act
        assert ob.legal == (tuple(s.legal_actions()) if s.current == seat else ())
        # signals reach the partner only (§5.3)
        mates = {x for x in range(n) if x != seat and r.side_of[x] == r.side_of[seat]}
        for frm, _k in ob.signals:
            assert frm == seat or frm in mates
        assert set(ob.signals) == {(f, k) for f, k in s.signals if f == seat or f in mates}
        # card points hidden before the last trick unless show_points (§3.7)
        if s.phase in (PLAY, AUCTION) and not r.show_points:
            assert ob.all_points is None
            in_hand = len(s.hands[seat]) + sum(1 for p, _ in ob.trick if p == seat)
            last = s.phase == PLAY and s.talon_exhausted() and in_hand <= r.plays_per_trick
            if not last:
                assert ob.my_points is None
        if r.show_points:
            assert ob.all_points == tuple(s.taken)
        # chiamata: nobody but the partner knows the partner before the called card (§7.6)
        if r.chiamata and s.phase != OVER and s.reveal_trick < 0 and seat != s.partner:
            assert ob.partner == -1 and not ob.partner_revealed
    check_spectator(s)
    if r.chiamata and s.phase == PLAY and s.reveal_trick < 0 and s.called_card >= 0:
        check_partner_swap(s)


def check_resample(s: HandState) -> None:
    """`HandState.from_observation` with the real cards as the world gives back the state as
    far as that seat can know it: the same observation and legal actions, the same trick
    order (`trick_order(obs)`), the same fields but the history it cannot know."""
    n = s.rules.n_players
    if s.phase == OVER:
        return
    for seat in {s.current, (s.current + 1) % n}:
        obs = s.observation(seat)
        assert isinstance(obs.phase, Phase) and obs.phase == s.phase
        back = HandState.from_observation(obs, s.world())
        assert back.observation(seat).to_dict() == obs.to_dict()
        if seat == s.current:  # another seat does not see the signals it sent (§5.3)
            assert back.legal_actions() == s.legal_actions()
        assert back.trick_order == trick_order(obs) == (s.trick_order if s.phase == PLAY else ())
        unknown = ("seed", "actions", "talon", "talon_pos", "signals")
        mine = {k: v for k, v in back.to_dict().items() if k not in unknown}
        real = {k: v for k, v in s.to_dict().items() if k not in unknown}
        assert mine == real
        assert back.talon_left() == s.talon_left()
        assert set(back.signals) == set(obs.signals)


def check_spectator(s: HandState) -> None:
    """The table's shared view (the group message) shows no hand but public ones (§6.1), no
    talon card but scoperta's next, no points before the end unless show_points (§3.7), no
    signal (§5.3), and never the chiamata partner before the called card is played (§7.6)."""
    r = s.rules
    ob = s.observation(SPECTATOR)
    assert ob.hand == () and ob.legal == () and ob.signals == () and ob.my_points is None
    if r.public_hands:
        assert ob.visible_hands == {x: tuple(s.hands[x]) for x in range(r.n_players)}
    else:
        assert ob.visible_hands == {}
        assert ob.talon_next == -1
    if not r.show_points and s.phase != OVER:
        assert ob.all_points is None
    if r.chiamata and s.phase != OVER and s.reveal_trick < 0:
        assert ob.partner == -1 and not ob.partner_revealed


def check_partner_swap(s: HandState) -> None:
    """§7.6: a non-partner's observation is identical if the called card (with the whole
    hand) sat with another seat that this viewer cannot see."""
    n = s.rules.n_players
    p = s.partner
    for viewer in (*range(n), SPECTATOR):
        if viewer == p:
            continue
        for other in range(n):
            if other in (viewer, p) or len(s.hands[other]) != len(s.hands[p]):
                continue
            alt = s.clone()
            alt.hands[p], alt.hands[other] = alt.hands[other], alt.hands[p]
            alt.partner = alt.holder_of(alt.called_card)
            assert alt.partner == other
            assert alt.observation(viewer).to_dict() == s.observation(viewer).to_dict()
            break


def check_final(s: HandState) -> None:
    r = s.rules
    res = s.result()
    assert sum(res.deltas) == 0
    assert s.returns() == [float(d) for d in res.deltas]
    if res.redeal:
        assert r.chiamata and all(s.passed) and res.void and not any(res.deltas)
        return
    assert sum(s.taken) == r.deck.total_points == 120
    assert all(not h for h in s.hands) and not s.trick
    assert s.talon_exhausted()
    if r.chiamata:
        won = res.side_points[0] >= s.target
        assert res.winning_sides == ((0,) if won else (1,))
        assert res.deltas[s.caller] != 0
        assert (res.deltas[s.caller] > 0) == won
    else:
        top = max(res.side_points)
        if res.void:
            assert res.side_points.count(top) > 1 and not any(res.deltas)
        else:
            (w,) = res.winning_sides
            assert res.side_points[w] == top and res.side_points.count(top) == 1
            for seat in range(r.n_players):
                assert (res.deltas[seat] > 0) == (r.side_of[seat] == w)


def check_auction(s: HandState) -> None:
    """§7.2-§7.8 auction options, from the bids as played: who opened (auction_start), the
    first word (first_must_call), no points bid by the Two's caller (two_caller_raises=false),
    carichi ending the auction or standing as one more step (carichi_mode)."""
    r = s.rules
    if not r.chiamata or not s.bids:
        return
    n = r.n_players
    first = (s.dealer + (-1 if r.auction_start == "dealer_left" else 1)) % n
    assert s.bids[0][0] == first
    if r.first_must_call:
        assert s.bids[0][1] != A.PASS
    two = next((seat for seat, b in s.bids if b == A.CALL_RANK + 2), None)
    if two is not None and not r.two_caller_raises:
        k = next(i for i, (_, b) in enumerate(s.bids) if b == A.CALL_RANK + 2)
        assert all(b == A.PASS for seat, b in s.bids[k + 1 :] if seat == two)
    words = [b for _, b in s.bids if b != A.PASS]
    for i, b in enumerate(words):
        if b == A.CARICHI:
            if r.carichi_mode == "ends":
                assert i == len(words) - 1  # carichi ends the auction
            else:
                assert i == 0 or words[i - 1] != A.CARICHI  # never over a standing carichi
    ranks = [b - A.CALL_RANK for b in words if A.CALL_RANK <= b < A.BID_POINTS]
    powers = [r.deck.rank_power(x) for x in ranks]
    assert powers == sorted(powers, reverse=True) and len(set(powers)) == len(powers)
    if s.phase != AUCTION and s.caller >= 0:
        assert s.carichi == (words[-1] == A.CARICHI)


# --------------------------------------------------------------------------- the main property


@pytest.mark.parametrize(("variant", "raw"), CONFIGS, ids=IDS)
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(seed=st.integers(0, 2**32 - 1), dealer=st.integers(0, 5), data=st.data())
def test_random_hands_keep_every_invariant(
    variant: str, raw: dict[str, object], seed: int, dealer: int, data: st.DataObject
) -> None:
    """At every step of random legal play: all cards accounted for, JSON round trip, tricks
    resolved per §2.3, only the seat to act can act and illegal actions change nothing,
    observations hide what they must; at the end, 120 points (unless redeal) and zero-sum."""
    o = options_of(variant, raw)
    n = o.rules().n_players
    s = HandState.deal(o, seed, 0, dealer % n)
    steps = 0
    while True:
        check_state(s)
        check_observations(s)
        check_resample(s)
        check_auction(s)
        if s.is_terminal():
            break
        legal = s.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        action = legal[data.draw(st.integers(0, len(legal) - 1), label="choice")]
        before = s.to_dict()
        # another seat may not act, not even with a legal action
        other = data.draw(st.sampled_from([x for x in range(n) if x != s.current]))
        with pytest.raises(IllegalAction):
            s.apply(action, other)
        assert s.to_dict() == before
        s.apply(action, s.current)
        steps += 1
        assert steps < 500
    check_final(s)


@pytest.mark.parametrize(("variant", "raw"), CONFIGS, ids=IDS)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_actions_outside_the_legal_list_are_refused(
    variant: str, raw: dict[str, object], seed: int, data: st.DataObject
) -> None:
    """Any action number not in `legal_actions()` (card ids of every range, bids, suits,
    signals, garbage) raises IllegalAction at every step and changes nothing."""
    o = options_of(variant, raw)
    s = HandState.deal(o, seed, 0, 0)
    while not s.is_terminal():
        legal = s.legal_actions()
        before = s.to_dict()
        bad = data.draw(outside(frozenset(legal)), label="bad")
        with pytest.raises(IllegalAction):
            s.apply(bad)
        assert s.to_dict() == before
        s.apply(legal[data.draw(st.integers(0, len(legal) - 1), label="choice")])
    for bad in (0, A.PASS, 999):
        before = s.to_dict()
        with pytest.raises(IllegalAction):
            s.apply(bad)
        assert s.to_dict() == before


@pytest.mark.parametrize(("variant", "raw"), CONFIGS, ids=IDS)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), prefix=st.integers(0, 80), rseed=st.integers(0, 2**32))
def test_playout_equals_legal_apply_loop(
    variant: str, raw: dict[str, object], seed: int, prefix: int, rseed: int
) -> None:
    """`playout(rng)` makes exactly the moves of the legal_actions/apply loop, from any point;
    `clone()` leaves the original untouched."""
    o = options_of(variant, raw)
    s = HandState.deal(o, seed, 1, 0)
    pre = random.Random(rseed)
    for _ in range(prefix):
        if s.is_terminal():
            break
        legal = s.legal_actions()
        s.apply(legal[pre.randrange(len(legal))])
    original = s.to_dict()
    a = s.clone()
    a.playout(random.Random(rseed + 1))
    b = s.clone()
    r = random.Random(rseed + 1)
    while not b.is_terminal():
        legal = b.legal_actions()
        b.apply(legal[int(r.random() * len(legal))])
    assert a == b
    assert a.result() == b.result()
    assert s.to_dict() == original


@pytest.mark.parametrize(
    ("variant", "raw"),
    [
        ("due", {}),
        ("tre", {"match": "best3"}),
        ("quattro", {"match": "fixed5"}),
        ("tre", {"match": "fixed5"}),  # §4.3: a tie for most hands stands
        ("sei", {"match": "fixed5"}),
        ("briskula32", {"players": 4, "match": "fixed5"}),
        ("due", {"match": "points120"}),
        ("tre", {"match": "points120"}),
        ("sei", {"teams": "threes", "match": "points120"}),
        ("briscolone", {}),
        ("briskula32", {"players": 3, "match": "single"}),
        ("doppia", {"players": 4, "teams": "pairs"}),
        ("chiamata", {"target": 6}),
        ("chiamata", {"target": 4, "first_must_call": True, "auction_start": "dealer_left"}),
        ("chiamata", {"target": 4, "carichi": True, "carichi_mode": "continues"}),
        ("chiamata4", {"target": 5}),
    ],
)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rseed=st.integers(0, 2**32))
def test_random_matches(variant: str, raw: dict[str, object], seed: int, rseed: int) -> None:
    """§3.1, §4, §7.4, §7.13, §10: the dealer stays after a void hand and moves on otherwise;
    void hands never count; the ledger is zero-sum; a match ends exactly when its format says
    (fixed5 after five counted hands, ties for most hands standing; points and chiamata
    targets to a unique top); §10.2 each losing side pays 1 to each winning side."""
    o = Options.parse(variant, raw)
    m = Match(o, seed)
    n = o.rules().n_players
    r = random.Random(rseed)
    for _ in range(40):
        if m.over:
            break
        dealer, k = m.dealer, m.hand_index
        s = m.deal()
        assert s.dealer == dealer and s.hand_index == k
        s.playout(random.Random(r.random()))
        rec = m.record(s)
        assert sum(rec.deltas) == 0
        if rec.void and not rec.redeal:
            assert m.dealer == dealer
        else:
            assert m.dealer == (dealer + 1) % n
        assert m.hand_index == k + 1
        assert sum(m.ledger_deltas()) == 0
        back = Match.from_dict(json.loads(json.dumps(m.to_dict())))
        assert back == m
    counted = [x for x in m.records if not x.void]
    if o.rules().chiamata:
        scores = [sum(x.deltas[seat] for x in counted) for seat in range(n)]
        assert m.scores == scores and m.ledger_deltas() == tuple(scores)
        if m.over:
            top = max(scores)
            assert top >= o.rules().target and scores.count(top) == 1  # §7.13
            assert m.winners == (scores.index(top),) and m.winner == scores.index(top)
    else:
        assert sum(m.hands_won) == len(counted)
        fmt = o.rules().match
        top = max(m.hands_won)
        if fmt == "fixed5":  # §4.3: exactly five counted hands; a tie for most hands stands
            assert m.over == (len(counted) == 5)
            if m.over:
                assert m.winners == tuple(i for i, w in enumerate(m.hands_won) if w == top)
        elif fmt.startswith("points") and m.over:  # §4.3: a unique top total at the target
            best = max(m.side_points)
            assert best >= int(fmt.removeprefix("points")) and m.side_points.count(best) == 1
            assert m.winners == (m.side_points.index(best),)
        elif m.over:
            assert m.winners == (m.hands_won.index(top),) and m.hands_won.count(top) == 1
        if m.over:
            d = m.ledger_deltas()
            side_of = o.rules().side_of
            n_sides = o.rules().n_sides
            won = len(m.winners)
            for seat in range(n):  # §10.2
                if side_of[seat] in m.winners:
                    assert d[seat] == n_sides - won
                else:
                    assert d[seat] == -won
        else:
            assert m.ledger_deltas() == (0,) * n and m.winners == ()


# --------------------------------------------------------------------------- snapshots


def test_snapshots_store_phases_as_before_and_load_either_form() -> None:
    """`to_dict` stores the phase as the int it always was (0 auction .. 4 over), so stored
    tables load in either direction; `from_dict` also takes the phase's name."""
    o = Options.parse("chiamata")
    s = HandState.deal(o, 3, 0, 0)
    codes = {AUCTION: 0, Phase.NAME_SUIT: 1, Phase.CALL_CARD: 2, PLAY: 3, OVER: 4}
    rng = random.Random(3)
    seen = set()
    while True:
        data = json.loads(json.dumps(s.to_dict()))
        assert data["phase"] == codes[s.phase]
        seen.add(s.phase)
        assert HandState.from_dict(data) == s and HandState.from_dict(data).phase is s.phase
        data["phase"] = str(s.phase)
        assert HandState.from_dict(data) == s and HandState.from_dict(data).phase is s.phase
        if s.is_terminal():
            break
        legal = s.legal_actions()
        s.apply(legal[rng.randrange(len(legal))])
    assert {AUCTION, PLAY, OVER} <= seen


# --------------------------------------------------------------------------- the trick rule


def oracle_winner(
    cards: Sequence[int], suit: Sequence[int], strength: Sequence[int], briscola: int
) -> int:
    """§2.3 / §8.3, as the rules say it: the highest briscola, else the highest of the led suit."""
    trumps = [i for i, c in enumerate(cards) if suit[c] == briscola]
    pool = trumps or [i for i, c in enumerate(cards) if suit[c] == suit[cards[0]]]
    return max(pool, key=lambda i: strength[cards[i]])


def rollout_winner(cards: Sequence[int], deck: Deck, briscola: int) -> int:
    """The index of the card that takes the trick `cards` as the rollout (`search.rollout`)
    follows it while the cards fall: the first card, then each card that `_beats` the
    card taking the trick so far."""
    w = 0
    for i in range(1, len(cards)):
        if _beats(cards[i], cards[w], deck.suit, deck.strength, briscola):
            w = i
    return w


def solver_winner(solver: Solver, cards: Sequence[int], briscola: int) -> int:
    """The index of the card that takes the trick `cards` as `Solver` resolves it:
    every card is worth 1, so the trick is worth len(cards) to the side of its winner alone."""
    n = solver.n
    solver.hands = [[] for _ in range(n)]
    solver.hands[len(cards) - 1] = [cards[-1]]
    solver.trick = list(cards[:-1])
    solver.order = tuple(range(len(cards)))
    solver.talon, solver.tpos, solver.b = [], 0, briscola
    solver.points = (1,) * len(solver.points)
    solver.use_cache = False
    takers = []
    for k in range(len(cards)):
        solver.mine = tuple(x == k for x in range(n))
        if solver.root_values([cards[-1]]) == [len(cards)]:
            takers.append(k)
    assert len(takers) == 1, takers
    return takers[0]


def check_copies(state: HandState, solver: Solver, cards: tuple[int, ...], briscola: int) -> None:
    deck = state.rules.deck
    suit, strength = deck.suit, deck.strength
    w = trick_winner(cards, suit, strength, briscola)
    assert w == oracle_winner(cards, suit, strength, briscola)
    assert rollout_winner(cards, deck, briscola) == w, cards
    if 2 <= len(cards) <= solver.n:
        assert solver_winner(solver, cards, briscola) == w
    if len(cards) == 2:
        ones = (1,) * deck.size
        follower_takes = solve_two(cards[:1], cards[1:], True, briscola, suit, strength, ones, {})
        assert (follower_takes == 0) == (w == 1)


TWO_PLAYER_DECKS = [
    (DECK40, Options.parse("due")),
    (DECK40_SOUTHERN, Options.parse("due", {"deck": "french", "southern": True})),
    (DECK32, Options.parse("briskula32", {"players": 2})),
]


@pytest.mark.parametrize(
    ("deck", "options"), TWO_PLAYER_DECKS, ids=lambda x: getattr(x, "name", "")
)
def test_every_copy_of_the_trick_rule_agrees_on_every_card_pair(
    deck: Deck, options: Options
) -> None:
    """§2.3 (and §8.3 without briscola): for every ordered pair of cards and every briscola,
    the engine's `trick_winner`, the engine's trick resolution, the rollout policy and
    `Solver` (all through `take`) and `solve_two`'s inline copy name the same winner."""
    assert options.rules().deck == deck
    base = HandState.deal(options, 0, 0, 1)  # seat 0 leads
    solver = Solver(base, (True, False))
    for briscola in (-1, 0, 1, 2, 3):
        for x in range(deck.size):
            for y in range(deck.size):
                if x == y:
                    continue
                check_copies(base, solver, (x, y), briscola)
                s = base.clone()
                s.hands, s.talon, s.talon_pos, s.turned_to = [[x], [y]], [], 0, 1
                s.briscola = briscola
                s.apply(x)
                s.apply(y)
                assert s.is_terminal()
                assert s.tricks[-1].winner == trick_winner(
                    (x, y), deck.suit, deck.strength, briscola
                )


@pytest.mark.parametrize(("variant", "raw"), CONFIGS, ids=IDS)
def test_every_copy_of_the_trick_rule_agrees_on_random_tricks(
    variant: str, raw: dict[str, object]
) -> None:
    """The same on the tricks (and every beginning of them) of random hands of every variant:
    doppia's double rounds (§9.2), Briscolone without briscola (§8.3), chiamata's named suit."""
    o = options_of(variant, raw)
    base = HandState.deal(o, 0, 0, 0)
    n = o.rules().n_players
    solver = Solver(base, (True,) * n)
    for k in range(3):
        s = HandState.deal(o, 5, k, k % n)
        s.playout(random.Random(k))
        for t in s.tricks:
            for j in range(1, len(t.cards) + 1):
                check_copies(base, solver, t.cards[:j], s.briscola)


CHIAMATA_CONFIGS = [(v, raw) for v, raw in CONFIGS if v.startswith("chiamata")]


@pytest.mark.parametrize(("variant", "raw"), CHIAMATA_CONFIGS, ids=lambda x: str(x))
def test_assume_call_starts_the_play_as_the_auction_would(
    variant: str, raw: dict[str, object]
) -> None:
    """`assume_call` (the hard bidder's "what if I called this card") leaves a state in the
    play exactly as the real auction would: the first bidder calls, everyone else passes and
    the card is named (§7.2-7.10), or it calls carichi (§7.8)."""
    o = options_of(variant, raw)
    rules = o.rules()
    play = ("caller", "partner", "called_card", "carichi", "briscola", "phase", "current")
    for k in range(6):
        s = HandState.deal(o, 9, k, k % rules.n_players)
        seat = s.current
        world = World([list(h) for h in s.hands], [], [])
        base = HandState.from_observation(s.observation(seat), world)
        calls = [card for card in (3, 17, 29, 35) if card not in s.hands[seat]][:1]
        calls.append(s.hands[seat][0])  # in its own hand: alone (§7.7)
        if rules.carichi:
            calls.append(-1)
        for card in calls:
            real = s.clone()
            if card < 0:
                real.apply(A.CARICHI)
            elif rules.auction == "points":
                real.apply(A.BID_POINTS + 61)
            else:
                real.apply(A.CALL_RANK + rules.deck.number[card])
            while real.phase == AUCTION:
                real.apply(A.PASS)
            if real.phase == Phase.NAME_SUIT:
                real.apply(A.NAME_SUIT + rules.deck.suit[card])
            elif real.phase == Phase.CALL_CARD:
                real.apply(A.CALL_CARD + card)
            supposed = base.clone()
            supposed.assume_call(seat, card, 61)
            assert real.phase == PLAY
            for name in play:
                assert getattr(supposed, name) == getattr(real, name), name
            assert supposed.trick_order == real.trick_order and supposed.leader == real.leader
            assert supposed.legal_actions() == real.legal_actions()
