"""The review of a finished hand: what each decision cost (issue 51, "il colpo della mano").

    review = review_hand(record, seed=7)          # a `hand_record` dict, or a finished HandState
    review.costliest, review.best_move, review.decisions[i].cost
    review.to_json()                              # plain data for another process

Pure and deterministic given `seed` (no I/O, no clock: the effort is a count of worlds,
deals and rollouts, `Budget`), so a worker process can run it on the record of a hand and
hand back plain data: `Review` and `Decision` are frozen dataclasses of ints, floats and
strings (they pickle), with `to_dict`/`from_dict` and `to_json`.

A decision is a turn with at least two moves that play differently: a bid, the suit named
(§7.5) or the card called (§7.9), a points bid over the Two (§7.3), a card. Forced moves,
cards that play exactly alike (same suit and points, no card still in play between them: the
weaker stands for both; never the hidden socio's called card, §7.6), signals (§5.3) and
coperta's blind picks (§6.2) are not decisions. Each decision is judged by a value per move,
in the hand's own currency, for the mover's side:

- chiamata: the §7.12 score of the mover's side (caller with a socio +3/-3 with five players,
  alone +4/-4; four players +2/-2 and +3/-3; cappotto doubles), from the caller's side's card
  points through the target (§7.11). Cappotto is read as "zero card points" whatever the
  `cappotto` option (with `all_tricks` a side with only lisci is counted as cappotto);
- every other variant: the card points the mover's side holds at the end of the hand (§1.2).
  With three or more sides (tre, sei in pairs, four single players) the exact search is
  paranoid: the mover's side against all the others as one.

The cost of the move made is the value of the best move found minus the value of the move
made: never negative, and 0 when the move made is as good as any the review can tell apart
(the best move must beat it by more than the noise of the estimate, `NOISE`). How a card is
valued:

- judged with the player's information (`INFO`, the default): the worlds that seat cannot
  tell from the real one at that moment (`Knowledge.sample_world`, as `hard` samples them;
  every world, weighted, when there are few), each move valued in each world, averaged;
- judged with every hand seen (`OPEN`, double-dummy): the real deal only, the talon's order
  included (where a talon lasts, that makes early costs large: who draws which card is known).

In a world the value is exact (alpha-beta, `FastSolver`, or the Python `Solver` while a talon
lasts) near the end (chiamata: the last `Budget.exact_tricks` tricks with the player's
information, `open_exact_tricks` with every hand seen; elsewhere the cards `hard` solves:
ten, or every card once the talon is gone), else a greedy rollout (`search.rollout`, the same
random stream for every move of a world: common random numbers); with every hand seen,
several rollouts of the one world. `Reviewer.replay_value` plays a move out again in the
same worlds (the exact search's line of play to the end where they are solved).

Bids, the suit named and the card called are judged more roughly, on deals of the other cards
consistent with the bidder's hand (the same deals for every decision of that seat; OPEN: the
real deal, rollouts of it), each contract played out by the rollout with the sides open (as
`hard` bids) and scored through its target (§7.11-7.12). The auction's competition is not
modelled: a call is valued as if it won the auction there (a rank in the suit `normal` would
name with that hand, §7.5, at target 61; a points bid at its target, with the Two that scores
best, §7.3; auction=points with the best of a few candidate cards, §7.9), a pass as the
standing bid winning it (its bidder naming, in each deal, the suit `normal` rates best for its
hand), and as a void hand (0) when nothing stands (§7.4). The suit named is judged among the
four; the card called after a points auction among a few candidates (per suit the two
strongest cards missing from the hand, the strongest held with four or more of the suit) and
the card called.

The estimates are noisy where worlds are sampled: measured on hands of `normal` players, the
same review with another seed names another costliest decision in about half the chiamata
hands and most hands of briscola a due, and more worlds did not change that (`Budget`).
`python -m bench.review` measures the CPU a hand and both disagreements.

Where the parts are: the data (`Review`, `Decision`, `Budget`, `INFO`, `OPEN`) in
`bot.players.review_data`, which the table and the view import alone; the hand replayed from
its record (`replay`) in `review_record`; the judging (`Reviewer`, `Judgement`, `NOISE`,
`move_classes`) in `reviewer`; the currency (`chiamata_side_score`) and the contracts that
judge the bids in `review_bids`; here, `review_hand`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from bot.engine import actions as A
from bot.engine.cards import SUITS, Deck
from bot.engine.state import HandState
from bot.players.review_data import DEFAULT_BUDGET, INFO, Budget, Decision, Judged, Review
from bot.players.review_record import replay
from bot.players.reviewer import Reviewer


def review_hand(
    hand: HandState | Mapping[str, Any],
    *,
    seed: int | str = 0,
    budget: Budget | float = DEFAULT_BUDGET,
    mode: Judged = INFO,
    seats: Collection[int] | None = None,
) -> Review:
    """Judge every decision of a finished hand (of `seats` only, if given): a `hand_record`
    dict or a finished `HandState` dealt from its seed. `budget`: a `Budget`, or a factor
    on the default one. `mode`: INFO (each decision judged with the worlds its player could
    not tell apart; bids on deals consistent with the bidder's hand) or OPEN (every hand
    seen). Deterministic given `seed`."""
    if not isinstance(budget, Budget):
        budget = DEFAULT_BUDGET.scaled(float(budget))
    start, actions = replay(hand)
    rules = start.rules
    if seats is not None:
        bad = [s for s in seats if not 0 <= s < rules.n_players]
        if bad:
            raise ValueError(f"no seat {bad[0]} at a table of {rules.n_players}")
    reviewer = Reviewer(start, seed=seed, budget=budget, mode=mode)
    state = start.clone()
    decisions: list[Decision] = []
    deck = rules.deck
    for seat, action in actions:
        if (seats is None or seat in seats) and not A.SIGNAL <= action < A.SIGNAL + 5:
            judgement = reviewer.judge_made(state, action)
            if judgement is not None:
                decisions.append(judgement.decision(action, lambda a: describe(a, deck)))
        state.apply(action, seat)
    return Review(
        variant=rules.variant,
        seed=start.seed,
        hand_index=start.hand_index,
        dealer=start.dealer,
        review_seed=seed,
        mode=mode,
        currency="score" if rules.chiamata else "card points",
        decisions=tuple(decisions),
    )


def describe(action: int, deck: Deck) -> str:
    """A move as the records write it: a card (`1D`), a rank called (`call 3`), `pass`,
    `carichi`, points (`64 points`), the suit named (`suit D`), the card called (`call 1D`)."""
    if A.is_card(action):
        return str(deck.label(action))
    if A.CALL_RANK <= action < A.BID_POINTS:
        return f"call {action - A.CALL_RANK}"
    if A.NAME_SUIT <= action < A.CALL_CARD:
        return f"suit {SUITS[action - A.NAME_SUIT]}"
    return A.describe(action, deck)


def reviewer_move(reviewer: Reviewer, state: HandState) -> int:
    """The move the review judges best for the seat to act (the first card when it has no
    choice that matters): a hand played so at every seat costs nothing anywhere."""
    j = reviewer.judge(state)
    if j is not None:
        return j.best()
    legal = state.legal_actions()
    cards = [a for a in legal if A.is_card(a) or A.BLIND <= a < A.CALL_RANK]
    return (cards or legal)[0]


__all__ = ["describe", "review_hand", "reviewer_move"]
