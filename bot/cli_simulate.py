"""`python -m bot simulate`: complete hands between computer players, a JSON summary, and
optionally one JSON record per hand (`--jsonl`)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import IO, Any

from bot.engine import VARIANTS, HandState, Options, OptionsError, first_dealer
from bot.players import DEFAULT_LEVEL, PLAYERS, configure, make_player
from bot.record import hand_record


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """`["k=v", ...]` into a dict; raises ValueError on a malformed pair."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--option wants key=value, got {pair!r}")
        out[key.strip()] = value.strip()
    return out


def simulate(
    options: Options,
    games: int,
    seed: int | str,
    players: Sequence[str],
    jsonl: IO[str] | None = None,
) -> dict[str, Any]:
    """Play `games` hands: hand k is dealt from (seed, k); the dealer starts at the seed's first
    dealer and moves one seat each hand, so the deals never depend on who plays or wins."""
    n = options.rules().n_players
    bots = [make_player(name, f"{seed}:{seat}") for seat, name in enumerate(players)]
    wins = [0] * n
    points = [0] * n
    ledger = [0] * n
    voids = redeals = 0
    start_dealer = first_dealer(seed, n)
    started = time.perf_counter()
    for k in range(games):
        state = HandState.deal(options, seed, k, (start_dealer + k) % n)
        while state.phase != 4:  # OVER
            seat = state.current
            state.apply(bots[seat].act(state.observation(seat)), seat)
        res = state.result()
        voids += res.void and not res.redeal
        redeals += res.redeal
        for seat in res.winners(state.sides()):
            wins[seat] += 1
        for seat in range(n):
            points[seat] += res.card_points[seat]
            ledger[seat] += res.deltas[seat]
        if jsonl is not None:
            jsonl.write(json.dumps(hand_record(state, list(players)), separators=(",", ":")))
            jsonl.write("\n")
    seconds = time.perf_counter() - started
    return {
        "variant": options.variant,
        "options": options.explicit(),
        "seed": seed,
        "hands": games,
        "seconds": round(seconds, 4),
        "hands_per_second": round(games / seconds, 1) if seconds > 0 else None,
        "void_hands": voids,
        "redeals": redeals,
        "seats": [
            {
                "seat": seat,
                "player": players[seat],
                "wins": wins[seat],
                "win_rate": round(wins[seat] / games, 4) if games else 0.0,
                "mean_card_points": round(points[seat] / games, 2) if games else 0.0,
                "ledger": ledger[seat],
            }
            for seat in range(n)
        ],
    }


def add_simulate_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("simulate", help="play hands between computer players, print a summary")
    p.add_argument("--variant", default="due", choices=VARIANTS)
    p.add_argument("--games", type=int, default=100, help="number of hands to play")
    p.add_argument("--seed", default="0", help="deals of hand k depend only on (seed, k)")
    p.add_argument(
        "--players",
        default=DEFAULT_LEVEL,
        help=f"comma-separated, one per seat, or one for all ({', '.join(sorted(PLAYERS))}; "
        f"default {DEFAULT_LEVEL})",
    )
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument(
        "--budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="the hard player's thinking time per move (default: 0.2)",
    )
    p.add_argument("--jsonl", metavar="FILE", help="write one JSON record per hand")
    p.set_defaults(func=main_simulate)


def main_simulate(args: argparse.Namespace) -> int:
    try:
        options = Options.parse(args.variant, parse_options(args.option))
    except (OptionsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    n = options.rules().n_players
    names = [x.strip() for x in args.players.split(",") if x.strip()]
    if len(names) == 1:
        names = names * n
    if len(names) != n:
        print(
            f"error: {options.variant} seats {n} players; --players names {len(names)}",
            file=sys.stderr,
        )
        return 2
    unknown = [x for x in names if x not in PLAYERS]
    if unknown:
        print(
            f"error: unknown player {unknown[0]!r}; known: {', '.join(sorted(PLAYERS))}",
            file=sys.stderr,
        )
        return 2
    if args.games < 0:
        print("error: --games must be 0 or more", file=sys.stderr)
        return 2
    if args.budget is not None:
        if not args.budget > 0:
            print("error: --budget must be positive", file=sys.stderr)
            return 2
        configure(budget=args.budget)
    seed: int | str = int(args.seed) if args.seed.lstrip("-").isdigit() else args.seed
    if args.jsonl:
        with open(args.jsonl, "w", encoding="utf-8") as fh:
            summary = simulate(options, args.games, seed, names, fh)
    else:
        summary = simulate(options, args.games, seed, names)
    print(json.dumps(summary, indent=2))
    return 0
