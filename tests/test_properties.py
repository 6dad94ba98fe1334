"""Property tests (hypothesis) over every variant and a representative set of option
combinations: random deals, random legal move sequences, and invariants checked at every step.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import AUCTION, OVER, PLAY, SPECTATOR, HandState, IllegalAction, Match, Options
from bot.engine import actions as A

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
    ("chiamata4", {}),
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
ALL_VARIANTS = {
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
}
assert {v for v, _ in CONFIGS} == ALL_VARIANTS


def options_of(variant: str, raw: dict[str, object]) -> Options:
    return Options.parse(variant, raw)


# --------------------------------------------------------------------------- invariants


def expected_winner(s: HandState, trick) -> int:
    """§2.3 / §8.3 / §9.2 oracle: highest briscola, else highest card of the led suit."""
    deck = s.rules.deck
    led = deck.suit[trick.cards[0]]
    trumps = [p for p in trick.plays if deck.suit[p[1]] == s.briscola]
    pool = trumps or [p for p in trick.plays if deck.suit[p[1]] == led]
    return max(pool, key=lambda p: deck.strength[p[1]])[0]


def check_state(s: HandState) -> None:
    deck = s.rules.deck
    # every card accounted for, exactly once
    assert sorted(s.all_cards()) == list(range(deck.size))
    # JSON round trip
    back = HandState.from_dict(json.loads(json.dumps(s.to_dict())))
    assert back == s
    assert back.legal_actions() == s.legal_actions()
    # completed tricks obey §2.3 and carry their points
    for t in s.tricks:
        assert t.winner == expected_winner(s, t)
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


# --------------------------------------------------------------------------- the main property


@pytest.mark.parametrize(("variant", "raw"), CONFIGS, ids=IDS)
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(seed=st.integers(0, 2**32 - 1), dealer=st.integers(0, 5), data=st.data())
def test_random_hands_keep_every_invariant(variant, raw, seed, dealer, data):
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
def test_actions_outside_the_legal_list_are_refused(variant, raw, seed, data):
    """Any action number not in `legal_actions()` (card ids of every range, bids, suits,
    signals, garbage) raises IllegalAction at every step and changes nothing."""
    o = options_of(variant, raw)
    s = HandState.deal(o, seed, 0, 0)
    while not s.is_terminal():
        legal = s.legal_actions()
        before = s.to_dict()
        ok = frozenset(legal)
        bad = data.draw(st.integers(-3, 1000).filter(lambda a, ok=ok: a not in ok), label="bad")
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
def test_playout_equals_legal_apply_loop(variant, raw, seed, prefix, rseed):
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
        ("sei", {"teams": "threes", "match": "points120"}),
        ("briscolone", {}),
        ("briskula32", {"players": 3, "match": "single"}),
        ("doppia", {"players": 4, "teams": "pairs"}),
        ("chiamata", {"target": 6}),
        ("chiamata4", {"target": 5}),
    ],
)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rseed=st.integers(0, 2**32))
def test_random_matches(variant, raw, seed, rseed):
    """§3.1, §4, §7.4, §7.13, §10: the dealer stays after a void hand and moves on otherwise;
    void hands never count; the ledger is zero-sum; a match ends exactly when its format says."""
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
            assert top >= o.rules().target and scores.count(top) == 1
            assert m.winner == scores.index(top)
    else:
        assert sum(m.hands_won) == len(counted)
        fmt = o.rules().match
        if fmt == "fixed5":
            assert len(counted) >= 5 or not m.over
            if m.over:
                assert len(counted) >= 5
        if m.over:
            d = m.ledger_deltas()
            side_of = o.rules().side_of
            for seat in range(n):
                assert (d[seat] > 0) == (side_of[seat] == m.winner)
                if side_of[seat] != m.winner:
                    assert d[seat] == -1
        else:
            assert m.ledger_deltas() == (0,) * n
