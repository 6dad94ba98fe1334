"""`python -m bot play` (bot/cli/play.py) and the text renderer (bot/cli/render.py).

Matches are driven by scripted answers; every printed chunk is checked against the hidden
state of the hand in progress, so a card held by another seat is never printed (RULES.md
§6.1 and §5.2 are the only exceptions, §7.6 keeps the chiamata partner secret).
"""

from __future__ import annotations

import argparse
import functools
import itertools
import random
import re
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator

import pytest

from bot.cli import play as cli_play
from bot.cli import render as R
from bot.cli.play import add_play_parser, main_play, run_play
from bot.engine import actions as A
from bot.engine.cards import DECK32, DECK40, Deck
from bot.engine.match import HandRecord, Match
from bot.engine.observation import Observation
from bot.engine.options import Options
from bot.engine.state import CALL_CARD, NAME_SUIT, OVER, PLAY, HandState
from bot.i18n import LANGS
from bot.i18n import words as W
from bot.players import make_player
from tests.support.cli import REFUSED_BY_BOTH

BAD_INPUTS = ["abc", "0", "99", ""]
HUMAN = 0


# ---------------------------------------------------------------------- helpers


class Script:
    """An input_fn: the scripted answers first, then `default` forever (or EOF when None)."""

    def __init__(self, answers: Iterable[str], default: str | None = "1") -> None:
        self._answers: Iterator[str] = iter(answers)
        self.default = default
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        try:
            return next(self._answers)
        except StopIteration:
            if self.default is None:
                raise EOFError from None
            return self.default


def card_patterns(card: int, state: HandState) -> list[re.Pattern[str]]:
    """Every way the renderer may print `card`: its notation and its full names."""
    return _card_patterns(card, state.rules.deck, state.options.deck == "french")


@functools.cache
def _card_patterns(card: int, deck: Deck, french: bool) -> list[re.Pattern[str]]:
    label = re.escape(deck.label(card))
    pats = [re.compile(rf"(?<![0-9A-Za-z]){label}(?![0-9A-Za-z])")]
    for lang in LANGS:
        name = re.escape(W.card_name(card, deck, lang, french=french))
        pats.append(re.compile(rf"(?<![0-9A-Za-z]){name}(?![0-9A-Za-z])"))
    return pats


def hidden_cards(state: HandState, seat: int) -> set[int]:
    """Cards `seat` must not see now: other seats' hands, minus what the rules make public."""
    rules = state.rules
    if rules.public_hands:  # scoperta §6.1
        return set()
    shown_partners = rules.reveal_partners and state.phase == PLAY and state.talon_exhausted()
    hidden: set[int] = set()
    for s, hand in enumerate(state.hands):
        if s == seat:
            continue
        if shown_partners and rules.side_of[s] == rules.side_of[seat]:  # §5.2
            continue
        hidden.update(hand)
    hidden.discard(state.turned)  # the turned briscola stays public (§3.2)
    hidden.discard(state.called_card)  # the called card is named aloud, not its holder (§7.5)
    return hidden


def assert_no_leak(text: str, state: HandState, seat: int) -> None:
    for card in hidden_cards(state, seat):
        for pat in card_patterns(card, state):
            assert not pat.search(text), (
                f"{state.rules.deck.label(card)}, held by seat {state.holder_of(card)}, "
                f"printed for seat {seat}:\n{text}"
            )
    if state.rules.chiamata and state.phase != OVER:
        assert_partner_secret(text, state, seat)


def assert_partner_secret(text: str, state: HandState, seat: int) -> None:
    """§7.6: until the called card is played, only the partner knows who the partner is."""
    if state.partner < 0 or state.partner == seat or state.partner_known() or state.carichi:
        return
    names = cli_play.seat_names(state.n_players, seat, "it") + cli_play.seat_names(
        state.n_players, seat, "en"
    )
    partner_names = {names[state.partner], names[state.n_players + state.partner]}
    for line in text.splitlines():
        low = line.lower()
        if any(w in low for w in ("socio", "partner", "da solo", "alone")):
            for name in partner_names:
                assert not re.search(rf"\b{re.escape(name)}\b", line), (
                    f"partner {name} hinted before the called card was played: {line!r}"
                )


class Recorder:
    """output_fn that keeps the text and checks each chunk against the live hidden state."""

    def __init__(self, seat: int = HUMAN) -> None:
        self.chunks: list[str] = []
        self.states: list[HandState] = []
        self.seat = seat

    def __call__(self, text: str) -> None:
        state = self.states[-1] if self.states else None
        # Naming the suit or the card to call lists every candidate card, wherever it is.
        calling = state is not None and state.phase in (NAME_SUIT, CALL_CARD)
        if state is not None and not (calling and text.startswith(("Le tue scelte", "Your"))):
            assert_no_leak(text, state, self.seat)
        self.chunks.append(text)

    @property
    def text(self) -> str:
        return "\n".join(self.chunks)


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    """A Recorder that sees every hand `run_play` deals (through a Match subclass)."""
    rec = Recorder()

    class RecordingMatch(Match):
        def deal(self) -> HandState:
            state = super().deal()
            rec.states.append(state)
            return state

    monkeypatch.setattr(cli_play, "Match", RecordingMatch)
    return rec


def play(
    variant: str,
    recorder: Recorder,
    script: Script,
    seed: int = 11,
    options: dict[str, str] | None = None,
    lang: str = "it",
    seat: int = HUMAN,
) -> int:
    recorder.seat = seat
    return run_play(
        variant,
        seed,
        options or {},
        seat=seat,
        opponents="simple",
        lang=lang,
        input_fn=script,
        output_fn=recorder,
    )


# ---------------------------------------------------------------------- card and action names


def test_card_names_italian_english_and_notation() -> None:
    assert W.card_name(DECK40.card("1D"), DECK40) == "Asso di denari"
    assert W.card_name(DECK40.card("10S"), DECK40) == "Re di spade"
    assert W.card_name(DECK40.card("3B"), DECK40) == "3 di bastoni"
    assert W.card_name(DECK40.card("9C"), DECK40) == "Cavallo di coppe"
    assert W.card_name(DECK40.card("8C"), DECK40, "en") == "Jack of cups"
    assert W.card_name(DECK40.card("1D"), DECK40, "en") == "Ace of coins"
    # §1.3 french display names
    assert W.card_name(DECK40.card("9C"), DECK40, french=True) == "Donna di cuori"
    assert W.card_name(DECK40.card("10B"), DECK40, "en", french=True) == "King of clubs"
    # §9.1 Briškula32
    assert DECK32.label(DECK32.card("TD")) == "TD"
    assert W.card_name(DECK32.card("TD"), DECK32) == "10 di denari"
    assert W.card_name(DECK32.card("9S"), DECK32, "en") == "9 of swords"
    assert W.card_name(DECK32.card("QB"), DECK32, "en", french=True) == "Queen of clubs"


def _obs(variant: str, opts: dict[str, str] | None = None, seed: int = 1) -> Observation:
    state = HandState.deal(Options.parse(variant, opts or {}), seed, 0, 0)
    return state.observation(state.current)


def test_action_labels() -> None:
    obs = _obs("chiamata")
    assert W.action_label(A.CALL_RANK + 10, obs) == "Chiama il Re"
    assert W.action_label(A.CALL_RANK + 1, obs) == "Chiama l'Asso"
    assert W.action_label(A.CALL_RANK + 10, obs, "en") == "Call the King"
    assert W.action_label(A.BID_POINTS + 64, obs) == "Due a 64"
    assert W.action_label(A.PASS, obs) == "Passo"
    assert W.action_label(A.PASS, obs, "en") == "Pass"
    assert W.action_label(A.CARICHI, obs).startswith("Carichi")
    assert W.action_label(A.NAME_SUIT + 2, obs).startswith("Spade")
    assert W.action_label(A.NAME_SUIT + 3, obs, "en").startswith("Batons")
    assert W.action_label(A.CALL_CARD + 0, obs) == "Chiama Asso di denari (1D)"
    assert W.action_label(A.SIGNAL + 0, obs) == "Segnale al compagno: ho l'Asso di briscola"
    assert "Ace" in W.action_label(A.SIGNAL + 0, obs, "en")
    assert W.action_label(A.BLIND + 1, obs) == "Carta coperta n.2"
    assert W.action_label(A.BLIND + 1, obs, "en") == "Face-down card #2"
    assert W.action_label(DECK40.card("10S"), obs) == "Re di spade (10S)"
    points = _obs("chiamata", {"auction": "points"})
    assert W.action_label(A.BID_POINTS + 70, points) == "A 70 punti"
    french = _obs("due", {"deck": "french"})
    assert W.action_label(DECK40.card("1D"), french, "en") == "Ace of diamonds (1D)"
    with pytest.raises(ValueError, match="language"):
        W.action_label(A.PASS, obs, "fr")


def test_coperta_choices_are_blind_positions_and_own_hand_unseen() -> None:
    obs = _obs("coperta")
    assert obs.hand == ()
    labels = [label for _, label in R.legal_choices(obs)]
    assert labels == ["Carta coperta n.1", "Carta coperta n.2", "Carta coperta n.3"]
    assert "3 carte coperte" in R.render_table(obs)


def test_choices_are_numbered_and_cards_sorted() -> None:
    obs = _obs("due", seed=4)
    text = R.render_choices(obs)
    choices = R.legal_choices(obs)
    assert sorted(a for a, _ in choices) == sorted(obs.legal)
    for i, (_, label) in enumerate(choices, 1):
        assert f"{i:>2}) {label}" in text
    many = _obs("chiamata", {"auction": "points"})
    assert len(R.legal_choices(many)) == 61 and "61) A 120 punti" in R.render_choices(many)


# ---------------------------------------------------------------------- rendering leaks nothing


def _walk(variant: str, opts: dict[str, str], seed: int) -> Iterator[tuple[HandState, Observation]]:
    """Play one hand with computer players, yielding (state, seat 0's observation) each step."""
    options = Options.parse(variant, opts)
    state = HandState.deal(options, seed, 0, seed % options.rules().n_players)
    players = [make_player("simple", seed=f"{seed}:{s}") for s in range(state.n_players)]
    yield state, state.observation(HUMAN)
    while not state.is_terminal():
        seat = state.current
        state.apply(players[seat].act(state.observation(seat)), seat)
        yield state, state.observation(HUMAN)


LEAK_CASES = [
    ("due", {}),
    ("due", {"deck": "french"}),
    ("tre", {}),
    ("quattro", {"signals": "true"}),
    ("sei", {}),
    ("chiamata", {}),
    ("chiamata", {"auction": "points"}),
    ("chiamata4", {"carichi": "true"}),
    ("briscolone", {}),
    ("coperta", {}),
    ("scoperta", {}),
    ("briskula32", {"players": "3"}),
    ("doppia", {"players": "4", "teams": "pairs"}),
]


@pytest.mark.parametrize(("variant", "opts"), LEAK_CASES, ids=lambda x: str(x))
def test_rendering_for_seat_0_never_names_another_seats_card(
    variant: str, opts: dict[str, str]
) -> None:
    for seed in range(6):
        prev: Observation | None = None
        for state, obs in _walk(variant, opts, seed):
            for lang in LANGS:
                text = R.render_table(obs, lang=lang)
                if obs.legal and obs.phase in ("play", "auction"):
                    text += "\n" + R.render_choices(obs, lang)
                if prev is not None:
                    text += "\n" + "\n".join(R.describe_events(prev, obs, lang=lang))
                assert_no_leak(text, state, HUMAN)
                if state.rules.blind and state.phase != OVER:  # §6.2: own cards unseen too
                    for card in set(state.hands[HUMAN]) - {state.turned}:
                        for pat in card_patterns(card, state):
                            assert not pat.search(text)
            prev = obs


def test_due_opponent_hand_never_in_table_text() -> None:
    """The brief's minimum: in due, seat 0's text never holds a card of seat 1's hand, apart
    from the turned card; cards on the table and already played are of course shown."""
    for seed in range(20):
        for state, obs in _walk("due", {}, seed):
            text = R.render_table(obs) + R.render_table(obs, lang="en")
            for card in set(state.hands[1]) - {state.turned}:
                assert DECK40.label(card) not in re.findall(r"\((\w+)\)", text)
                assert W.card_name(card, DECK40) not in text
                assert W.card_name(card, DECK40, "en") not in text


def test_points_only_when_the_observation_exposes_them() -> None:
    """§3.7: no card points on the table until the last trick unless show_points."""
    for _, obs in _walk("due", {}, 3):
        text = R.render_table(obs)
        if obs.my_points is None and obs.all_points is None:
            assert "punti" not in text.lower(), text
    shown = [R.render_table(obs) for _, obs in _walk("due", {"show_points": "true"}, 3)]
    assert all("Punti presi" in t for t in shown)


def test_signals_reach_the_partner_only() -> None:
    """§5.3: a signal is shown to the sender and the partner, never to the other pair."""
    for seed in range(50):
        state = HandState.deal(Options.parse("quattro", {"signals": "true"}), seed, 0, 3)
        players = [make_player("simple", seed=s) for s in range(4)]
        while len(state.tricks) < 1:
            seat = state.current
            state.apply(players[seat].act(state.observation(seat)), seat)
        signals = [a for a in state.legal_actions() if a >= A.SIGNAL]
        if signals:
            break
    else:
        pytest.fail("no seed gives a signal to send")
    sender = state.current
    before = [state.observation(s) for s in range(4)]
    assert W.action_label(signals[0], before[sender]).startswith("Segnale al compagno")
    state.apply(signals[0], sender)
    for s in range(4):
        obs = state.observation(s)
        text = "\n".join(R.describe_events(before[s], obs, lang="it")) + R.render_table(obs)
        text_en = "\n".join(R.describe_events(before[s], obs, lang="en"))
        if s == sender:
            assert "Segnali al compagno" in text
        elif s == (sender + 2) % 4:
            assert "ti segnala" in text and "Segnali:" in text and "signals to you" in text_en
        else:
            assert "egnal" not in text and "ignal" not in text_en, text


# ---------------------------------------------------------------------- full matches


def _assert_bad_inputs_handled(out: str, script: Script, lang: str = "it") -> None:
    k = int(re.search(r"\(1-(\d+)", script.prompts[0]).group(1))  # type: ignore[union-attr]
    if lang == "it":
        assert "'abc' non è un numero" in out
        assert "0 non è tra le scelte" in out
        assert "99 non è tra le scelte" in out
        assert "Non hai scritto niente" in out
    else:
        assert "'abc' is not a number" in out
        assert "0 is not one of the choices" in out
        assert "99 is not one of the choices" in out
        assert "Nothing typed" in out
    # each bad answer was followed by the same question again
    assert script.prompts[:5] == [script.prompts[0]] * 5
    assert f"da 1 a {k}" in out or f"from 1 to {k}" in out


@pytest.mark.parametrize(
    ("variant", "opts"),
    [
        ("due", {}),
        ("chiamata", {}),
        ("coperta", {}),
        ("briscolone", {}),
        ("quattro", {}),
        ("scoperta", {}),
        ("tre", {"match": "best3"}),
        ("sei", {"match": "single"}),
        ("doppia", {"players": "4", "teams": "pairs", "match": "single"}),
        ("briskula32", {"players": "3", "match": "single"}),
        ("chiamata4", {"auction": "points", "target": "5"}),
    ],
    ids=lambda x: str(x),
)
def test_full_match_with_bad_inputs(variant: str, opts: dict[str, str], recorder: Recorder) -> None:
    script = Script(BAD_INPUTS)
    assert play(variant, recorder, script, options=opts) == 0
    out = recorder.text
    _assert_bad_inputs_handled(out, script)
    assert "Partita finita" in out
    assert "Registro:" in out
    assert "Partita interrotta" not in out
    assert "Fine della mano 1 " in out
    assert len(recorder.states) >= 1 and all(s.is_terminal() for s in recorder.states)
    # the human really played: one valid answer per human decision, four bad ones before
    decisions = len(script.prompts) - len(BAD_INPUTS)
    human_moves = sum(1 for s in recorder.states for seat, _ in s.actions if seat == HUMAN)
    assert decisions == human_moves


def test_match_result_matches_the_engine(recorder: Recorder) -> None:
    assert play("due", recorder, Script([]), seed=5, lang="en") == 0
    match = Match(Options.parse("due"), 5)
    for state in recorder.states:  # replay the same hands into a fresh Match
        match.record(state)
    assert match.over
    names = cli_play.seat_names(2, HUMAN, "en")
    assert R.render_match_result(match, names, HUMAN, "en") in recorder.text
    deltas = match.ledger_deltas()
    assert f"Ledger: You: {deltas[0]:+d} · Bot 1: {deltas[1]:+d}" in recorder.text


def test_english_match_and_bad_inputs(recorder: Recorder) -> None:
    script = Script(BAD_INPUTS)
    assert play("quattro", recorder, script, lang="en", options={"match": "single"}) == 0
    _assert_bad_inputs_handled(recorder.text, script, "en")
    assert "Match over" in recorder.text and "Your hand:" in recorder.text


def test_computer_moves_tricks_and_hand_results_are_shown(recorder: Recorder) -> None:
    assert play("tre", recorder, Script([]), options={"match": "single"}) == 0
    out = recorder.text
    assert re.search(r"^Bot [12] gioca .+ \(\w+\)$", out, re.M)
    assert re.search(r"^Giochi .+ \(\w+\)$", out, re.M)
    assert re.search(r"^Presa 1: .+ -> (la prende Bot [12]|la prendi tu)$", out, re.M)
    assert "Presa 13:" in out  # 39 cards, 13 tricks (§1.4)
    assert "--- Fine della mano 1 ---" in out
    assert "Mazzo:" in out and "mazziere" in out


def _auction_winner(script_out: Callable[[], str]) -> Callable[[str], str]:
    """Bid the last offered choice (lowest rank, then the highest points) until the human has
    named the call; then play the first card; quit after the first hand."""

    def answer(prompt: str) -> str:
        out = script_out()
        if "Fine della mano 1 " in out:
            return "q"
        k = re.search(r"\(1-(\d+)", prompt).group(1)  # type: ignore[union-attr]
        if not re.search(r"^Chiami ", out, re.M):
            return k
        return "1"

    return answer


@pytest.mark.parametrize("opts", [{}, {"auction": "points"}, {"overbid": "false"}], ids=str)
def test_chiamata_human_wins_the_auction_and_calls(
    opts: dict[str, str], recorder: Recorder
) -> None:
    answer = _auction_winner(lambda: recorder.text)
    rc = run_play("chiamata", 11, opts, input_fn=answer, output_fn=recorder)
    assert rc == 0
    out = recorder.text
    assert re.search(r"^Tu: (Chiama|Due a|A \d+ punti)", out, re.M), out[:3000]
    assert "Asta chiusa: chiamante Tu" in out
    assert re.search(r"^Chiami .+: briscola \w+$", out, re.M)
    assert "Chiamante: Tu" in out
    assert "--- Fine della mano 1 ---" in out and "Partita interrotta" in out
    state = recorder.states[0]
    assert state.caller == HUMAN and state.is_terminal()


@pytest.mark.parametrize("seed", range(4))
def test_chiamata_auction_shown_and_partner_kept_secret(seed: int, recorder: Recorder) -> None:
    script = Script(["2"])  # the human makes a call at its first turn, then passes
    assert play("chiamata", recorder, script, seed=seed) == 0
    out = recorder.text
    assert re.search(r"^Tu: Chiama ", out, re.M)
    assert re.search(r"^Bot \d( passa|: Chiama)", out, re.M)
    assert "Asta: " in out and "Offerta più alta" in out
    assert re.search(r"^Asta chiusa: chiamante ", out, re.M)
    assert re.search(r"(il socio di .+ è|gioca da solo|sei il socio)", out)
    assert "Classifica:" in out and "Partita finita" in out


def test_quit_and_eof_and_interrupt_return_0(recorder: Recorder) -> None:
    assert play("due", recorder, Script(["abc", "q"])) == 0
    assert "Partita interrotta" in recorder.text
    assert "Partita finita" not in recorder.text
    for answers in ([], ["abc"]):
        out: list[str] = []
        assert run_play("due", 1, {}, input_fn=Script(answers, None), output_fn=out.append) == 0
        assert "Partita interrotta" in "\n".join(out)

    def interrupt(prompt: str) -> str:
        raise KeyboardInterrupt

    out = []
    assert run_play("briscolone", 1, {}, lang="en", input_fn=interrupt, output_fn=out.append) == 0
    assert "Match abandoned" in "\n".join(out)


def test_card_notation_is_accepted_as_an_answer() -> None:
    out: list[str] = []
    prompts: list[str] = []

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        if len(prompts) > 1:
            return "q"
        hand: str = re.findall(r"^La tua mano: (.*)$", "\n".join(out), re.M)[-1]
        label: str = re.findall(r"\((\w+)\)", hand)[-1]
        return label.lower()

    assert run_play("due", 2, {}, input_fn=answer, output_fn=out.append) == 0
    text = "\n".join(out)
    hand = re.findall(r"^La tua mano: (.*)$", text, re.M)[0]
    last = re.findall(r"\((\w+)\)", hand)[-1]
    assert re.search(rf"^Giochi .+ \({last}\)$", text, re.M)


def test_other_seat_and_open_league(recorder: Recorder) -> None:
    assert play("due", recorder, Script([]), options={"match": "single"}, seat=1) == 0
    assert "Giochi al posto 2" in recorder.text and "Partita finita" in recorder.text
    recorder.chunks.clear()
    recorder.states.clear()
    recorder.seat = HUMAN
    # target=0 never ends (§7.13): the human is asked between hands and may stop.
    script = Script(itertools.chain(["1"] * 60, ["q"]), default="")
    rc = run_play("chiamata", 3, {"target": "0"}, input_fn=script, output_fn=recorder)
    assert rc == 0 and "lega aperta" in recorder.text and "Partita interrotta" in recorder.text


@pytest.mark.parametrize("lang", LANGS)
def test_s7_13_fixed_hands_progress_and_end_in_the_terminal(recorder: Recorder, lang: str) -> None:
    """RULES §7.13: with hands=5 the standings after each hand say how many of the five were
    played (not a target); the match ends after five counted hands, or more while the highest
    scores are equal, and the highest score wins."""
    options = {"hands": "5"}
    assert play("chiamata", recorder, Script([]), seed=10, options=options, lang=lang) == 0
    match = Match(Options.parse("chiamata", options), 10)
    for state in recorder.states:  # the same hands into a fresh Match
        match.record(state)
    assert match.over and match.counted_hands() >= 5
    assert match.winner == match.scores.index(max(match.scores))
    text = recorder.text
    for k in range(1, 5):
        assert (f"mani giocate {k} su 5" if lang == "it" else f"hands played {k} of 5") in text
    assert ("si vince a" if lang == "it" else "first to") not in text
    names = cli_play.seat_names(5, HUMAN, lang)
    assert R.render_match_result(match, names, HUMAN, lang) in text


def test_s7_13_fixed_hands_standings_tie_and_tie_break_words() -> None:
    """RULES §7.13: after the five hands with equal highest scores the standings say one more
    hand is played; at the end they count the tie-break hands with the five."""
    match = Match(Options.parse("chiamata", {"hands": "5"}), 1)
    names = cli_play.seat_names(5, HUMAN, "it")
    record = HandRecord(0, 0, False, False, (0,), (70, 50), (70, 0, 0, 0, 50), (0,) * 5)
    match.records = [record] * 5
    match.scores = [2, 2, 0, -2, -2]
    assert "pari in testa dopo 5 mani: si gioca un'altra mano" in R.render_match_status(
        match, names, "it"
    )
    assert "level at the top after 5 hands: one more hand" in R.render_match_status(
        match, names, "en"
    )
    match.records = [record] * 6
    match.scores, match.over, match.winners = [4, 1, -1, -2, -2], True, (0,)
    assert "mani giocate 6: 5 più lo spareggio" in R.render_match_status(match, names, "it")
    assert "hands played 6: 5 and the tie-break" in R.render_match_status(match, names, "en")
    match.records = [record] * 5
    assert "mani giocate 5 su 5" in R.render_match_status(match, names, "it")


def test_bad_configuration_returns_2() -> None:
    out: list[str] = []
    assert run_play("due", 1, {"colour": "red"}, output_fn=out.append) == 2
    assert run_play("nope", 1, {}, output_fn=out.append) == 2
    assert run_play("due", 1, {}, opponents="genius", output_fn=out.append) == 2
    assert run_play("due", 1, {}, seat=2, output_fn=out.append) == 2
    assert run_play("due", 1, {}, lang="fr", output_fn=out.append) == 2
    assert len(out) == 5 and all(line.startswith(("Errore", "Error")) for line in out)


# ---------------------------------------------------------------------- argparse


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bot")
    sub = parser.add_subparsers(dest="command")
    add_play_parser(sub)
    return parser


def test_play_parser_defaults_and_options() -> None:
    args = _parser().parse_args(["play"])
    assert (args.variant, args.seed, args.options, args.players, args.lang) == (
        "due",
        None,
        [],
        "normal",
        "it",
    )
    assert args.func is main_play
    args = _parser().parse_args(
        [
            *("play", "--variant", "chiamata", "--seed", "7"),
            *("--option", "target=5", "--option", "carichi=true"),
            *("--players", "random", "--lang", "en"),
        ]
    )
    assert args.variant == "chiamata" and args.seed == 7
    assert dict(args.options) == {"target": "5", "carichi": "true"}
    assert args.players == "random" and args.lang == "en"
    with pytest.raises(SystemExit):
        _parser().parse_args(["play", "--option", "novalue"])
    with pytest.raises(SystemExit):
        _parser().parse_args(["play", "--lang", "fr"])


def test_main_play_runs_run_play(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = iter(["1"] * 200)

    def fake_input(prompt: str = "") -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", fake_input)
    args = _parser().parse_args(["play", "--seed", "4", "--option", "match=single"])
    assert main_play(args) == 0
    out = capsys.readouterr().out
    assert "codice partita 4" in out and ("Partita finita" in out or "Partita interrotta" in out)
    # no seed: a random one is drawn and printed so the deal can be replayed
    monkeypatch.setattr("builtins.input", lambda prompt="": "q")
    random.seed(0)
    assert main_play(_parser().parse_args(["play", "--lang", "en"])) == 0
    assert re.search(r"seed \d+", capsys.readouterr().out)


# ---------------------------------------------------------------------- command line errors


def _play_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "play", *args],
        input="q\n",
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        *REFUSED_BY_BOTH,
        (["--seat", "2"], "--seat must be between 0 and 1 in due"),
        (["--variant", "chiamata", "--seat", "-1"], "--seat must be between 0 and 4"),
    ],
)
def test_cli_play_refuses_bad_input_in_one_line(args: list[str], message: str) -> None:
    """Refused before the match starts: nothing on stdout, one line on stderr, status 2."""
    out = _play_cli(*args)
    assert "Traceback" not in out.stderr
    assert out.returncode == 2, out.stderr
    assert out.stdout == ""
    assert out.stderr.splitlines() == [out.stderr.strip()]
    assert out.stderr.startswith("python -m bot play: error: ") and message in out.stderr


def test_cli_play_into_a_closed_pipe_ends_quietly() -> None:
    """`python -m bot play ... | head -1`: the reader goes away; no traceback, status 0."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "play", "--seed", "3", "--players", "random"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    proc.stdout.close()
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert "Traceback" not in err and "Exception" not in err, err
    assert err == "" and proc.returncode == 0


# ---------------------------------------------------------------------- --web (issue 37)


@pytest.mark.parametrize(
    "args", [["--seat", "1"], ["--seed", "3"], ["--port", "70000"], ["--delay", "-1"]]
)
def test_play_web_refuses_what_it_cannot_honour(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.__main__ import main

    assert main(["play", "--web", *args]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "--" in out.err


async def test_play_web_serves_the_mini_app_without_telegram() -> None:
    """`python -m bot play --web`: the Mini App's page on localhost against computer
    players, no token: a session without initData for the one person, their table by its
    key, a card played; anyone else's initData is still checked; Ctrl-C stops it."""
    import asyncio
    import os
    import signal
    import time

    import httpx

    from bench.rig.bot_process import REPO, free_port

    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bot",
            "play",
            "--web",
            "--port",
            str(port),
            "--delay",
            "0",
            "--variant",
            "due",
            "--lang",
            "en",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 30)
        match = re.search(r"(http://127\.0\.0\.1:\d+)/app/\?t=t(\d+)_([\w-]+)", line)
        assert match, line
        assert "open" in line  # in English: --lang en
        base, tid, key = match.group(1), int(match.group(2)), match.group(3)
        async with httpx.AsyncClient(base_url=base) as client:
            page = await client.get("/app/")
            assert page.status_code == 200 and "telegram-web-app.js" not in page.text
            r = await client.post("/api/session", json={"init_data": ""})
            assert r.status_code == 200
            headers = {"Authorization": f"Bearer {r.json()['token']}", "X-Table-Key": key}
            r = await client.post("/api/session", json={"init_data": "user=%7B%7D&hash=00"})
            assert r.status_code == 401
            deadline = time.monotonic() + 15
            while True:  # the computer may lead
                snap = (await client.get(f"/api/tables/{tid}/state", headers=headers)).json()
                if snap["playable"]:
                    break
                assert time.monotonic() < deadline, snap
                await asyncio.sleep(0.1)
            assert snap["me"] == 0 and snap["seats"][1]["bot"] and snap["lang"] == "en"
            body = {
                "hand_index": snap["hand_index"],
                "stamp": 0,
                "action": snap["playable"][0],
                "ply": snap["ply"],
            }
            r = await client.post(f"/api/tables/{tid}/act", json=body, headers=headers)
            assert r.json()["ok"], r.json()
            r = await client.post(f"/api/tables/{tid}/act", json=body, headers=headers)
            assert r.json()["moved_on"] and not r.json()["ok"]  # the same tap again
        proc.send_signal(signal.SIGINT)
        assert await asyncio.to_thread(proc.wait, 10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def test_play_web_results_speak_of_no_group_ledger() -> None:
    """Issue 52 point 4: `--web` plays with no group, so the end of a chiamata hand (whose
    result a group's table gives with "nei conti del gruppo") says nothing of a group or
    its ledger, as the page gets it from the page's own API."""
    import asyncio
    import json

    import httpx

    from bot.cli.web import WebGame, WebPlay
    from bot.webapp.hub import LiveHub

    play = WebPlay(WebGame(variant="chiamata", level="easy", lang="it", port=0, delay=0))
    url = await play.start()
    try:
        service = play.service
        assert service is not None
        hub = service.shown.live
        assert isinstance(hub, LiveHub) and not hub.group
        table_id = next(iter(service.registry.by_id))
        while True:
            await service.idle()
            table = service.registry.by_id[table_id]
            hand = table.hand
            assert hand is not None
            if hand.is_terminal():
                break
            if hand.current != 0:
                await asyncio.sleep(0.01)
                continue
            legal = hand.legal_actions()
            if hand.phase == "auction":  # no redeal: the person calls if nobody has
                called = any(a != A.PASS for _, a in hand.bids)
                action = A.PASS if called and A.PASS in legal else legal[0]
            else:
                action = legal[0]
            reply = await service.play.act(
                play.person, table_id, hand.hand_index, table.turn_start(), action
            )
            assert reply.key == "ok_played", reply
        assert not hand.result().redeal
        match = re.search(r"(http://127\.0\.0\.1:\d+)/app/\?t=t(\d+)_([\w-]+)", url)
        assert match, url
        async with httpx.AsyncClient(base_url=match.group(1)) as client:
            r = await client.post("/api/session", json={"init_data": ""})
            headers = {"Authorization": f"Bearer {r.json()['token']}", "X-Table-Key": match[3]}
            snap = (await client.get(f"/api/tables/{table_id}/state", headers=headers)).json()
        assert snap["me"] == 0 and snap["outcome"]["rows"], snap
        assert snap["outcome"]["ledger"] == ""
        text = json.dumps(snap, ensure_ascii=False).lower()
        assert "grupp" not in text and "conti" not in text, text
    finally:
        await play.stop()
