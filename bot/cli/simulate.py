"""`python -m bot simulate`: complete hands between computer players, a JSON summary, and
optionally one JSON record per hand (`--jsonl`)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import IO, Any

from bot.engine import VARIANTS, HandState, Options, OptionsError, first_dealer
from bot.players import DEFAULT_LEVEL, PLAYERS, configure, make_player
from bot.table.record import hand_record

MAX_GAMES = 1_000_000
# seconds per move of the `hard` player: the bounds of HARD_BUDGET (`Settings.hard_budget`)
MAX_BUDGET = 10.0


# ------------------------------------------------- command-line helpers (simulate, play, export)


def cli_error(command: str, message: object) -> int:
    """Print ``python -m bot COMMAND: error: MESSAGE`` as a single line on stderr (the style of
    argparse's own errors) and return 2, the exit status of every refused command line."""
    text = " ".join(str(message).split())
    print(f"python -m bot {command}: error: {text}", file=sys.stderr)
    return 2


def budget_error(budget: float | None) -> str | None:
    """Why a `--budget` is refused (NaN and infinity included), or None when it is fine."""
    if budget is None or 0 < budget <= MAX_BUDGET:
        return None
    return f"--budget must be more than 0 and at most {MAX_BUDGET:g} seconds, got {budget:g}"


def add_budget_argument(p: argparse.ArgumentParser) -> None:
    """--budget, for `play` and `simulate` (checked by `budget_error`)."""
    p.add_argument(
        "--budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help=f"the hard player's thinking time per move (default: 0.2; at most {MAX_BUDGET:g})",
    )


def stdout_to_devnull() -> None:
    """Point file descriptor 1 at /dev/null once stdout cannot be written (a reader that went
    away, a full disk), so that the interpreter's final flush of what is still buffered does
    not fail again and print "Exception ignored ..." on the way out."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(fd, sys.stdout.fileno())
    except (OSError, ValueError):  # a stdout without a file descriptor: nothing to redirect
        pass
    finally:
        os.close(fd)


def write_stdout(command: str, text: str) -> int:
    """Write `text` (and a final newline) to stdout and flush it: 0, or a one-line error and 2
    when stdout cannot be written. A closed pipe (BrokenPipeError) is left to
    `bot.__main__.main`, which ends quietly."""
    try:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        stdout_to_devnull()
        return cli_error(command, f"cannot write to standard output: {exc.strerror or exc}")
    return 0


# ---------------------------------------------------------------------------------- simulate


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """`["k=v", ...]` into a dict; raises ValueError on a malformed pair or on `variant`."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--option wants key=value, got {pair!r}")
        if key.strip().lower() == "variant":
            raise ValueError(f"--option {pair} is not allowed: choose the variant with --variant")
        out[key.strip()] = value.strip()
    return out


def parse_seed(text: str) -> int | str:
    """An integer seed when `text` is one (ASCII digits, maybe a leading minus), else the text.
    A seed of more digits than `int()` converts stays text: any text is a valid seed."""
    body = text[1:] if text.startswith("-") else text
    if body.isascii() and body.isdigit():
        try:
            return int(text)
        except ValueError:
            pass
    return text


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
        while not state.is_terminal():
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
    p.add_argument(
        "--games", type=int, default=100, help=f"number of hands to play (1..{MAX_GAMES})"
    )
    p.add_argument("--seed", default="0", help="deals of hand k depend only on (seed, k)")
    p.add_argument(
        "--players",
        default=DEFAULT_LEVEL,
        help=f"comma-separated, one per seat, or one for all ({', '.join(sorted(PLAYERS))}; "
        f"default {DEFAULT_LEVEL})",
    )
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    add_budget_argument(p)
    p.add_argument("--jsonl", metavar="FILE", help="write one JSON record per hand")
    p.set_defaults(func=main_simulate)


def main_simulate(args: argparse.Namespace) -> int:
    """Every argument is checked (and the `--jsonl` file opened) before the first hand: a
    refused command line prints one line on stderr and returns 2, and never truncates a file."""
    try:
        options = Options.parse(args.variant, parse_options(args.option))
    except (OptionsError, ValueError) as exc:
        return cli_error("simulate", exc)
    n = options.rules().n_players
    names = [x.strip() for x in args.players.split(",") if x.strip()]
    if len(names) == 1:
        names = names * n
    if len(names) != n:
        return cli_error(
            "simulate", f"{options.variant} seats {n} players; --players names {len(names)}"
        )
    unknown = [x for x in names if x not in PLAYERS]
    if unknown:
        return cli_error(
            "simulate", f"unknown player {unknown[0]!r}; known: {', '.join(sorted(PLAYERS))}"
        )
    if not 1 <= args.games <= MAX_GAMES:
        return cli_error("simulate", f"--games must be between 1 and {MAX_GAMES}, got {args.games}")
    why = budget_error(args.budget)
    if why is not None:
        return cli_error("simulate", why)
    if args.budget is not None:
        configure(budget=args.budget)
    seed = parse_seed(args.seed)
    jsonl: IO[str] | None = None
    if args.jsonl is not None:
        try:
            jsonl = open(args.jsonl, "w", encoding="utf-8")  # noqa: SIM115 - see `finally`
        except OSError as exc:
            return cli_error(
                "simulate", f"cannot write --jsonl {args.jsonl!r}: {exc.strerror or exc}"
            )
    try:
        summary = simulate(options, args.games, seed, names, jsonl)
        if jsonl is not None:
            jsonl.close()
    except BrokenPipeError:
        raise  # `--jsonl /dev/stdout | head`: bot.__main__ ends quietly
    except OSError as exc:  # only the --jsonl file is written while the hands are played
        return cli_error("simulate", f"cannot write --jsonl {args.jsonl!r}: {exc.strerror or exc}")
    finally:
        if jsonl is not None and not jsonl.closed:
            with contextlib.suppress(OSError):  # the error being reported is the first one
                jsonl.close()
    return write_stdout("simulate", json.dumps(summary, indent=2))
