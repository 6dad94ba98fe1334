"""The due network: what each card is worth in briscola a due, from the seat's own
observation: its card points at the end of the hand, were it to play that card and both
seats then play as `normal` did before it (`normal41`'s play), the last tricks exactly.
Trained on 704,000 decisions of such hands, every legal card of each played out on the true deal
(`train.due_data`, `train.fit due`): playing the card worth most is one step of policy
iteration on `normal`. `normal` plays it until the talon's last two draws, `hard` until the
last ten cards (from where both solve the worlds exactly).
"""

from __future__ import annotations

from bot.engine.observation import Observation
from bot.engine.phase import Phase
from bot.players.learned import features, nets


def available(obs: Observation) -> bool:
    """Whether the network knows this table (due, the standard deck) and is shipped."""
    return (
        obs.phase == Phase.PLAY
        and features.due_applies(obs.rules)
        and obs.briscola >= 0
        and nets.get("due") is not None
    )


def card_values(obs: Observation, cards: list[int]) -> dict[int, float]:
    """Per card of `cards`, the seat's expected card points at the end of the hand. Only
    where `available`."""
    import numpy as np

    net = nets.get("due")
    assert net is not None
    out = net(features.due_inputs(np.array([features.due_row(obs)], dtype=np.int64)))[0]
    canon = features.canon_map(obs.briscola)
    return {c: float(out[canon[c]]) * 120.0 for c in cards}
