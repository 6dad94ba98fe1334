"""The review of a hand (`bot.players.review`): CPU per hand by variant, and how often the
two judgements (with the player's information, with every hand seen) name a different
costliest decision.

    python -m bench.review [--hands N] [--variants due,chiamata] [--players normal]
                           [--seed S] [--budget FACTOR] [--compare] [--json]

Per variant, N hands are played by `--players` (one level for every seat, or one per seat)
and each one's record is reviewed with the player's information, one process, one core; the
CPU time of each review (`time.process_time`) gives the mean, median, p90 and max seconds a
hand. The compiled solver's kernels are loaded before the first timing. With `--compare`,
each hand is reviewed with every hand seen too, and the hands whose costliest decisions
differ (another decision, or none against one) are counted, as a share of the hands
reviewed: where the player's information and the whole deal disagree on the hand's worst
move; beside it, how often each judgement finds a cost at all in the other's costliest
decision, how often the review with the player's information names another costliest
decision with another seed (its own noise), and the disagreement among the decisions both
judge exactly (the last tricks).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from bot.engine import HandState, Options, first_dealer
from bot.players import make_player
from bot.players.fastsolve import warm
from bot.players.review import review_hand
from bot.players.review_data import DEFAULT_BUDGET, INFO, OPEN, Review
from bot.table.record import hand_record

VARIANTS = ("due", "tre", "quattro", "sei", "chiamata", "chiamata4")


def records(variant: str, hands: int, seed: int, players: list[str]) -> list[dict[str, Any]]:
    """`hands` hands of `variant` played by `players`, as `python -m bot simulate` deals
    and records them."""
    options = Options.parse(variant)
    n = options.rules().n_players
    names = players * n if len(players) == 1 else players
    bots = [make_player(name, f"{seed}:{seat}") for seat, name in enumerate(names)]
    dealer = first_dealer(seed, n)
    out = []
    for k in range(hands):
        state = HandState.deal(options, seed, k, (dealer + k) % n)
        while not state.is_terminal():
            seat = state.current
            state.apply(bots[seat].act(state.observation(seat)), seat)
        out.append(hand_record(state, names))
    return out


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def _key(review: Review) -> int | None:
    worst = review.costliest
    return None if worst is None else worst.index


def _worst(review: Review, among: set[int]) -> int | None:
    """The index of the costliest decision among `among`, None if none cost anything."""
    costly = [d for d in review.decisions if d.index in among and d.cost > 0]
    return max(costly, key=lambda d: d.cost).index if costly else None


def _costs(review: Review, index: int | None) -> bool:
    """Whether `review` finds a cost in the decision at `index`."""
    return any(d.index == index and d.cost > 0 for d in review.decisions)


def bench(
    variant: str, hands: int, seed: int, players: list[str], factor: float, compare: bool
) -> dict[str, Any]:
    budget = DEFAULT_BUDGET.scaled(factor)
    cpu: list[float] = []
    cpu_open: list[float] = []
    decisions = 0
    differ = both_none = costly = open_costly = info_sees = open_sees = 0
    late = late_differ = reseed_differ = 0
    for record in records(variant, hands, seed, players):
        t = time.process_time()
        info = review_hand(record, seed=seed, budget=budget, mode=INFO)
        cpu.append(time.process_time() - t)
        decisions += len(info.decisions)
        costly += info.costliest is not None
        if compare:
            t = time.process_time()
            whole = review_hand(record, seed=seed, budget=budget, mode=OPEN)
            cpu_open.append(time.process_time() - t)
            differ += _key(info) != _key(whole)
            both_none += _key(info) is None and _key(whole) is None
            open_costly += whole.costliest is not None
            # the noise of the judgement itself: the same review with another seed
            again = review_hand(record, seed=seed + 1, budget=budget, mode=INFO)
            reseed_differ += _key(info) != _key(again)
            # each judgement's view of the other's costliest decision
            info_sees += _costs(info, _key(whole))
            open_sees += _costs(whole, _key(info))
            # the end of the hand, where both judgements solve their worlds exactly
            exact = {d.index for d in info.decisions if d.exact} & {
                d.index for d in whole.decisions if d.exact
            }
            a, b = _worst(info, exact), _worst(whole, exact)
            if a is not None or b is not None:
                late += 1
                late_differ += a != b
    out: dict[str, Any] = {
        "variant": variant,
        "hands": hands,
        "decisions_per_hand": round(decisions / hands, 1),
        "hands_with_a_cost": costly,
        "cpu_mean_s": round(statistics.fmean(cpu), 3),
        "cpu_p50_s": round(statistics.median(cpu), 3),
        "cpu_p90_s": round(_pct(cpu, 0.9), 3),
        "cpu_max_s": round(max(cpu), 3),
    }
    if compare:
        out["open_cpu_mean_s"] = round(statistics.fmean(cpu_open), 3)
        out["costliest_differs"] = differ
        out["costliest_differs_share"] = round(differ / hands, 3)
        out["neither_names_one"] = both_none
        out["open_hands_with_a_cost"] = open_costly
        out["info_costs_open_costliest"] = info_sees
        out["open_costs_info_costliest"] = open_sees
        out["info_reseeded_differs"] = reseed_differ
        out["exact_end_hands"] = late
        out["exact_end_differs"] = late_differ
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20, help="hands per variant")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--players", default="normal", help="one level, or one per seat")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--budget", type=float, default=1.0, help="factor on the default")
    parser.add_argument("--compare", action="store_true", help="also with every hand seen")
    parser.add_argument("--json", action="store_true", help="one JSON object per variant")
    args = parser.parse_args(argv)
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    warm()
    for variant in [v.strip() for v in args.variants.split(",") if v.strip()]:
        r = bench(variant, args.hands, args.seed, players, args.budget, args.compare)
        if args.json:
            print(json.dumps(r), flush=True)
            continue
        line = (
            f"{variant:<10} {r['hands']} hands  {r['decisions_per_hand']:5.1f} decisions  "
            f"CPU a hand mean {r['cpu_mean_s']:.3f} s  p50 {r['cpu_p50_s']:.3f}  "
            f"p90 {r['cpu_p90_s']:.3f}  max {r['cpu_max_s']:.3f}"
        )
        if args.compare:
            line += (
                f"  |  open {r['open_cpu_mean_s']:.3f} s  costliest differs "
                f"{r['costliest_differs']}/{r['hands']} ({r['costliest_differs_share']:.0%}); "
                f"a cost in the other's costliest: info {r['info_costs_open_costliest']}, "
                f"open {r['open_costs_info_costliest']}; info with another seed "
                f"{r['info_reseeded_differs']}/{r['hands']}; in the exact end "
                f"{r['exact_end_differs']}/{r['exact_end_hands']}"
            )
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
