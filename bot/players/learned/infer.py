"""The inference network: who holds each card a chiamata seat cannot see, from
the auction and the play so far (trained on hands of `normal` and `hard` players,
`train.infer_data`), in place of the hand-fitted weights of `knowledge` (`SUSPICION`, the
caller's and the bidders' leanings): `Knowledge.of(obs, learned=True)` samples its worlds
with these chances, and the socio's likelihood (`suspicion`) is the called card's.
"""

from __future__ import annotations

from bot.engine.observation import Observation
from bot.engine.phase import Phase
from bot.players.learned import features, nets


def available(obs: Observation) -> bool:
    """Whether the network knows this table and moment (chiamata play, a card called with
    its briscola) and is shipped."""
    return (
        obs.phase == Phase.PLAY
        and obs.caller >= 0
        and not obs.carichi
        and obs.called_card >= 0
        and features.applies(obs.rules, obs.briscola)
        and nets.get("infer") is not None
    )


def holders(obs: Observation) -> dict[int, dict[int, float]]:
    """Per card this seat cannot see, the chance that each other seat holding hidden cards
    holds it (they add up to 1). Only where `available`."""
    import numpy as np

    net = nets.get("infer")
    assert net is not None
    row = features.infer_row(obs)
    logits = net(features.infer_inputs(np.array([row], dtype=np.int64)))[0].reshape(40, 5)
    n = obs.rules.n_players
    me = obs.seat
    rel = [(s - me) % n for s in range(n)]
    seats = [s for s in range(n) if s != me and obs.hand_sizes[s] > 0]
    canon = features.canon_map(obs.briscola)
    out: dict[int, dict[int, float]] = {}
    for c in range(40):
        if row[canon[c]] != features.UNSEEN:
            continue
        z = np.array([logits[canon[c], rel[s]] for s in seats], dtype=np.float64)
        p = np.exp(z - z.max())
        p /= p.sum()
        out[c] = {s: float(x) for s, x in zip(seats, p, strict=True)}
    return out
