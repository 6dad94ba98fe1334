"""The card network: what each card is worth in chiamata with five players, from the seat's
own observation: the caller's side's card points at the end of the hand and its chance to
reach the target, were the seat to play that card and every seat then play as `normal` does.
Trained on decisions of hands `normal` played, every legal card of each played out on the true
deal (`train.card_data`, `train.fit card`): playing the card worth most is one step of policy
iteration on `normal`, with the hidden cards where they really are in such hands rather than
where sampled worlds put them. With `learned_card` (off: it measured no better) `hard`'s
search, before the tricks it solves exactly, must clearly beat its best card instead of the
judgement's; the weights are not shipped (`train.card_data`, `train.fit card` make them).
"""

from __future__ import annotations

from bot.engine.observation import Observation
from bot.engine.phase import Phase
from bot.players.learned import features, nets


def available(obs: Observation) -> bool:
    """Whether the network knows this table (chiamata with five, the standard deck) and is
    shipped."""
    return (
        obs.phase == Phase.PLAY
        and obs.rules.n_players == 5
        and features.applies(obs.rules, obs.briscola)
        and obs.called_card >= 0
        and nets.get("card") is not None
    )


def card_values(obs: Observation, cards: list[int], win: float) -> dict[int, float]:
    """Per card of `cards`, the seat's worth: its side's card points at the end and `win`
    points times the chance that its side wins the hand. Only where `available`."""
    import numpy as np

    net = nets.get("card")
    assert net is not None
    out = net(features.card_inputs(np.array([features.card_row(obs)], dtype=np.int64)))[0]
    canon = features.canon_map(obs.briscola)
    ours = obs.seat == obs.caller or obs.seat == obs.partner
    worth = {}
    for c in cards:
        pts = float(out[canon[c]]) * 120.0
        p = 1.0 / (1.0 + float(np.exp(-out[40 + canon[c]])))
        worth[c] = pts + win * p if ours else 120.0 - pts + win * (1.0 - p)
    return worth
