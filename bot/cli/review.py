"""`python -m bot review`: judge every decision of hands played (`bot.players.review`), from
the records `python -m bot simulate --jsonl` writes; one JSON object per hand on stdout."""

from __future__ import annotations

import argparse
import json
from typing import Any

from bot.cli.simulate import cli_error, parse_seed, write_stdout
from bot.players.review import review_hand
from bot.players.review_data import DEFAULT_BUDGET, INFO, OPEN
from bot.players.review_record import replay

MAX_FACTOR = 100.0

FIELDS = """\
Each line printed is one hand:
  variant, seed, hand_index, dealer  the hand reviewed (as in its record)
  review_seed    the --seed of the review (the same seed, the same review)
  judged         "info" or "open", as --judge
  currency       "score": chiamata's §7.12 score of the mover's side (its seats' deltas
                 summed); "card points": the card points of the mover's side at the end
  decisions      every decision (a turn with at least two moves that play differently):
    seat         who decided
    index        its place in the hand's list of actions (bids, the call, cards, signals)
    kind         "bid" (a rank, pass, carichi or points), "suit", "call" (a card), "card"
    move         the move made (a card as 1D, "call 3", "pass", "64 points", "suit D")
    best         the best move found; the move made when none was clearly better
    cost         value of best - value of move, in the currency: never negative; 0 when the
                 move made is as good as any the review can tell apart
    margin       value of move - the best value of any other move (> 0: it beat them all)
    error        the standard error of the cost's estimate (0 where every world was solved)
    move_value, best_value  the two values, in the currency
    judged       "info": with the worlds that player could not tell apart at that moment
                 (bids: deals consistent with the bidder's hand); "open": every hand seen
    exact        every world solved exactly (else rollouts)
    worlds       worlds (deals, rollouts) the values are averaged over
    move_action, best_action  the same moves as the engine's action numbers
  costliest      the decision that cost most (null when none cost anything)
  best_move      the card play that beat every other move by the most (null if none)"""


def add_review_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "review",
        help="judge every decision of recorded hands (cost, best alternative)",
        description="Review hands recorded by `python -m bot simulate --jsonl FILE`: each "
        "decision's cost against the best move found, the costliest decision and the best "
        "move of each hand. Deterministic given --seed.",
        epilog=FIELDS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--jsonl", required=True, metavar="FILE", help="hand records, one a line")
    p.add_argument("--seat", type=int, default=None, metavar="N", help="only seat N's decisions")
    p.add_argument("--seed", default="0", help="the review's seed (worlds, deals, rollouts)")
    p.add_argument(
        "--judge",
        choices=(INFO, OPEN),
        default=INFO,
        help="info: with what each player could know (default); open: every hand seen",
    )
    p.add_argument(
        "--budget",
        type=float,
        default=1.0,
        metavar="FACTOR",
        help=f"worlds, deals and rollouts times FACTOR (default 1: {DEFAULT_BUDGET.worlds} "
        f"worlds a card, {DEFAULT_BUDGET.bid_deals} deals a bidder; at most {MAX_FACTOR:g})",
    )
    p.set_defaults(func=main_review)


def main_review(args: argparse.Namespace) -> int:
    """Every record is read and replayed before the first review: a bad file or line prints
    one line on stderr and returns 2."""
    if not 0 < args.budget <= MAX_FACTOR:
        return cli_error("review", f"--budget must be more than 0 and at most {MAX_FACTOR:g}")
    try:
        with open(args.jsonl, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        return cli_error("review", f"cannot read --jsonl {args.jsonl!r}: {exc}")
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError("not a JSON object")
            start, _ = replay(record)
        except ValueError as exc:
            return cli_error("review", f"{args.jsonl} line {number}: {exc}")
        if args.seat is not None and not 0 <= args.seat < start.n_players:
            return cli_error(
                "review",
                f"--seat {args.seat}: line {number} is a hand of {start.n_players} seats",
            )
        records.append(record)
    seed = parse_seed(args.seed)
    seats = None if args.seat is None else [args.seat]
    for record in records:
        review = review_hand(record, seed=seed, budget=args.budget, mode=args.judge, seats=seats)
        code = write_stdout("review", review.to_json())
        if code:
            return code
    return 0
