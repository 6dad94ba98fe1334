"""The learned parts of the computer players (issue 41): the shipped networks compute what a
plain reference computes, are read lazily (the bot starts without numpy, torch or the
weights), and see positions as the rules place the cards."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from bot.engine import PLAY, HandState, Options
from bot.players import make_player, normal
from bot.players.common import card_actions
from bot.players.hard import (
    CHIAMATA_WIN,
    SOLVE_TRICKS,
    HardPlayer,
    carichi_onto_callers_side,
    distinct_moves,
    exact_cards,
)
from bot.players.knowledge import Knowledge
from bot.players.learned import card, due, features, infer, nets
from bot.players.normal import NormalPlayer
from bot.players.partners import friend_takes
from tests.support.players import chiamata_state

INPUTS = {
    "value": features.VALUE_INPUTS,
    "bid": features.BID_INPUTS,
    "infer": features.INFER_INPUTS,
    "due": features.DUE_INPUTS,
    "card": features.CARD_INPUTS,
}
OUTPUTS = {
    "value": 2,
    "bid": len(features.BID_THRESHOLDS),
    "infer": 40 * 5,
    "due": 40,
    "card": 80,
}
# the networks shipped: only those that measured better than the players without them
WEIGHTS = resources.files("bot.players.learned") / "weights"
SHIPPED = sorted(
    f.name.removesuffix(".npz")
    for f in (WEIGHTS.iterdir() if WEIGHTS.is_dir() else ())
    if f.name.endswith(".npz")
)


def stand_in(name: str, rng: np.random.Generator) -> nets.Net:
    """A small random network of `name`'s shape."""
    k = OUTPUTS[name]
    w0 = rng.normal(0.0, 0.3, (INPUTS[name], 16)).astype(np.float32)
    w1 = rng.normal(0.0, 0.3, (16, k)).astype(np.float32)
    b0 = rng.normal(0.0, 0.1, 16).astype(np.float32)
    b1 = rng.normal(0.0, 0.1, k).astype(np.float32)
    return nets.Net([(w0, b0), (w1, b1)], {"version": features.VERSION})


@pytest.fixture
def stand_in_nets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every network, shipped or not, as a small random one of its shape: the players' use
    of a network is tested apart from what the shipped weights learned."""
    rng = np.random.default_rng(41)
    for name in OUTPUTS:
        monkeypatch.setitem(nets._nets, name, stand_in(name, rng))


def reference(net: nets.Net, x: list[float]) -> list[float]:
    """The network's answer for one input, in plain Python floats from its weights."""
    last = len(net.layers) - 1
    for i, (w_, b_) in enumerate(net.layers):
        w = w_.astype(float).tolist()
        b = b_.astype(float).tolist()
        x = [sum(x[j] * w[j][k] for j in range(len(x))) + b[k] for k in range(len(b))]
        if i < last:
            x = [max(0.0, v) for v in x]
    return x


def test_the_shipped_networks_are_known_parts() -> None:
    assert set(SHIPPED) <= set(INPUTS)


@pytest.mark.parametrize("name", list(INPUTS))
def test_each_network_computes_what_the_reference_computes(name: str) -> None:
    """The numpy forward pass of each network (float32) gives the answer of a plain
    reference on the same weights, for random inputs of its width: the shipped weights
    (trained on today's inputs, `features.VERSION`, and small), or a stand-in's for a
    network not shipped (`nets.get` has none)."""
    net = nets.get(name)
    if name in SHIPPED:
        assert net is not None, f"{name}.npz was trained on other inputs"
        assert net.meta["version"] == features.VERSION
        with (WEIGHTS / f"{name}.npz").open("rb") as fh:
            assert len(fh.read()) < 1_500_000
    else:
        assert net is None
        net = stand_in(name, np.random.default_rng(5))
    assert net.inputs == INPUTS[name]
    rng = np.random.default_rng(7)
    x = (rng.random((3, net.inputs)) < 0.15).astype(np.float32) * rng.random((3, net.inputs))
    got = net(x.astype(np.float32))
    assert got.shape == (3, OUTPUTS[name])
    for row, out in zip(x, got, strict=True):
        want = reference(net, [float(v) for v in row])
        assert out.tolist() == pytest.approx(want, rel=1e-3, abs=1e-3)


def test_the_bot_starts_without_torch_numpy_or_the_weights() -> None:
    """Importing what `python -m bot` runs, and the players and their workers' module, reads
    no network and imports neither torch nor numpy (the weights load on first use)."""
    code = (
        "import sys, bot.__main__, bot.app, bot.players, bot.players.thinker\n"
        "from bot.players.learned import nets\n"
        "print(json.dumps([nets.loaded(), 'torch' in sys.modules, 'numpy' in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", "import json\n" + code],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(out) == [[], False, False]


def test_weights_are_read_once_on_first_use() -> None:
    """`nets.get` reads a network the first time it is asked for (None for one not shipped),
    then hands back the same."""
    for name in INPUTS:
        first = nets.get(name)
        assert (first is not None) == (name in SHIPPED)
        assert name in nets.loaded() and nets.get(name) is first


# --------------------------------------------------------------------------- the inputs


def test_value_row_places_every_card_from_the_seat_to_move() -> None:
    """§7.5, §7.6: the briscola is suit 0 of the row; a card in a hand is coded by its
    holder's seat after the seat to move, a card on the table by its place in the trick; the
    roles, the revealed socio and the points on the table are the position's."""
    deck = Options.parse("chiamata").rules().deck
    state = chiamata_state({0: ["3C", "1S"], 2: ["1C"], 3: ["2S"]}, 2, "1C", 2)
    # dealer 2: seat 3 leads (§7.10); coppe (C, suit 1) is the briscola
    state.apply(deck.card("2S"), 3)
    state.apply(state.hands[4][0], 4)
    row = features.state_value_row(state)  # seat 0 to move
    canon = features.canon_map(1)
    assert canon[deck.card("1C")] == 0 and canon[deck.card("1D")] == 10
    assert row[canon[deck.card("3C")]] == 0  # seat 0's own card
    assert row[canon[deck.card("1C")]] == 2  # seat 2, two places after
    assert row[canon[deck.card("2S")]] == features.IN_TRICK  # led
    assert row[40:45] == [2, 2, 0, 2, 2]  # seat 2 the caller, alone (it holds its card)
    assert row[45:48] == [1, 0, 1]  # five players, not revealed, alone
    assert row[52] == 2  # two cards on the table


def test_bid_row_reads_the_hand_with_the_called_suit_as_briscola() -> None:
    deck = Options.parse("chiamata").rules().deck
    hand = [deck.card(x) for x in ("1S", "3S", "10C", "2D", "4B", "5B", "6B", "7B")]
    row = features.bid_row(hand, deck.card("9S"), 2, 5)
    x = features.bid_inputs(np.array([row]))[0]
    assert row[10] == 8 and row[:2] == [0, 2]  # the Cavallo of briscola; Asso, Tre held
    assert x[57] == pytest.approx(2 / 5) and x[58] == pytest.approx(21 / 30)  # 2 briscole
    assert x[50] == 0.0 and x[52 + 2] == 1.0  # not alone; third after the leader


def test_infer_row_codes_what_the_seat_has_seen() -> None:
    """§7.6: the seat's own cards, the cards each seat played (by relative seat), the rest
    unseen; the called card, the caller, and the socio only once this seat knows it."""
    options = Options.parse("chiamata")
    seen = 0
    for k in range(6):
        state = HandState.deal(options, 3, k, k % 5)
        bots = [make_player("normal", f"i{k}:{s}") for s in range(5)]
        while not state.is_terminal():
            seat = state.current
            obs = state.observation(seat)
            if state.phase == PLAY and not state.carichi and state.briscola >= 0:
                row = features.infer_row(obs)
                canon = features.canon_map(obs.briscola)
                for c in range(40):
                    code = row[canon[c]]
                    if c in obs.hand:
                        assert code == features.MINE
                    elif any(c in t.cards for t in obs.tricks) or c in [x for _, x in obs.trick]:
                        s = next(
                            s
                            for t in [*obs.tricks, None]
                            for s, x in (t.plays if t else obs.trick)
                            if x == c
                        )
                        assert code == features.PLAYED + (s - seat) % 5
                    else:
                        assert code == features.UNSEEN
                assert row[41] == (obs.caller - seat) % 5
                assert row[42] == (5 if obs.partner < 0 else (obs.partner - seat) % 5)
                seen += 1
            state.apply(bots[seat].act(obs), seat)
    assert seen > 100


@pytest.mark.usefixtures("stand_in_nets")
def test_learned_knowledge_places_the_called_card_as_the_network_says() -> None:
    """§7.6: a defender's worlds, with the inference network, give the hidden called card to
    each other seat as often as the network's chance for that seat (the caller included:
    it may have called its own card, §7.7), and every world keeps the seat's own hand and
    the hand sizes."""
    checked = 0
    for k in range(20):
        state = chiamata_state({}, k % 5, "1D", (k + 2) % 5)
        rng = random.Random(k)
        for _ in range(12):  # a few tricks in
            state.apply(
                state.hands[state.current][int(rng.random() * len(state.hands[state.current]))]
            )
        me = state.current
        if me == state.partner or state.reveal_trick >= 0 or me == state.caller:
            continue
        obs = state.observation(me)
        assert infer.available(obs)
        chance = infer.holders(obs)[obs.called_card]
        know = Knowledge.of(obs, learned=True)
        counts: Counter[int] = Counter()
        draws = 400
        for _ in range(draws):
            world = know.sample_world(rng)
            assert world.hands[me] == list(obs.hand)
            assert [len(h) for h in world.hands] == list(obs.hand_sizes)
            counts[next(s for s in range(5) if obs.called_card in world.hands[s])] += 1
        for s, p in chance.items():
            assert abs(counts[s] / draws - p) < 4 * math.sqrt(p * (1 - p) / draws) + 0.01
        checked += 1
    assert checked >= 5


def test_due_row_codes_what_the_seat_has_seen() -> None:
    """§3.2-3.4, §6: in due the turned card is seen under the talon, then in the hand of
    whoever drew it; the other seat's card on the table is coded apart; the points of the
    tricks are each seat's."""
    options = Options.parse("due")
    state = HandState.deal(options, 8, 0, 0)
    bots = [make_player("normal", f"d{s}") for s in range(2)]
    seen_turned = seen_theirs = 0
    while not state.is_terminal():
        seat = state.current
        obs = state.observation(seat)
        row = features.due_row(obs)
        canon = features.canon_map(obs.briscola)
        assert sorted(c for c in range(40) if row[c] == 1) == sorted(canon[c] for c in obs.hand)
        assert [c for c in range(40) if row[c] == 4] == [canon[c] for _, c in obs.trick]
        turned = row[canon[obs.turned]]
        if obs.turned_to < 0:
            assert turned == 5
            seen_turned += 1
        elif obs.turned_to != seat and turned == 6:
            seen_theirs += 1
        mine = sum(t.points for t in obs.tricks if t.winner == seat)
        assert row[40:44] == [
            mine,
            sum(t.points for t in obs.tricks) - mine,
            obs.talon_left,
            int(not obs.trick),
        ]
        state.apply(bots[seat].act(obs), seat)
    assert seen_turned > 0


def test_card_row_codes_what_the_seat_has_seen_and_nothing_hidden() -> None:
    """§7.6-7.10: the card network's row is the seat's observation: its own cards, every card
    played and by whom, the cards on the table in order, each seat's card points taken (the
    tricks are public), the target; two deals that differ only in other seats' hidden cards
    give the same rows (nothing in another hand is seen, the socio is not given away)."""
    options = Options.parse("chiamata")
    checked = 0
    for k in range(3):
        state = chiamata_state({0: ["1B", "3B"]}, 0, "1C", 4)
        state.hands[2], state.hands[3] = state.hands[3], state.hands[2]
        other = chiamata_state({0: ["1B", "3B"]}, 0, "1C", 4)
        bots = [make_player("normal", f"c{k}:{s}") for s in range(5)]
        while not state.is_terminal():
            seat = state.current
            obs = state.observation(seat)
            row = features.card_row(obs)
            canon = features.canon_map(obs.briscola)
            assert len(row) == features.CARD_ROW
            mine = sorted(c for c in range(40) if row[c] == features.MINE)
            assert mine == sorted(canon[c] for c in obs.hand)
            table = row[features.INFER_ROW + 6 :]
            assert table == [canon[c] for _, c in obs.trick] + [features.NO_CARD] * (
                4 - len(obs.trick)
            )
            taken = row[features.INFER_ROW : features.INFER_ROW + 5]
            assert sum(taken) == sum(t.points for t in obs.tricks)
            assert row[features.INFER_ROW + 5] == obs.target == 61
            if seat == 0 and not obs.tricks and not obs.trick:
                # seats 2 and 3 swapped their hands: seat 0's first row is the same
                assert row == features.card_row(other.observation(0))
            checked += 1
            state.apply(bots[seat].act(obs), seat)
    assert options.rules().n_players == 5 and checked == 3 * 40


def learned_player(level: str, rng: random.Random) -> HardPlayer | NormalPlayer:
    """`hard` or `normal` with every learned part it has."""
    if level == "hard":
        return HardPlayer(
            rng,
            iterations=4,
            learned_value=True,
            learned_infer=True,
            learned_bid=True,
            learned_due=True,
        )
    return NormalPlayer(rng, learned_due=True, learned_infer=True, learned_bid=True)


@pytest.mark.usefixtures("stand_in_nets")
@pytest.mark.parametrize("level", ["hard", "normal"])
@pytest.mark.parametrize("variant", ["due", "chiamata", "chiamata4"])
def test_players_with_their_learned_parts_play_legal_hands(level: str, variant: str) -> None:
    """Chiamata with five and four players (§7), and due (§3): `hard` and `normal` with
    every learned part bid, name, and play legal actions to the end of each hand (the engine
    refuses an illegal one)."""
    options = Options.parse(variant)
    n = options.rules().n_players
    for k in range(3):
        state = HandState.deal(options, 11, k, k % n)
        bots = [learned_player(level, random.Random(f"{k}:{s}")) for s in range(n)]
        while not state.is_terminal():
            seat = state.current
            state.apply(bots[seat].act(state.observation(seat)), seat)


@pytest.mark.usefixtures("stand_in_nets")
def test_normal_and_hard_play_the_due_networks_card_until_the_last_draws() -> None:
    """Due (§3): while more than `normal.SAMPLE_TALON` cards are left to draw, `normal`
    plays the card the due network values most (the judgement breaks ties); so does `hard`
    (of the cards that play alike, one) until the last ten cards, from where it solves its
    worlds exactly (it searches). Without the network `normal` plays other cards in some of
    these positions."""
    options = Options.parse("due")
    deck = options.rules().deck
    checked = differs = searched = 0
    for k in range(6):
        state = HandState.deal(options, 12, k, k % 2)
        rng = random.Random(k)
        while not state.is_terminal():
            obs = state.observation(state.current)
            cards = sorted(set(obs.legal))
            hard = HardPlayer(random.Random(k), iterations=3)
            if len(cards) > 1 and obs.talon_left > normal.SAMPLE_TALON:
                worth = due.card_values(obs, cards)
                top = max(worth.values())
                best = [c for c in cards if worth[c] == top]
                assert NormalPlayer(random.Random(k)).act(obs) in best
                # `hard` weighs one card of each set that play alike (`distinct_moves`)
                moves = distinct_moves(obs, Knowledge.of(obs), card_actions(obs))
                worth = due.card_values(obs, moves)
                assert worth[hard.act(obs)] == max(worth.values()) and hard.last_worlds == 0
                plain = NormalPlayer(random.Random(k), learned_due=False).act(obs)
                differs += plain not in best
                checked += 1
            elif len(cards) > 1 and sum(obs.hand_sizes) + obs.talon_left <= exact_cards(obs.rules):
                hard.act(obs)
                searched += hard.last_worlds > 0
            state.apply(cards[rng.randrange(len(cards))])
    assert deck.size == 40 and checked >= 100 and differs >= 10 and searched >= 10


@pytest.mark.usefixtures("stand_in_nets")
def test_hard_anchors_its_search_on_the_card_networks_card() -> None:
    """Chiamata with five (§7): before the last four tricks, the card network's best card for
    the seat's side is the card `hard`'s search must clearly beat (with one world, too few to
    beat it, `hard` plays it; of the cards that play alike one, and never a defender's carico
    thrown onto the caller's side's trick, `carichi_onto_callers_side`); in the last four
    tricks it searches its worlds as without the network. Without the network it plays other
    cards in some of these positions."""
    options = Options.parse("chiamata")
    checked = differs = searched = 0
    for k in range(4):
        state = HandState.deal(options, 13, k, k % 5)
        bots = [make_player("normal", f"h{k}:{s}") for s in range(5)]
        while state.phase != PLAY:
            seat = state.current
            state.apply(bots[seat].act(state.observation(seat)), seat)
        if state.briscola < 0:
            continue
        rng = random.Random(k)
        while not state.is_terminal():
            obs = state.observation(state.current)
            know = Knowledge.of(obs)
            moves = distinct_moves(obs, know, card_actions(obs))
            kept = [m for m in moves if m not in carichi_onto_callers_side(obs)] or moves
            hard = HardPlayer(random.Random(k), iterations=1, learned_card=True)
            if len(moves) > 1 and not friend_takes(obs, know):
                got = hard.act(obs)
                if len(obs.tricks) < 8 - SOLVE_TRICKS:
                    worth = card.card_values(obs, kept, CHIAMATA_WIN)
                    assert got in kept and worth[got] == max(worth.values())
                    plain = HardPlayer(random.Random(k), iterations=1).act(obs)
                    differs += plain != got
                    checked += 1
                else:
                    searched += hard.last_worlds > 0
            cards = sorted(set(obs.legal))
            state.apply(cards[rng.randrange(len(cards))])
    assert checked >= 40 and differs >= 5 and searched >= 10


def made_twice(tmp_path: Path, make: Callable[[Path], None], name: str) -> tuple[np.ndarray, ...]:
    """The chunk `name` that `make` writes, made twice in two folders: the same both times
    (the same seed makes the same chunk). Its rows, cards, values and chosen cards."""
    for out in (tmp_path / "a", tmp_path / "b"):
        out.mkdir()
        make(out)
    with np.load(tmp_path / "a" / name) as a, np.load(tmp_path / "b" / name) as b:
        assert sorted(a.files) == sorted(b.files)
        for key in a.files:
            assert np.array_equal(a[key], b[key])
        return a["rows"], a["cards"], a["values"], a["chosen"]


def test_due_data_values_each_legal_card_by_playing_the_hand_out(tmp_path: Path) -> None:
    """`train.due_data`: a chunk's decisions come with every legal card (canonical ids, the
    briscola suit first) and its card points at the end of the hand, `normal`'s card among
    them; the same seed makes the same chunk."""
    from train import due_data

    rows, cards, values, chosen = made_twice(
        tmp_path, lambda out: due_data.make_chunk(5, 0, 3, out), "due-0.npz"
    )
    assert len(rows) > 60  # 3 hands, some 30 decisions each before the last draws
    for row, cs, vs, c in zip(rows, cards, values, chosen, strict=True):
        legal = [x for x in cs if x != due_data.NONE]
        assert len(legal) >= 2 and len(set(legal)) == len(legal)
        assert sorted(legal) == sorted(x for x in range(40) if row[x] == 1)  # its hand
        assert c in legal
        assert all(row[40] <= v <= 120 for v, x in zip(vs, cs, strict=True) if x != due_data.NONE)
        assert row[42] > due_data.RECORD_TALON


def test_card_data_values_each_legal_card_by_playing_the_hand_out(tmp_path: Path) -> None:
    """`train.card_data`: a chunk's chiamata decisions before the last four tricks come with
    every legal card (canonical ids) and the caller's side's card points at the end of the
    hand were it played, `normal`'s card among them; the same seed makes the same chunk."""
    from train import card_data

    rows, cards, values, chosen = made_twice(
        tmp_path, lambda out: card_data.make_chunk(5, 0, 2, out), "card-0.npz"
    )
    assert len(rows) >= 30  # two hands (unless redealt), 20 card plays each before the last 4
    tricks_at = 45  # `features.infer_row`: tricks done
    for row, cs, vs, c in zip(rows, cards, values, chosen, strict=True):
        legal = [x for x in cs if x != card_data.NONE]
        assert len(legal) >= 2 and len(set(legal)) == len(legal)
        assert sorted(legal) == sorted(x for x in range(40) if row[x] == features.MINE)
        assert c in legal
        assert all(0 <= v <= 120 for v in vs)
        assert row[tricks_at] < 8 - card_data.RECORD_TRICKS
    assert len({tuple(v) for v in values}) > 1


def test_the_thinker_reads_the_due_network_on_a_thread_after_it_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bot's thinker (where `normal` decides on the event loop) reads the due network on
    a thread of its own once started, so that the first due move does not wait for numpy
    and the weights; before `WARM_AFTER` it has not read it."""
    import threading
    import time

    from bot.players import thinker

    read_by: list[str] = []
    monkeypatch.setattr(nets, "get", lambda name: read_by.append(threading.current_thread().name))
    monkeypatch.setattr(thinker, "WARM_AFTER", 0.2)
    t = thinker.Thinker(workers=0)
    t.start()
    assert read_by == []
    deadline = time.monotonic() + 5.0
    while not read_by and time.monotonic() < deadline:
        time.sleep(0.01)
    t.close()
    assert read_by == ["due-net"]


def test_the_fits_suit_shuffle_moves_every_card_with_its_suit() -> None:
    """`train.suits`, the fits' augmentation: per row, the three suits other than the
    briscola (canonical suit 0) are shuffled as wholes, and every array that names a card
    follows the same map: per-card places (`moved`) and card ids (`renamed`, where 40 or more
    means none)."""
    from train.suits import moved, renamed, shuffle_suits

    rng = np.random.default_rng(5)
    m = 200
    rows = np.tile(np.arange(45), (m, 1))  # place c holds card c; 40-44: other columns
    out, new_of = shuffle_suits(rows, rng)
    assert np.array_equal(out[:, 40:], rows[:, 40:])  # only the per-card places move
    for i in range(m):
        assert np.array_equal(new_of[i, :10], np.arange(10))  # the briscola stays
        assert sorted(new_of[i]) == list(range(40))
        suit_of = {c // 10: new_of[i, c] // 10 for c in range(40)}
        assert all(new_of[i, c] == suit_of[c // 10] * 10 + c % 10 for c in range(40))
        assert all(out[i, new_of[i, c]] == c for c in range(40))
    assert len({tuple(r) for r in new_of}) > 1  # rows get their own orders
    ids = np.array([[3, 17, 40, 255], [25, 39, 0, 40]] * (m // 2))
    got = renamed(ids, new_of)
    assert np.array_equal(got[:, 2:][ids[:, 2:] >= 40], ids[:, 2:][ids[:, 2:] >= 40])
    assert all(got[i, 0] == new_of[i, ids[i, 0]] for i in range(m))
    assert np.array_equal(renamed(ids[:, 1], new_of), got[:, 1])  # one id per row
    owner = rng.integers(-1, 5, size=(m, 40)).astype(np.int8)
    placed = moved(owner, new_of)
    assert placed.dtype == np.int8
    assert all(placed[i, new_of[i, c]] == owner[i, c] for i in range(m) for c in range(40))
