"""Strength of the computer players: paired deals between two levels.

    python -m bench.strength [--deals N] [--variants due,quattro,chiamata]
        [--matchups hard-normal,normal-easy,normal-random] [--budget 0.2] [--workers 2]
        [--json FILE] [--record FILE]

Each deal k (from --seed, dealt exactly as `python -m bot simulate` deals hand k) is played
twice, the second time with the two levels' seats swapped, so the luck of the deal cancels.
Seating: the first-named level A takes the even seats (0, 2, 4), B the odd ones; in the
swapped game B takes the even seats. Pairs variants (quattro) are then A's pair against B's;
table options follow the variant after colons (`--variants sei:teams=threes`: A's three
against B's; sei in pairs, partners at seats i and i+3, is refused, as each pair would hold
both levels).

Per matchup it prints the mean card-point difference per game from A's side with a 95%
confidence interval over the paired deals (two sides: A's side minus B's side; chiamata:
points per A seat minus points per B seat), A's win rate (games its side won; chiamata:
seat-hands on the winning side), the decision time p50/p95 per level (decisions with more
than one legal action; `--clock cpu`, the default, measures them and `hard`'s budget on the
process's CPU time, so that other work on the machine does not weaken the search measured;
`--clock wall` on wall time), and for chiamata the mean §7.12 score per seat-hand, the caller's
success rate and how often each level wins the auction (per seat it holds).

Besides the bot's levels, the bench knows baselines (`BASELINES`) to measure a change to a
level against the level as it was: `normal0` is `normal` without its exact endgame (issue 17
§6), e.g. `--variants due --matchups normal-normal0`; `normal1125` and `hard1125` are `normal`
and `hard` exactly as they were on 2026-11-25 (their code read from git, `bench/frozen.py`),
e.g. `--variants chiamata --matchups normal-normal1125`; `hard1126` is `hard` as it was
before its search got cheaper (2026-11-26), e.g. `--matchups hard-hard1126` for the CPU it
spends per seat-hand (printed per level) and the strength it keeps; `normal1126` is `normal`
before its chiamata auction thresholds went by table (issue 17 §5), e.g. `--variants
chiamata,chiamata4 --matchups normal-normal1126`; `hard1127` is `hard` before it solved a
chiamata hand's last four tricks exactly (it had solved the last two), e.g. `--variants
chiamata4 --matchups hard-hard1127`; `normal41` and `hard41` are the two levels as they were
when issue 41 began, before their learned parts, e.g. `--variants due --matchups
normal-normal41`. Two cheat, to measure a ceiling
(`bench/seers.py`): `hardseer` is `hard` whose card play sees every hand, `hardsocio` `hard`
that knows who the socio is, e.g. `--variants chiamata --matchups hardseer-normal`.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench import frozen, hard_variants, partnerplay, seers
from bot.engine import PLAY, HandState, Options, first_dealer
from bot.engine.options import OptionsError
from bot.engine.tricks import trick_winner
from bot.players import Player, make_player
from bot.players.common import clock, use_clock
from bot.players.normal import NormalPlayer

# The commit whose `normal` is the baseline of issue 17 (the player as it was on 2026-11-25,
# exact endgame included): `normal1125`
NORMAL_1125 = "ced61b17e3e226739d9b21189f1ba7efd61c4f0e"
# `hard` before its search got cheaper (issue 17, CPU): `hard1126`, the players of 2026-11-26
# with the socio hidden in rollouts, one evaluation of every move in every world
HARD_1126 = "d0fb7ad3f43c76727cf13a323a0639c9bae2c922"
# `hard` before its exact search of a chiamata hand's last four tricks (compiled; it had
# solved the last two): `hard1127`
HARD_1127 = "79604fc3b473ff6f149e6b407020286aa5268d6f"
# `normal` before its chiamata auction thresholds went by table (issue 17 §5): `normal1126`
NORMAL_1126 = "97c55512ad48e7add1bc71b9a774d88ec2ed6490"
# the players as they were when issue 41 began (before their learned parts): `normal41`,
# `hard41`
ISSUE_41 = "7ccd8aac34530f4083cc4b2f93f9e4b73eb424d3"

# Bench-only players: a level as it was before a change, to measure the change against
# (made from an rng, the hard player's budget and its fixed iterations).
BASELINES: dict[str, Callable[[random.Random, float, int | None], Player]] = {
    "normal0": lambda rng, budget, iterations: NormalPlayer(rng, exact_endgame=False),
    # `normal` without its sampled endgame two draws out (`normal.SAMPLE_TALON`): exact from
    # the talon's last draw only
    "normal1": lambda rng, budget, iterations: NormalPlayer(rng, sample_worlds=0),
    "normal1125": lambda rng, budget, iterations: frozen.normal_at(NORMAL_1125, rng),
    "normal1126": lambda rng, budget, iterations: frozen.normal_at(NORMAL_1126, rng),
    "hard1125": lambda rng, budget, iterations: frozen.hard_at(
        NORMAL_1125, rng, budget, iterations
    ),
    "hard1126": lambda rng, budget, iterations: frozen.hard_at(HARD_1126, rng, budget, iterations),
    "hard1127": lambda rng, budget, iterations: frozen.hard_at(HARD_1127, rng, budget, iterations),
    "normal41": lambda rng, budget, iterations: frozen.normal_at(ISSUE_41, rng),
    "hard41": lambda rng, budget, iterations: frozen.hard_at(ISSUE_41, rng, budget, iterations),
    "hardseer": lambda rng, budget, iterations: seers.Seer(rng, budget, iterations, False),
    "hardsocio": lambda rng, budget, iterations: seers.Seer(rng, budget, iterations, True),
    **hard_variants.PLAYERS,
}


def bench_player(name: str, seed: str, budget: float, iterations: int | None) -> Player:
    """A level of the bot (`make_player`) or a baseline (`BASELINES`)."""
    if name in BASELINES:
        return BASELINES[name](random.Random(f"player:{name}:{seed}"), budget, iterations)
    return make_player(name, seed, budget=budget, iterations=iterations)


DEFAULT_DEALS = {"due": 2000, "quattro": 300, "chiamata": 200}


@dataclass
class DealResult:
    diff: float  # A minus B, mean of the two games
    a_wins: int
    games: int  # games that count for the win rate (seat-hands in chiamata)
    times: dict[str, list[float]] = field(default_factory=dict)
    seat_hands: dict[str, int] = field(default_factory=dict)  # seats held, per level
    # chiamata
    a_score: float = 0.0
    b_score: float = 0.0
    callers: dict[str, int] = field(default_factory=dict)
    caller_wins: dict[str, int] = field(default_factory=dict)
    hands: int = 0
    score_diff: float = 0.0  # §7.12 score per A seat-hand minus per B seat-hand, both games
    # counts, "lv:what": `chiamata_play`'s, and every variant's `partnerplay`
    play: dict[str, int] = field(default_factory=dict)

    hands_played: list[dict[str, Any]] = field(default_factory=list)  # `record_hand`'s

    def add(self, key: str, n: int = 1) -> None:
        self.play[key] = self.play.get(key, 0) + n


def table_options(variant: str) -> Options:
    """A variant and its table options after colons, e.g. `sei:teams=threes`."""
    name, *opts = variant.split(":")
    raw: dict[str, str] = {}
    for opt in opts:
        key, eq, value = opt.partition("=")
        if not eq:
            raise OptionsError("table options go as key=value, e.g. sei:teams=threes")
        raw[key] = value
    return Options.parse(name, raw)


def seating_problem(options: Options) -> str | None:
    """Why this table cannot measure one level against another (`seat_levels` puts them on
    even and odd seats), or None: a side that holds both (sei in pairs, seats i and i+3)."""
    rules = options.rules()
    if rules.chiamata:
        return None  # the sides are made by the auction; the score is per seat
    for side in set(rules.side_of):
        parities = {s % 2 for s in range(rules.n_players) if rules.side_of[s] == side}
        if len(parities) > 1:
            return "its sides would hold both levels (in sei, use sei:teams=threes)"
    return None


def seat_levels(n: int, a: str, b: str, swap: bool) -> list[str]:
    even, odd = (b, a) if swap else (a, b)
    return [even if s % 2 == 0 else odd for s in range(n)]


def play_deal(
    variant: str,
    a: str,
    b: str,
    seed: int,
    k: int,
    budget: float,
    iterations: int | None,
    *,
    hopeless: bool = False,
) -> DealResult:
    """One deal played twice, the levels' seats swapped. `hopeless`: count each chiamata
    call, and the hopeless ones (`partnerplay.hand_events`: 30 random deals played out per
    hand, about 20 times the deal's own play; off for callers that read only the scores)."""
    options = table_options(variant)
    rules = options.rules()
    n = rules.n_players
    dealer = (first_dealer(seed, n) + k) % n
    diffs: list[float] = []
    score_diffs: list[float] = []
    out = DealResult(0.0, 0, 0, {a: [], b: []})
    for swap in (False, True):
        levels = seat_levels(n, a, b, swap)
        bots = [
            bench_player(lv, f"{seed}:{k}:{int(swap)}:{s}", budget, iterations)
            for s, lv in enumerate(levels)
        ]
        state = HandState.deal(options, seed, k, dealer)
        while not state.is_terminal():
            seat = state.current
            obs = state.observation(seat)
            t0 = clock()
            bot = bots[seat]
            if isinstance(bot, seers.Seer):
                bot.state = state  # a bench-only player that sees the real deal
            action = bot.act(obs)
            dt = clock() - t0
            if len(obs.legal) > 1:
                out.times[levels[seat]].append(dt)
            if state.phase == PLAY:
                for what in partnerplay.card_events(obs, action):
                    out.add(f"{levels[seat]}:{what}")
            state.apply(action, seat)
        res = state.result()
        out.hands_played.append(record_hand(variant, seed, k, dealer, levels, state))
        for lv in levels:
            out.seat_hands[lv] = out.seat_hands.get(lv, 0) + 1
        a_seats = [s for s in range(n) if levels[s] == a]
        b_seats = [s for s in range(n) if levels[s] == b]
        if rules.chiamata:
            if res.redeal:
                diffs.append(0.0)
                continue
            pa = sum(res.card_points[s] for s in a_seats) / len(a_seats)
            pb = sum(res.card_points[s] for s in b_seats) / len(b_seats)
            diffs.append(pa - pb)
            winners = set(res.winners(state.sides()))
            out.a_wins += sum(1 for s in a_seats if s in winners)
            out.games += len(a_seats)
            out.a_score += sum(res.deltas[s] for s in a_seats)
            out.b_score += sum(res.deltas[s] for s in b_seats)
            score_diffs.append(
                sum(res.deltas[s] for s in a_seats) / len(a_seats)
                - sum(res.deltas[s] for s in b_seats) / len(b_seats)
            )
            for key, v in chiamata_play(state, levels).items():
                out.add(key, v)
            for seat, what in partnerplay.hand_events(state, seed, k) if hopeless else ():
                out.add(f"{levels[seat]}:{what}")
            for s in range(n):  # §7.12 scores by role ("role_..": apart from the counts above)
                role = _role(s, state.caller, state.partner)
                for key, v in ((f"role_{role}", 1), (f"role_{role}_score", res.deltas[s])):
                    out.add(f"{levels[s]}:{key}", v)
            lv = levels[state.caller]
            out.hands += 1
            out.callers[lv] = out.callers.get(lv, 0) + 1
            out.caller_wins[lv] = out.caller_wins.get(lv, 0) + int(0 in res.winning_sides)
        else:
            side_a = rules.side_of[a_seats[0]]
            side_b = rules.side_of[b_seats[0]]
            diffs.append(float(res.side_points[side_a] - res.side_points[side_b]))
            out.a_wins += int(side_a in res.winning_sides)
            out.games += 1
    out.diff = sum(diffs) / len(diffs)
    out.score_diff = sum(score_diffs) / 2  # a redeal counts as 0
    return out


def record_hand(
    variant: str, seed: int, k: int, dealer: int, levels: list[str], state: HandState
) -> dict[str, Any]:
    """One finished hand as `--record` writes it: enough to replay it through the engine
    (`HandState.deal(table_options(variant), seed, k, dealer)`, then the actions), and the
    level in each seat (training data for the learned parts, `train/`)."""
    return {
        "variant": variant,
        "seed": seed,
        "k": k,
        "dealer": dealer,
        "levels": levels,
        "actions": [list(a) for a in state.actions],
    }


def _role(seat: int, caller: int, partner: int) -> str:
    if seat == caller:
        return "alone" if partner == caller else "caller"
    return "socio" if seat == partner else "defender"


ROLES = ("caller", "socio", "defender", "alone")


def chiamata_play(state: HandState, levels: list[str]) -> dict[str, int]:
    """What a club player would look at in one finished chiamata hand (issue 17), counted
    per level as "level:what": the socio's hands and how many it revealed in trick 1;
    defenders' carichi (a plain Asso or Tre) thrown, not in last seat, onto a trick the
    caller's side was winning, and their net card points (+ the carico's points when the
    defenders took the trick back, - when the caller's side kept it); the same for every
    carico a defender put, not in last seat, on a trick it did not win then, whoever was
    winning it (loads: on a fellow defender's trick too); of both, those thrown by choice
    ("_free": the defender held another card, not a plain carico, it could have played); a
    caller alone by calling a card of their own hand, and whether they won; leads of a bare
    carico (a plain Asso, or a plain Tre while its Asso is still out: not yet played, not the
    leader's) and the net card points of those tricks (+ the trick's points when the
    leader's side took it, - when the other side did)."""
    out: dict[str, int] = {}

    def add(lv: str, what: str, n: int = 1) -> None:
        out[f"{lv}:{what}"] = out.get(f"{lv}:{what}", 0) + n

    deck = state.rules.deck
    suit, strength, points = deck.suit, deck.strength, deck.points
    b = state.briscola
    caller, partner = state.caller, state.partner
    callers = {caller, partner}
    if partner != caller:
        add(levels[partner], "socio_hands")
        if state.reveal_trick == 0:
            add(levels[partner], "reveal_t1")
    else:
        add(levels[caller], "alone")
        if 0 in state.result().winning_sides:
            add(levels[caller], "alone_wins")
    for s in range(state.rules.n_players):
        if s not in callers:
            add(levels[s], "defender_hands")
    side = state.sides()
    played: set[int] = set()
    for t, trick in enumerate(state.tricks):
        leader, lead = trick.plays[0]
        add(levels[leader], "leads")
        if suit[lead] != b and points[lead] >= 10:
            asso = next(x for x in range(deck.size) if suit[x] == suit[lead] and points[x] == 11)
            # the leader's hand then: no talon in chiamata, so the cards it plays from here on
            later = state.tricks[t:]
            holds = any(c == asso for u in later for seat, c in u.plays if seat == leader)
            if points[lead] == 11 or (asso not in played and not holds):
                add(levels[leader], "bare_carico_leads")
                sign = 1 if side[trick.winner] == side[leader] else -1
                add(levels[leader], "bare_carico_net", sign * trick.points)
        played.update(trick.cards)
        cards: list[int] = []
        for i, (seat, c) in enumerate(trick.plays):
            last = i == len(trick.plays) - 1
            if cards and not last and seat not in callers and points[c] >= 10 and suit[c] != b:
                w = trick_winner(cards, suit, strength, b)
                beats = trick_winner((cards[w], c), suit, strength, b) == 1
                if not beats:
                    sign = -1 if trick.winner in callers else 1
                    # its hand then: the cards it plays from here on (no talon in chiamata);
                    # "free" when it held another card that is not a plain carico
                    rest = [x for u in state.tricks[t:] for q, x in u.plays if q == seat]
                    free = any(x != c and (points[x] < 10 or suit[x] == b) for x in rest)
                    kinds = ["def_loads"]
                    if trick.plays[w][0] in callers:
                        kinds.append("def_carichi")
                    for kind in kinds:
                        for what in (kind, kind + "_free") if free else (kind,):
                            add(levels[seat], what)
                            add(levels[seat], what + "_net", sign * points[c])
            cards.append(c)
    return out


def _task(args: tuple[str, str, str, int, int, float, int | None, bool]) -> DealResult:
    variant, a, b, seed, k, budget, iterations, hopeless = args
    return play_deal(variant, a, b, seed, k, budget, iterations, hopeless=hopeless)


CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


def _pin_worker(cores: list[int], clock_name: str) -> None:
    use_clock(CLOCKS[clock_name])
    if hasattr(os, "sched_setaffinity") and cores:
        ident = mp.current_process()._identity
        idx = (ident[0] - 1) % len(cores) if ident else 0
        os.sched_setaffinity(0, {cores[idx]})


def percentile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def run_matchup(
    variant: str,
    a: str,
    b: str,
    deals: int,
    seed: int,
    budget: float,
    workers: int,
    iterations: int | None,
    record: str | None = None,
    clock_name: str = "cpu",
    hopeless: bool = True,
) -> dict[str, Any]:
    """One matchup's paired deals and their summary. `clock_name`: what `hard`'s budget and
    the decision times are measured on: "cpu", the process's CPU time (on a machine shared
    with other work, what the search got), or "wall" (a move's delay at the table).
    `hopeless`: count the hopeless chiamata calls (`play_deal`)."""
    use_clock(CLOCKS[clock_name])
    tasks = [(variant, a, b, seed, k, budget, iterations, hopeless) for k in range(deals)]
    results: list[DealResult] = []
    started = time.perf_counter()
    if workers > 1:
        cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        with mp.get_context("fork").Pool(workers, _pin_worker, (cores, clock_name)) as pool:
            for i, r in enumerate(pool.imap_unordered(_task, tasks, chunksize=1)):
                results.append(r)
                _progress(variant, a, b, i + 1, deals, started)
    else:
        for i, t in enumerate(tasks):
            results.append(_task(t))
            _progress(variant, a, b, i + 1, deals, started)
    print(file=sys.stderr)
    if record:
        with open(record, "a", encoding="utf-8") as fh:
            for r in results:
                for hand in r.hands_played:
                    fh.write(json.dumps(hand) + "\n")
    diffs = [r.diff for r in results]
    mean = statistics.fmean(diffs)
    sd = statistics.stdev(diffs) if len(diffs) > 1 else 0.0
    half = 1.96 * sd / math.sqrt(len(diffs)) if diffs else 0.0
    games = sum(r.games for r in results)
    times: dict[str, list[float]] = {a: [], b: []}
    seat_hands = {a: 0, b: 0}
    for r in results:
        for lv, ts in r.times.items():
            times[lv].extend(ts)
        for lv, n_seats in r.seat_hands.items():
            seat_hands[lv] += n_seats
    summary: dict[str, Any] = {
        "variant": variant,
        "matchup": f"{a}-{b}",
        "deals": deals,
        "games": 2 * deals,
        "seed": seed,
        "budget": budget,
        "iterations": iterations,
        "clock": clock_name,
        "mean_diff": round(mean, 2),
        "ci95": [round(mean - half, 2), round(mean + half, 2)],
        "win_rate": round(sum(r.a_wins for r in results) / games, 4) if games else None,
        "decision_ms": {
            lv: {
                "n": len(ts),
                "p50": round(1000 * percentile(ts, 0.5), 2),
                "p95": round(1000 * percentile(ts, 0.95), 2),
                "max": round(1000 * max(ts), 2) if ts else None,
                # thinking time per hand played in one seat (CPU: one process per core)
                "per_seat_hand": round(1000 * sum(ts) / max(1, seat_hands[lv]), 1),
            }
            for lv, ts in times.items()
        },
        "seconds": round(time.perf_counter() - started, 1),
    }
    play: dict[str, int] = {}
    for r in results:
        for key, v in r.play.items():
            play[key] = play.get(key, 0) + v
    summary["partner"] = {lv: partner_counts(play, lv, seat_hands[lv]) for lv in (a, b)}
    rules = table_options(variant).rules()
    if rules.chiamata:
        hands = sum(r.hands for r in results)
        n = rules.n_players
        seats = {a: (n + 1) // 2, b: n // 2}
        callers = {lv: sum(r.callers.get(lv, 0) for r in results) for lv in (a, b)}
        wins = {lv: sum(r.caller_wins.get(lv, 0) for r in results) for lv in (a, b)}
        a_seat_hands = sum(r.games for r in results)
        b_seat_hands = hands * n - a_seat_hands
        sdiffs = [r.score_diff for r in results]
        smean = statistics.fmean(sdiffs)
        shalf = 1.96 * statistics.stdev(sdiffs) / math.sqrt(len(sdiffs)) if deals > 1 else 0.0

        def per(lv: str, what: str, of: str) -> float | None:
            total = play.get(f"{lv}:{of}", 0)
            return round(play.get(f"{lv}:{what}", 0) / total, 4) if total else None

        summary["chiamata"] = {
            # per deal: A's mean §7.12 score per seat-hand minus B's, the two games summed
            "score_diff": round(smean / 2, 3),
            "score_diff_ci95": [round((smean - shalf) / 2, 3), round((smean + shalf) / 2, 3)],
            "play": {
                lv: {
                    "reveal_t1": per(lv, "reveal_t1", "socio_hands"),
                    "def_carichi_per_hand": per(lv, "def_carichi", "defender_hands"),
                    "def_carichi_net_per_hand": per(lv, "def_carichi_net", "defender_hands"),
                    "def_loads_per_hand": per(lv, "def_loads", "defender_hands"),
                    "def_loads_net_per_hand": per(lv, "def_loads_net", "defender_hands"),
                    "def_carichi_free_per_hand": per(lv, "def_carichi_free", "defender_hands"),
                    "def_carichi_free_net_per_hand": per(
                        lv, "def_carichi_free_net", "defender_hands"
                    ),
                    "def_loads_free_per_hand": per(lv, "def_loads_free", "defender_hands"),
                    "def_loads_free_net_per_hand": per(lv, "def_loads_free_net", "defender_hands"),
                    "bare_carico_leads": per(lv, "bare_carico_leads", "leads"),
                    "bare_carico_net": per(lv, "bare_carico_net", "bare_carico_leads"),
                    "alone": play.get(f"{lv}:alone", 0),
                    "alone_wins": play.get(f"{lv}:alone_wins", 0),
                }
                for lv in (a, b)
            },
            # per level and role: seat-hands, mean §7.12 score, and its share of the level's
            # score per seat-hand (the shares add up to it)
            "roles": {
                lv: {
                    role: {
                        "n": play.get(f"{lv}:role_{role}", 0),
                        "mean": per(lv, f"role_{role}_score", f"role_{role}"),
                        "share": round(
                            play.get(f"{lv}:role_{role}_score", 0)
                            / max(1, a_seat_hands if lv == a else b_seat_hands),
                            4,
                        ),
                    }
                    for role in ROLES
                }
                for lv in (a, b)
            },
            "hands": hands,
            "redeals": 2 * deals - hands,
            "score_per_seat_hand": {
                a: round(sum(r.a_score for r in results) / max(1, a_seat_hands), 3),
                b: round(sum(r.b_score for r in results) / max(1, b_seat_hands), 3),
            },
            "caller_success": round(sum(wins.values()) / max(1, hands), 4),
            "caller_success_by_level": {
                lv: round(wins[lv] / callers[lv], 4) if callers[lv] else None for lv in (a, b)
            },
            # Each level holds the even seats half the time and the odd ones the other half.
            "auction_wins_per_seat": {
                lv: round(callers[lv] / max(1, hands) / ((seats[a] + seats[b]) / 2), 4)
                for lv in (a, b)
            },
            "auction_win_share": {lv: round(callers[lv] / max(1, hands), 4) for lv in (a, b)},
        }
    return summary


PARTNER_COUNTS = (
    "friend_safe",
    "load_chances",
    "loads",
    "needless_trumps",
    "def_leads",
    "def_trump_leads",
    "calls",
    "hopeless_calls",
)


def partner_counts(play: dict[str, int], lv: str, seat_hands: int) -> dict[str, Any]:
    """A level's `partnerplay` counts and their rates: loads per chance, needless trumps per
    100 safe partner tricks, defenders' briscola leads per defender lead, hopeless calls per
    call and per 100 seat-hands."""
    n = {what: play.get(f"{lv}:{what}", 0) for what in PARTNER_COUNTS}

    def rate(x: str, of: str, scale: float = 1.0) -> float | None:
        return round(scale * n[x] / n[of], 4) if n[of] else None

    return {
        **n,
        "seat_hands": seat_hands,
        "load_rate": rate("loads", "load_chances"),
        "needless_trumps_per_100": rate("needless_trumps", "friend_safe", 100.0),
        "def_trump_lead_rate": rate("def_trump_leads", "def_leads"),
        "hopeless_rate": rate("hopeless_calls", "calls"),
        "hopeless_per_100_seat_hands": round(100 * n["hopeless_calls"] / max(1, seat_hands), 3),
    }


def render_partner(s: dict[str, Any]) -> str:
    """One line: each level's partner-play counts (`partner_counts`)."""
    parts = []
    for lv, p in s["partner"].items():
        part = (
            f"{lv}: loads {p['loads']}/{p['load_chances']} ({_pct(p['load_rate'])}), needless "
            f"trumps {p['needless_trumps']} ({_num(p['needless_trumps_per_100'])}/100 safe)"
        )
        if p["def_leads"]:
            part += (
                f", defenders' briscola leads {p['def_trump_leads']}/{p['def_leads']} "
                f"({_pct(p['def_trump_lead_rate'])})"
            )
        if p["calls"]:
            part += (
                f", hopeless calls {p['hopeless_calls']}/{p['calls']} ({_pct(p['hopeless_rate'])})"
            )
        parts.append(part)
    return f"{'':9} {'':14} partner play  " + "  ".join(parts)


def _progress(variant: str, a: str, b: str, done: int, total: int, started: float) -> None:
    el = time.perf_counter() - started
    eta = el / done * (total - done)
    print(
        f"\r{variant} {a}-{b}: {done}/{total} deals, {el:.0f}s, eta {eta:.0f}s ",
        end="",
        file=sys.stderr,
        flush=True,
    )


def render(s: dict[str, Any]) -> str:
    a, b = s["matchup"].split("-")
    lines = [
        f"{s['variant']:9} {s['matchup']:14} deals {s['deals']:5}  "
        f"diff {s['mean_diff']:+6.2f} [{s['ci95'][0]:+.2f}, {s['ci95'][1]:+.2f}]  "
        f"win {100 * (s['win_rate'] or 0):5.1f}%  "
        + "  ".join(
            f"{lv} p50/p95 {s['decision_ms'][lv]['p50']:.1f}/{s['decision_ms'][lv]['p95']:.1f} ms"
            f" ({s['decision_ms'][lv]['per_seat_hand'] / 1000:.2f} s/seat-hand)"
            for lv in (a, b)
        )
        + f"  ({s['seconds']:.0f}s)"
    ]
    if "partner" in s:
        lines.append(render_partner(s))
    c = s.get("chiamata")
    if c:
        succ = ", ".join(
            f"{lv} {100 * v:.1f}%" if v is not None else f"{lv} -"
            for lv, v in c["caller_success_by_level"].items()
        )
        lines.append(
            f"{'':9} {'':14} score/seat-hand {a} {c['score_per_seat_hand'][a]:+.3f} "
            f"{b} {c['score_per_seat_hand'][b]:+.3f}  "
            f"caller success {100 * c['caller_success']:.1f}% ({succ})  "
            f"auction wins per seat {a} {100 * c['auction_wins_per_seat'][a]:.1f}% "
            f"{b} {100 * c['auction_wins_per_seat'][b]:.1f}%  redeals {c['redeals']}"
        )
        lines.append(
            f"{'':9} {'':14} score diff/seat-hand {c['score_diff']:+.3f} "
            f"[{c['score_diff_ci95'][0]:+.3f}, {c['score_diff_ci95'][1]:+.3f}]  "
            + "  ".join(
                f"{lv}: socio reveals in trick 1 {_pct(p['reveal_t1'])}, defenders' carichi "
                f"{_num(p['def_carichi_per_hand'])}/hand net {_num(p['def_carichi_net_per_hand'])}"
                f" (by choice {_num(p['def_carichi_free_per_hand'])}/hand net "
                f"{_num(p['def_carichi_free_net_per_hand'])}; all loads "
                f"{_num(p['def_loads_per_hand'])}/hand net {_num(p['def_loads_net_per_hand'])}, "
                f"by choice {_num(p['def_loads_free_per_hand'])}/hand net "
                f"{_num(p['def_loads_free_net_per_hand'])})"
                f", bare carichi {_pct(p['bare_carico_leads'])} of leads net "
                f"{_num(p['bare_carico_net'])}/lead"
                f", alone {p['alone']} (won {p['alone_wins']})"
                for lv, p in c["play"].items()
            )
        )
        lines.append(
            f"{'':9} {'':14} by role (seat-hands, mean score, share of score/seat-hand)  "
            + "  ".join(
                f"{lv}: "
                + ", ".join(
                    f"{role} {r['n']} {_num(r['mean'])} {r['share']:+.3f}"
                    for role, r in c["roles"][lv].items()
                )
                for lv in (a, b)
            )
        )
    return "\n".join(lines)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:+.2f}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, help="paired deals per matchup (default per variant)")
    p.add_argument("--variants", default="due,quattro,chiamata")
    p.add_argument("--matchups", default="hard-normal,normal-easy,normal-random")
    p.add_argument("--budget", type=float, default=0.2, help="hard: seconds per decision")
    p.add_argument("--iterations", type=int, help="hard: fixed worlds per decision, no clock")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--json", metavar="FILE", help="append the summaries as JSON lines")
    p.add_argument("--record", metavar="FILE", help="append every hand played (JSON lines)")
    p.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="cpu",
        help="hard's budget and the times on CPU time (default) or wall time",
    )
    p.add_argument(
        "--no-hopeless",
        dest="hopeless",
        action="store_false",
        help="skip counting hopeless chiamata calls (30 deals played out per hand)",
    )
    args = p.parse_args(argv)
    summaries = []
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    for variant in variants:
        try:
            problem = seating_problem(table_options(variant))
        except OptionsError as exc:
            problem = str(exc)
        if problem:
            p.error(f"{variant}: {problem}")
    for variant in variants:
        for m in [x.strip() for x in args.matchups.split(",") if x.strip()]:
            a, _, b = m.partition("-")
            deals = args.deals or DEFAULT_DEALS.get(variant, 200)
            s = run_matchup(
                variant,
                a,
                b,
                deals,
                args.seed,
                args.budget,
                args.workers,
                args.iterations,
                args.record,
                args.clock,
                args.hopeless,
            )
            summaries.append(s)
            print(render(s), flush=True)
            if args.json:
                with open(args.json, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(s) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
