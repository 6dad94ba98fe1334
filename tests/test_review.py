"""The review of a finished hand (issue 51, `bot.players.review`): known answers from the rules
(a plain Asso thrown away, §1.2, §2.3; the §7.12 scores), a hand played by the review's own
choices costs nothing, and the invariants of every review: costs are never negative, the
alternative named is legal where it is named, and playing it out again in the decision's
worlds gives the values the cost came from."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.__main__ import main
from bot.engine import HandState, Options
from bot.engine import actions as A
from bot.engine.cards import card_id
from bot.players import make_player
from bot.players.review import review_hand, reviewer_move
from bot.players.review_bids import chiamata_side_score
from bot.players.review_data import INFO, OPEN, Budget, Judged, Review
from bot.players.review_record import replay
from bot.players.reviewer import Reviewer
from bot.table.record import hand_record

# small counts: the machine is slow, and the properties hold at any budget
SMALL = Budget(worlds=4, exact_worlds=4, open_rollouts=4, bid_deals=6)
TINY = Budget(worlds=1, exact_worlds=1, open_rollouts=1, bid_deals=2)


def play(
    options: Options,
    seed: int,
    hand_index: int,
    choose: Callable[[HandState], int],
    state: HandState | None = None,
) -> HandState:
    state = state or HandState.deal(
        options, seed, hand_index, hand_index % options.rules().n_players
    )
    while not state.is_terminal():
        state.apply(choose(state))
    return state


def players_choice(names: list[str], seed: int) -> Callable[[HandState], int]:
    bots = [make_player(name, f"review:{seed}:{s}") for s, name in enumerate(names)]
    return lambda state: bots[state.current].act(state.observation(state.current))


def open_points(state: HandState, seat: int) -> int:
    """Two players, every card seen: the card points `seat` ends the hand with when both play
    their best (minimax by brute force on the engine's own moves, §2.3-2.4, §3.4)."""
    if state.is_terminal():
        return state.taken[seat]
    values = []
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        values.append(open_points(child, seat))
    return max(values) if state.current == seat else min(values)


def state_at(hand: HandState | dict[str, Any], index: int) -> HandState:
    start, actions = replay(hand)
    state = start.clone()
    for seat, action in actions[:index]:
        state.apply(action, seat)
    return state


def stack_asso(state: HandState) -> int:
    """Briscola a due: put a plain Asso second to last in the talon, where the loser of the
    sixteenth trick draws it (§3.4) to follow in the seventeenth, the talon's last two cards
    still to draw; returns it."""
    asso = next(card_id(1, s) for s in range(4) if s != state.briscola)
    moved = state.talon[-2]
    for hand in state.hands:
        if asso in hand:
            hand[hand.index(asso)] = moved
    talon = [moved if c == asso else c for c in state.talon]
    talon[-2] = asso
    state.talon = talon
    return asso


def asso_thrown(options: Options, k: int) -> tuple[HandState, int, dict[str, int]] | None:
    """Hand k with a plain Asso second to last in the talon, played by the review's own
    choice (every hand seen) but for that Asso, thrown where a liscio was legal and the Asso
    cannot take the trick, once brute force says it costs something; None if that never
    happened."""
    state = HandState.deal(options, 2026, k, k % 2)
    deck = options.rules().deck
    asso = stack_asso(state)
    reviewer = Reviewer(state, seed=5, budget=TINY, mode=OPEN)
    thrown: dict[str, int] = {}

    def choose(st: HandState) -> int:
        hand = st.hands[st.current]
        left = sum(len(h) for h in st.hands) + st.talon_left()
        lisci = [c for c in hand if deck.points[c] == 0]
        if (
            not thrown
            and left <= 10
            and len(st.trick) == 1
            and asso in hand
            and deck.suit[st.trick[0]] != deck.suit[asso]
            and lisci
        ):
            worth = {}
            for a in st.legal_actions():
                child = st.clone()
                child.apply(a)
                worth[a] = open_points(child, st.current)
            if max(worth.values()) > worth[asso]:
                thrown.update(
                    index=len(st.actions),
                    seat=st.current,
                    cost=max(worth.values()) - worth[asso],
                    best=max(worth.values()),
                )
                return asso
        return reviewer_move(reviewer, st)

    play(options, 2026, k, choose, state)
    return (state, asso, thrown) if thrown else None


def reviewers_hand(options: Options, k: int, mode: Judged) -> HandState:
    """Hand k played by the review's own choice at every seat."""
    deal = HandState.deal(options, 11, k, k % options.rules().n_players)
    reviewer = Reviewer(deal, seed=4, budget=SMALL, mode=mode)
    return play(options, 11, k, lambda s: reviewer_move(reviewer, s), deal.clone())


# ------------------------------------------------------------------------------ known answers


def test_a_plain_asso_thrown_on_the_opponents_trick_is_named_with_its_cost() -> None:
    """Briscola a due, a plain Asso (11 points, §1.2) thrown on a trick led in another suit,
    which it cannot take (§2.3), while a liscio was legal. Every other move is the review's
    own choice, so that throw is the hand's costliest decision: the review names it, the card
    it should have played instead, and its cost, the card points the throw loses when both
    play their best from there (found here by brute force). The deal puts the Asso second to
    last in the talon: drawn by the loser of the sixteenth trick (§3.4), who then follows in
    the seventeenth with eight cards in play, where every hand seen is judged exactly."""
    options = Options.parse("due")
    for k in range(40):
        got = asso_thrown(options, k)
        if got is not None:
            break
    else:
        pytest.fail("no deal of forty gave the position")
    state, asso, thrown = got
    record = hand_record(state)
    review = review_hand(record, seed=5, budget=TINY, mode=OPEN)
    worst = review.costliest
    assert worst is not None
    assert (worst.index, worst.seat, worst.move) == (thrown["index"], thrown["seat"], asso)
    assert worst.cost == thrown["cost"] > 0
    assert worst.exact and worst.judged == OPEN
    before = state_at(record, worst.index)
    assert worst.best != asso and worst.best in before.legal_actions()
    after = before.clone()
    after.apply(worst.best)
    assert open_points(after, worst.seat) == thrown["best"]  # the alternative named is best
    assert [d.index for d in review.decisions if d.cost > 0] == [worst.index]
    # The trick went to the other side, the Asso in it (§2.3).
    trick = next(t for t in state.tricks if asso in t.cards)
    assert trick.winner != worst.seat


def test_with_the_player_s_information_the_throw_costs_its_expectation() -> None:
    """The same kind of throw judged with what the player knew, the talon's last two cards
    still to draw: the opponent's two cards in hand and the talon's last are three unseen
    cards, so three worlds (the turned card is known, §3.2), each solved exactly; the cost is
    the mean over them of each move's value with every card of that world seen (brute force
    here), as `hard` weighs worlds."""
    options = Options.parse("due")
    deck = options.rules().deck
    found = None
    for k in range(60):
        state = HandState.deal(options, 7, k, k % 2)
        asso = stack_asso(state)
        choose = players_choice(["simple", "simple"], k)
        while found is None and not state.is_terminal():
            hand = state.hands[state.current]
            led = state.trick[0] if state.trick else -1
            lisci = [c for c in hand if deck.points[c] == 0]
            if (
                state.talon_left() == 2
                and led >= 0
                and asso in hand
                and deck.suit[led] != deck.suit[asso]
                and lisci
            ):
                means = expected_open_points(state)
                if max(means.values()) > means[asso]:
                    found = (state.clone(), asso, means)
            state.apply(choose(state))
        if found is not None:
            break
    else:
        pytest.fail("no deal of sixty gave the position")
    position, asso, means = found
    judgement = Reviewer(position, seed=1, budget=SMALL).judge(position)
    assert judgement is not None
    decision = judgement.decision(asso, deck.label)
    assert decision.exact and decision.worlds == 3 and decision.judged == INFO
    assert decision.cost == pytest.approx(max(means.values()) - means[asso])
    assert decision.cost > 0 and decision.best != asso
    assert decision.move_value == pytest.approx(means[asso])
    assert means[decision.best] == pytest.approx(max(means.values()))


def expected_open_points(position: HandState) -> dict[int, float]:
    """Two players, the opponent's lead on the table: three cards unseen by the seat to move
    (the opponent's two others and the talon's last; the turned card is known, §3.2), so
    three worlds; each legal move's card points for that seat, with both playing their best
    in each world, averaged."""
    seat = position.current
    other = 1 - seat
    unseen = position.hands[other] + [position.talon[position.talon_pos]]
    totals = dict.fromkeys(position.legal_actions(), 0.0)
    worlds = 0
    for theirs in combinations(unseen, len(position.hands[other])):
        world = position.clone()
        world.hands[other] = list(theirs)
        talon = list(world.talon)
        talon[world.talon_pos] = next(c for c in unseen if c not in theirs)
        world.talon = talon
        worlds += 1
        for a in totals:
            child = world.clone()
            child.apply(a)
            totals[a] += open_points(child, seat)
    assert worlds == 3
    return {a: v / worlds for a, v in totals.items()}


@pytest.mark.parametrize("players", [4, 5])
def test_the_side_scores_are_the_engine_s_own(players: int) -> None:
    """§7.11-7.12: `chiamata_side_score` against `HandState.result()` summed over each side,
    on finished hands whose card points are moved between the sides (cappotto included)."""
    variant = "chiamata" if players == 5 else "chiamata4"
    options = Options.parse(variant)
    checked = 0
    for k in range(12):
        state = play(options, 3, k, players_choice(["normal"] * players, k))
        if state.caller < 0:
            continue
        partner = state.partner
        for split in (0, 1, 40, 60, 61, 79, 80, 119, 120):
            data = state.to_dict()
            taken = [0] * players
            taken[state.caller] = split
            defender = next(s for s in range(players) if s not in (state.caller, partner))
            taken[defender] = 120 - split
            data["taken"] = taken
            result = HandState.from_dict(data).result()
            sides = state.sides()
            alone = partner == state.caller
            for side in (0, 1):
                engine = sum(d for s, d in enumerate(result.deltas) if sides[s] == side)
                ours = chiamata_side_score(options.rules(), split, state.target, alone, side == 0)
                assert ours == engine, (split, side, state.target, alone)
                checked += 1
    assert checked >= 40


# ------------------------------------------------------------------------------ its own play


@pytest.mark.parametrize(
    ("variant", "mode"),
    [("due", INFO), ("tre", INFO), ("quattro", OPEN), ("chiamata", INFO), ("briscolone", OPEN)],
)
def test_a_hand_played_by_the_review_s_own_choice_costs_nothing(variant: str, mode: Judged) -> None:
    """Every seat plays the move the review judges best (bids and the call too, in
    chiamata): reviewing that hand with the same seed finds every decision costless."""
    options = Options.parse(variant)
    for k in range(6):
        state = reviewers_hand(options, k, mode)
        if state.tricks:  # not a chiamata redeal (§7.4)
            break
    review = review_hand(state, seed=4, budget=SMALL, mode=mode)
    cards = [d for d in review.decisions if d.kind == "card"]
    assert len(cards) >= 10
    if options.rules().chiamata:
        assert {d.kind for d in review.decisions} >= {"bid", "suit", "card"}
    assert [d.cost for d in review.decisions] == [0.0] * len(review.decisions)
    assert all(d.best == d.move for d in review.decisions)
    assert review.costliest is None
    assert {d.judged for d in review.decisions} == {mode}


# ------------------------------------------------------------------------------ invariants

VARIANTS = ["due", "tre", "quattro", "sei", "chiamata", "chiamata4", "briscolone", "doppia"]
LEVELS = ["random", "easy", "normal", "simple"]


def mixed_hand(variant: str, seed: int) -> HandState:
    options = Options.parse(variant)
    n = options.rules().n_players
    names = [LEVELS[(seed + s) % len(LEVELS)] for s in range(n)]
    return play(options, seed, seed % 3, players_choice(names, seed))


def check_review(state: HandState, review: Review) -> None:
    start, actions = replay(state)
    assert [d.index for d in review.decisions] == sorted({d.index for d in review.decisions})
    position = start.clone()
    at = {d.index: d for d in review.decisions}
    for index, (seat, action) in enumerate(actions):
        d = at.get(index)
        if d is not None:
            assert (d.seat, d.move) == (seat, action)
            assert d.cost >= 0.0
            legal = position.legal_actions()
            assert d.best in legal and d.move in legal
            if d.cost > 0:
                assert d.best != d.move
                assert d.cost == pytest.approx(d.best_value - d.move_value)
            else:
                assert d.best == d.move
        position.apply(action, seat)
    costs = [d.cost for d in review.decisions]
    worst = review.costliest
    assert (worst.cost if worst else 0.0) == max(costs, default=0.0)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, 10_000),
    mode=st.sampled_from([INFO, OPEN]),
)
def test_costs_are_never_negative_and_the_alternative_is_legal(
    variant: str, seed: int, mode: Judged
) -> None:
    state = mixed_hand(variant, seed)
    review = review_hand(state, seed=seed, budget=SMALL, mode=mode)
    check_review(state, review)
    assert review.currency == ("score" if state.rules.chiamata else "card points")


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 10_000))
def test_replaying_the_alternative_reproduces_the_cost(variant: str, seed: int) -> None:
    """For every card decision with a cost, the best move and the move made are played out
    again in the decision's worlds (the rollout with the same stream; where the worlds are
    solved exactly, every seat's best card by the exact search to the end of the hand): the
    values, and so the cost, are found again."""
    state = mixed_hand(variant, seed)
    start, _ = replay(state)
    review = review_hand(state, seed=seed, budget=SMALL)
    reviewer = Reviewer(start, seed=seed, budget=SMALL)
    checked = 0
    for d in review.decisions:
        if d.kind != "card" or (d.cost == 0 and not d.exact):
            continue
        position = state_at(state, d.index)
        made = reviewer.replay_value(position, d.move)
        best = reviewer.replay_value(position, d.best)
        assert made == pytest.approx(d.move_value, abs=1e-9)
        assert best == pytest.approx(d.best_value, abs=1e-9)
        assert best - made == pytest.approx(d.cost, abs=1e-9)
        checked += 1
    assert checked > 0 or not any(d.kind == "card" for d in review.decisions)


# ------------------------------------------------------------------------------ the API


def test_the_review_is_deterministic_and_plain_data() -> None:
    """The same seed, the same review (the record or the state); JSON round-trips."""
    state = mixed_hand("chiamata", 5)
    one = review_hand(state, seed=9, budget=SMALL)
    two = review_hand(hand_record(state), seed=9, budget=SMALL)
    assert one.to_json() == two.to_json()
    data = json.loads(one.to_json())
    assert data["decisions"] and data["currency"] == "score"
    assert Review.from_dict(data).to_dict() == data
    assert set(data["decisions"][0]) >= {"seat", "index", "move", "best", "cost", "judged"}


def test_a_record_s_signals_keep_the_actions_indices() -> None:
    """§5.3: a record keeps the signals but not their moment; the review puts each at its
    sender's first turn where it is legal, where the computer players send them, so that the
    indices are those of the hand's own action list."""
    options = Options.parse("quattro", {"signals": "true"})
    for k in range(10):
        state = play(options, 8, k, players_choice(["normal"] * 4, k))
        if state.signals:
            break
    else:
        pytest.fail("no signal in ten hands")
    _, actions = replay(hand_record(state))
    assert actions == state.actions
    one = review_hand(state, seed=2, budget=TINY)
    two = review_hand(hand_record(state), seed=2, budget=TINY)
    assert one == two


def test_a_seat_s_review_judges_only_that_seat() -> None:
    state = mixed_hand("quattro", 3)
    review = review_hand(state, seed=1, budget=TINY, seats=[2])
    assert review.decisions and {d.seat for d in review.decisions} == {2}
    whole = review_hand(state, seed=1, budget=TINY)
    assert [d for d in whole.decisions if d.seat == 2] == list(review.decisions)
    with pytest.raises(ValueError):
        review_hand(state, seats=[4])


def test_a_record_that_does_not_replay_is_refused() -> None:
    record = hand_record(mixed_hand("due", 1))
    record["tricks"][3]["winner"] = 1 - record["tricks"][3]["winner"]
    with pytest.raises(ValueError, match="replayable"):
        review_hand(record)


# ------------------------------------------------------------------------------ the command


def test_the_command_reviews_simulated_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "hands.jsonl"
    assert main(["simulate", "--variant", "tre", "--games", "2", "--jsonl", str(path)]) == 0
    capsys.readouterr()
    args = ["review", "--jsonl", str(path), "--seat", "1", "--budget", "0.2", "--seed", "3"]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    for line, record in zip(lines, path.read_text().splitlines(), strict=True):
        hand = json.loads(line)
        assert hand["decisions"] and {d["seat"] for d in hand["decisions"]} == {1}
        for d in hand["decisions"]:
            assert d["cost"] >= 0 and d["judged"] == INFO
        ours = review_hand(json.loads(record), seed=3, budget=0.2, seats=[1])
        assert hand == ours.to_dict()


def test_the_command_s_help_says_the_fields(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["review", "--help"])
    text = capsys.readouterr().out
    fields = ("seat", "index", "move", "best", "cost", "judged", "error", "costliest", "best_move")
    for field in fields:
        assert f"  {field}" in text, field


def test_the_command_refuses_a_bad_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hands.jsonl"
    buf = io.StringIO()
    record = hand_record(mixed_hand("due", 2))
    buf.write(json.dumps(record) + "\n{not json\n")
    path.write_text(buf.getvalue())
    assert main(["review", "--jsonl", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and err.count("\n") == 1
    path.write_text(json.dumps(record) + "\n")
    assert main(["review", "--jsonl", str(path), "--seat", "2"]) == 2
    assert "--seat 2" in capsys.readouterr().err


def test_a_review_names_a_suit_and_bids_in_chiamata() -> None:
    """Bids (§7.2-7.3) and the suit named (§7.5) are decisions of their own, judged on deals
    consistent with the bidder's hand (`info`), or the real deal (`open`)."""
    state = mixed_hand("chiamata", 12)
    for mode in (INFO, OPEN):
        review = review_hand(state, seed=1, budget=TINY, mode=mode)
        kinds = {d.kind for d in review.decisions}
        bids = [d for d in review.decisions if d.kind == "bid"]
        assert bids and all(d.index < len(state.bids) for d in bids)
        if state.caller >= 0:
            assert "suit" in kinds
            suit = next(d for d in review.decisions if d.kind == "suit")
            assert A.NAME_SUIT <= suit.best < A.CALL_CARD


def test_the_bench_prints_cpu_and_the_disagreement(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m bench.review` (docs/players.md's numbers) still runs: one small hand."""
    from bench import review as bench_review

    args = ["--hands", "1", "--variants", "due", "--budget", "0.1", "--compare", "--json"]
    assert bench_review.main(args) == 0
    row = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert row["variant"] == "due" and row["hands"] == 1
    assert row["cpu_mean_s"] > 0 and row["decisions_per_hand"] > 0
    assert 0 <= row["costliest_differs"] <= 1 and 0 <= row["info_reseeded_differs"] <= 1
