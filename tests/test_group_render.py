"""Issue 11 §5-§7 without a bot: the settings in words, the points bids in two taps, labels
without codes, computer players' names, Italian that reads right.

The end-to-end side (a real bot against the stand-in Bot API) is tests/test_e2e_group.py.
"""

from __future__ import annotations

import re

import pytest

from bench.rig.telegram import parse_html
from bot.engine import VARIANTS, HandState, Options
from bot.engine import actions as A
from bot.i18n import LANGS, option_help, option_text, t, value_text
from bot.table.settings import SETTING_CHOICES, TABLE_SETTINGS, setting_values
from bot.table.table import Seat, Table
from bot.view.render import (
    Rendered,
    lobby_message,
    option_message,
    private_message,
    seat_name,
    settings_message,
    table_message,
)
from bot.view.render.auction import auction_prompt

TID = 4_242
CHAT = -100_777


def plain(r: Rendered) -> str:
    text, _ = parse_html(r.text)
    return text


def data_of(r: Rendered) -> list[tuple[str, str]]:
    return [(b.text, b.data or "") for row in r.keyboard for b in row]


@pytest.mark.parametrize("lang", LANGS)
def test_every_setting_and_value_has_words_in_every_language(lang: str) -> None:
    """Every key of SETTING_CHOICES (new rule options included: they get caught here) has
    a name, a one-line explanation and a name for each value, in each language."""
    for key, values in SETTING_CHOICES.items():
        name = option_text(lang, key)
        assert name and name != key, (lang, key)
        help_line = option_help(lang, key)
        assert help_line and "\n" not in help_line and len(help_line) <= 160, (lang, key)
        for value in values:
            words = value_text(lang, key, value)
            assert words, (lang, key, value)


def lobby_table(variant: str, lang: str, opts: dict[str, str] | None = None) -> Table:
    table = Table(TID, CHAT, 1, Options.parse(variant, opts or {}), lang=lang)
    table.join(1, "Anna")
    return table


RAW = re.compile(r"\b[a-z]+_[a-z_]+\b|\w+=\w+")  # show_points, dealer_right, match=best5


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_settings_speak_in_words(variant: str, lang: str) -> None:
    """The lobby names the rules in words; the panel lists each setting with its value in
    words; each setting's screen explains it and offers exactly the values the rules allow
    with the others, the current one ticked."""
    table = lobby_table(variant, lang)
    table.add_bot("hard")
    lobby = plain(lobby_message(table, lang))
    assert not RAW.search(lobby), lobby
    panel = settings_message(table, lang)
    labels = [text for text, data in data_of(panel) if data.startswith("o:")]
    assert labels
    for label in labels:
        assert ": " in label and not RAW.search(label), label
    for _, data in data_of(panel):
        if not data.startswith("o:"):
            continue
        key = data.split(":")[2]
        screen = option_message(table, key, lang)
        text = plain(screen)
        assert option_help(lang, key) in text and not RAW.search(text), text
        values = [d.split(":")[3] for _, d in data_of(screen) if d.startswith("s:")]
        assert values == setting_values(table, key) and len(values) >= 2, (key, values)
        ticked = [label for label, d in data_of(screen) if label.startswith("✅")]
        assert len(ticked) == 1, (key, ticked)
        for value in values:  # each offered value is allowed with the other settings
            if key in TABLE_SETTINGS:  # the table's own: no rule to check
                continue
            probe = Table(TID, CHAT, 1, table.options)
            probe.set_option(key, value)


def chiamata_at_the_two(lang: str, opts: dict[str, str] | None = None) -> Table:
    table = Table(TID, CHAT, 1, Options.parse("chiamata", opts or {}), lang=lang)
    for i in range(5):
        table.join(10 + i, f"P{i}")
    table.start("two-taps")
    hand = table.hand
    assert hand is not None
    table.apply(hand.current, A.CALL_RANK + 2)  # the first to speak calls the Two (§7.3)
    return table


MAX_BUTTONS = 14  # on any screen of the auction: what fits a phone without scrolling


def reach(table: Table, seat: int, lang: str) -> dict[int, int]:
    """Each points bid offered to `seat` and the taps it takes (1, 2 or 3): the first
    screen, the spans of ten, a span's values; every screen fits a phone (few buttons, at
    most five a row) and has its way back."""
    first = private_message(table, seat, lang)
    assert len(data_of(first)) <= MAX_BUTTONS and all(len(row) <= 5 for row in first.keyboard)
    taps = {int(d.split(":")[4]): 1 for _, d in data_of(first) if d.startswith("a:")}
    more = [d for _, d in data_of(first) if d.startswith("m:")]
    assert len(more) == 1, data_of(first)
    assert more[0].endswith(":1")
    second = private_message(table, seat, lang, bid_page=1)
    assert len(data_of(second)) <= MAX_BUTTONS
    back = [d for _, d in data_of(second) if d.startswith("m:") and d.endswith(":0")]
    assert back == [more[0][:-1] + "0"]
    spans = [(label, d) for label, d in data_of(second) if d.startswith("m:") and d not in back]
    assert spans and all("–" in label for label, _ in spans), spans
    for _, d in data_of(second):
        if d.startswith("a:"):
            taps.setdefault(int(d.split(":")[4]), 2)
    for label, d in spans:
        screen = private_message(table, seat, lang, bid_page=int(d.split(":")[4]))
        assert len(data_of(screen)) <= MAX_BUTTONS and all(len(r) <= 5 for r in screen.keyboard)
        low, high = (int(x) for x in label.split("–"))
        values = [int(d2.split(":")[4]) for _, d2 in data_of(screen) if d2.startswith("a:")]
        points = [v - A.BID_POINTS for v in values if A.BID_POINTS <= v < A.PASS]
        assert points and low <= min(points) and max(points) <= high, (label, points)
        assert [d2 for _, d2 in data_of(screen) if d2.startswith("m:")] == [more[0]]  # back
        for v in values:
            taps.setdefault(v, 3)
    return taps


@pytest.mark.parametrize("lang", LANGS)
def test_every_points_bid_is_three_taps_away(lang: str) -> None:
    """§7.3: after the Two, any legal points bid takes at most three taps on screens that
    fit a phone: +1, +2, +5, +10 on the first screen, then the spans of ten ("70–79"), then
    the span's values; pass is on every screen."""
    table = chiamata_at_the_two(lang)
    hand = table.hand
    assert hand is not None
    seat = hand.current
    legal = set(hand.legal_actions())
    points = {a for a in legal if A.BID_POINTS <= a < A.PASS}
    taps = reach(table, seat, lang)
    assert {a for a in taps if A.BID_POINTS <= a < A.PASS} == points
    quick = sorted(a - A.BID_POINTS for a, n in taps.items() if n == 1 and a in points)
    assert quick == [62, 63, 66, 71], quick
    assert taps[A.PASS] == 1
    # raised to 80: the next one starts from there
    table.apply(seat, A.BID_POINTS + 80)
    nxt = hand.current
    taps = reach(table, nxt, lang)
    quick = sorted(a - A.BID_POINTS for a, n in taps.items() if n == 1 and a != A.PASS)
    assert quick == [81, 82, 85, 90]
    assert {a - A.BID_POINTS for a in taps if a != A.PASS} == set(range(81, 121))
    # a handful of values left: all on the first screen
    table.apply(nxt, A.BID_POINTS + 117)
    last = private_message(table, hand.current, lang)
    assert not [d for _, d in data_of(last) if d.startswith("m:")]
    offered = {int(d.split(":")[4]) - A.BID_POINTS for _, d in data_of(last) if d.startswith("a:")}
    assert {118, 119, 120} <= offered


def test_points_auction_three_taps() -> None:
    """§7.9: the points auction starts at 61, the same screens."""
    table = Table(TID, CHAT, 1, Options.parse("chiamata", {"auction": "points"}), lang="it")
    for i in range(5):
        table.join(10 + i, f"P{i}")
    table.start("points")
    hand = table.hand
    assert hand is not None
    taps = reach(table, hand.current, "it")
    points = {a for a in hand.legal_actions() if A.BID_POINTS <= a < A.PASS}
    assert {a for a in taps if a in points} == points
    assert sorted(a - A.BID_POINTS for a, n in taps.items() if n == 1 and a in points) == [
        61,
        62,
        65,
        70,
    ]


def test_suit_buttons_have_no_card_codes() -> None:
    """The caller names the suit: '🪙 Denari', its symbol and its name, no code ('2D'); the
    suit whose called card they hold says so (they would play alone, §7.7)."""
    table = chiamata_at_the_two("it", {"overbid": "false"})
    hand = table.hand
    assert hand is not None
    seat = hand.current
    assert hand.observation(seat).phase == "name_suit"
    labels = [text for text, d in data_of(private_message(table, seat, "it"))]
    held = {c // 10 for c in hand.hands[seat] if c % 10 == 1}  # their Twos (card id: suit*10+n-1)
    assert [label.split()[:2] for label in labels] == [
        ["🪙", "Denari"],
        ["🍷", "Coppe"],
        ["🗡️", "Spade"],
        ["🪵", "Bastoni"],
    ]
    for suit, label in enumerate(labels):
        assert ("(ce l'hai: da solo)" in label) == (suit in held), (labels, held)
        assert not re.search(r"\(\d\w\)", label)


def test_computer_players_have_names_not_numbers() -> None:
    table = Table(TID, CHAT, 1, Options.parse("chiamata"), lang="it")
    table.join(1, "Ada Lovelace")  # a person named Ada: no computer is called Ada too
    for level in ("difficile", "easy", "normale", "hard"):
        table.add_bot(level)
    # the table stores what happened: a computer of a level, its first name (no words of a
    # language); it is named where it is shown, in the language it is shown in
    assert [(s.user_id, s.name, s.level) for s in table.seats[1:]] == [
        (None, "Bruno", "hard"),
        (None, "Carla", "easy"),
        (None, "Dario", "normal"),
        (None, "Elsa", "hard"),
    ]
    names = [seat_name(table, seat, "it") for seat in range(1, 5)]
    assert names == [
        "🤖 Bruno (difficile)",
        "🤖 Carla (facile)",
        "🤖 Dario (normale)",
        "🤖 Elsa (difficile)",
    ]
    assert [seat_name(table, seat, "en") for seat in range(1, 5)] == [
        "🤖 Bruno (hard)",
        "🤖 Carla (easy)",
        "🤖 Dario (normal)",
        "🤖 Elsa (hard)",
    ]
    assert not any(re.search(r"\d", n) for n in names)  # never confused with a score
    assert seat_name(table, 0, "en") == "Ada Lovelace"  # a person: their name as it is
    # a table stored with the old names still loads, and shows them as they were
    for whole in ("🤖 difficile 1", "🤖 Ada (difficile)"):
        old = Seat.from_json({"user_id": None, "name": whole, "level": "hard"})
        assert old.name == whole and old.is_bot and old.lang is None
        table.seats[1] = old
        assert seat_name(table, 1, "en") == seat_name(table, 1, "it") == whole
    assert Seat.from_json(Seat(5, "Anna", lang="en").to_json()).lang == "en"


def test_italian_that_reads_right() -> None:
    assert t("it", "turn_line", who="Anna") == "Tocca ad <b>Anna</b>."
    # "ad" only before the letter a itself, never before an emoji or a symbol (issue 49)
    assert t("it", "turn_line", who="🤖 Ada (difficile)") == "Tocca a <b>🤖 Ada (difficile)</b>."
    assert t("it", "turn_line", who="«Alba»") == "Tocca a <b>«Alba»</b>."
    assert t("it", "turn_line", who="Àlvaro") == "Tocca ad <b>Àlvaro</b>."
    assert t("it", "turn_line", who="Elena") == "Tocca a <b>Elena</b>."
    assert t("it", "pm_turn_of", who="🤖 Ada") == "⏳ Tocca a <b>🤖 Ada</b>."
    assert t("it", "pm_bid_of", who="🤖 Ada") == "⏳ Asta: tocca a <b>🤖 Ada</b>."
    assert t("it", "turn_line_bid", who="🤖 Ada") == "Asta: tocca a <b>🤖 Ada</b>."
    assert t("it", "turn_line", who="Mario") == "Tocca a <b>Mario</b>."
    # in the auction one bids, not plays; the suit is named "con l'Asso", not "col Asso"
    assert t("it", "turn_line_bid", who="Anna") == "Asta: tocca ad <b>Anna</b>."
    assert t("en", "turn_line_bid", who="Anna") == "Auction: <b>Anna</b> to bid."
    table = chiamata_at_the_two("it")
    hand = table.hand
    assert hand is not None
    for seat in range(5):  # everyone else passes: the Two's caller names the suit
        if hand.current != seat and hand.phase == "auction":
            table.apply(hand.current, A.PASS)
    while hand.phase == "auction":
        table.apply(hand.current, A.PASS)
    assert "Hai vinto l'asta con il Due" in plain(private_message(table, hand.current, "it"))
    # teams win in the plural: "Vincono Mario e Luigi"
    table = Table(TID, CHAT, 1, Options.parse("quattro", {"match": "single"}), lang="it")
    for i, name in enumerate(["Mario", "Anna", "Luigi", "Bea"]):
        table.join(100 + i, name)
    table.start("plural")
    hand = table.hand
    assert hand is not None
    while not hand.is_terminal():
        table.apply(hand.current, hand.legal_actions()[0])
    table.finish_hand()
    text = plain(table_message(table, "it"))
    rec = table.match.records[-1] if table.match else None
    assert rec is not None
    if not rec.void:
        assert re.search(r"Vincono (Mario e Luigi|Anna e Bea) con \d+ punti\.", text), text
        assert re.search(r"Partita finita: vincono (Mario e Luigi|Anna e Bea)\.", text), text
        en = plain(table_message(table, "en"))
        assert re.search(r"(Mario and Luigi|Anna and Bea) win with", en), en


def _auction_table(lang: str, options: dict[str, str], seed: str) -> tuple[Table, HandState]:
    """A chiamata table of five people with `options`, its hand at the auction's start."""
    table = Table(TID, CHAT, 1, Options.parse("chiamata", options), lang=lang)
    for i in range(5):
        table.join(10 + i, f"P{i}")
    table.start(seed)
    assert table.hand is not None
    return table, table.hand


@pytest.mark.parametrize("lang", LANGS)
def test_s7_2_the_first_rank_called_opens_the_auction_then_lower_ones(lang: str) -> None:
    """§7.2-7.3: until someone calls a rank, one's turn asks to open the auction (a pass
    before it changes nothing); once a rank is called, to call a lower one. With
    `first_must_call`, the first to speak is told there is no passing."""
    table, hand = _auction_table(lang, {}, "first-bid")
    first = t(lang, "your_first_bid")
    assert auction_prompt(hand.observation(hand.current), lang) == first
    table.apply(hand.current, A.PASS)
    assert auction_prompt(hand.observation(hand.current), lang) == first
    rank = min(a for a in hand.legal_actions() if A.CALL_RANK <= a < A.BID_POINTS)
    table.apply(hand.current, rank)
    assert auction_prompt(hand.observation(hand.current), lang) == t(lang, "your_bid")
    assert first != t(lang, "your_bid")

    _, must = _auction_table(lang, {"first_must_call": "true"}, "first-bid")
    opening = auction_prompt(must.observation(must.current), lang)
    assert opening == t(lang, "your_bid_no_pass")


@pytest.mark.parametrize("lang", LANGS)
def test_s7_9_the_first_points_bid_opens_the_auction_then_more_points(lang: str) -> None:
    """§7.9 (auction=points): until someone bids, one's turn asks to open the auction with a
    bid of 61 to 120 (a pass before it changes nothing); once a bid is made, to bid more."""
    table, hand = _auction_table(lang, {"auction": "points"}, "first-points-bid")
    first = t(lang, "your_first_points_bid")
    assert "61" in first and "120" in first
    assert auction_prompt(hand.observation(hand.current), lang) == first
    table.apply(hand.current, A.PASS)
    assert auction_prompt(hand.observation(hand.current), lang) == first
    table.apply(hand.current, min(a for a in hand.legal_actions() if A.BID_POINTS <= a < A.PASS))
    assert auction_prompt(hand.observation(hand.current), lang) == t(lang, "your_points_bid")
    assert first != t(lang, "your_points_bid")


@pytest.mark.parametrize("lang", LANGS)
def test_s7_8_carichi_called_first_has_opened_the_auction(lang: str) -> None:
    """§7.8 (carichi_mode=continues): carichi called before any rank opens the auction; the
    next to speak is not asked to open it, but to call lower or pass."""
    table, hand = _auction_table(
        lang, {"carichi": "true", "carichi_mode": "continues"}, "carichi-first"
    )
    assert auction_prompt(hand.observation(hand.current), lang) == t(lang, "your_first_bid")
    table.apply(hand.current, A.CARICHI)
    assert auction_prompt(hand.observation(hand.current), lang) == t(lang, "your_bid")
