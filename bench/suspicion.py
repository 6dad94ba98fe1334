"""Who is the socio, read from the public play: refit `SUSPICION` and measure it.

    python -m bench.suspicion [--hands 2000] [--level normal] [--seed 77]

Plays chiamata hands with five players of one level and, at every card played before the
called card shows (from the second card of the hand on), counts the public events
`suspicion_events` reports for each non-caller. A conditional logit (the socio is one of the
four non-callers, each weighed by exp of its events' summed weights) is fitted by gradient
descent on 70% of the hands; on the other 30% it prints the log-loss of who the socio is
under the fitted weights, under today's `SUSPICION`, and with no inference (ln 4). Hands the
caller plays alone are left out. numpy does the fit (a dependency of matplotlib's).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from bot.engine import PLAY, HandState, Options, first_dealer
from bot.players import make_player
from bot.players.knowledge import SUSPICION
from bot.players.suspicion import suspicion_events

EVENTS = tuple(SUSPICION)


def positions(hands: int, level: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per position: the event counts of the four non-callers (positions x 4 x events), the
    index of the socio among them, and the hand it comes from."""
    options = Options.parse("chiamata")
    xs: list[list[list[int]]] = []
    ys: list[int] = []
    hand_of: list[int] = []
    for k in range(hands):
        dealer = (first_dealer(seed, 5) + k) % 5
        state = HandState.deal(options, seed, k, dealer)
        players = [make_player(level, f"suspicion:{seed}:{k}:{s}") for s in range(5)]
        while not state.is_terminal():
            seat = state.current
            obs = state.observation(seat)
            hidden = state.partner != state.caller and state.reveal_trick < 0
            if state.phase == PLAY and hidden and (obs.tricks or obs.trick):
                cands = [s for s in range(5) if s != state.caller]
                counts = {s: [0] * len(EVENTS) for s in cands}
                for s, event in suspicion_events(obs):
                    counts[s][EVENTS.index(event)] += 1
                xs.append([counts[s] for s in cands])
                ys.append(cands.index(state.partner))
                hand_of.append(k)
            state.apply(players[seat].act(obs), seat)
    return np.array(xs, dtype=float), np.array(ys), np.array(hand_of)


def log_loss(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    z = x @ w
    z = z - z.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-log_p[np.arange(len(y)), y].mean())


def fit(x: np.ndarray, y: np.ndarray, steps: int = 3000, l2: float = 1e-3) -> np.ndarray:
    """The weights of the conditional logit, by gradient descent on the mean log-loss."""
    w = np.zeros(x.shape[2])
    rows = np.arange(len(y))
    for _ in range(steps):
        z = x @ w
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        grad = (x * p[:, :, None]).sum(axis=1) - x[rows, y]
        w -= 0.5 * (grad.mean(axis=0) + l2 * w)
    return w


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--level", default="normal")
    parser.add_argument("--seed", type=int, default=77)
    args = parser.parse_args()
    t0 = time.perf_counter()
    x, y, hand_of = positions(args.hands, args.level, args.seed)
    train = hand_of < int(0.7 * args.hands)
    test = ~train
    w = fit(x[train], y[train])
    today = np.array([SUSPICION[e] for e in EVENTS])
    print(
        f"{len(y)} positions of {args.hands} hands of five {args.level} "
        f"({time.perf_counter() - t0:.0f}s); held-out log-loss of who is the socio: "
        f"fitted {log_loss(w, x[test], y[test]):.3f}, "
        f"SUSPICION {log_loss(today, x[test], y[test]):.3f}, none {math.log(4):.3f}"
    )
    for event, fitted, now, mean in zip(EVENTS, w, today, x.sum(axis=1).mean(axis=0), strict=True):
        print(f"  {event:20} fitted {fitted:+.2f}  SUSPICION {now:+.2f}  per position {mean:.2f}")


if __name__ == "__main__":
    main()
