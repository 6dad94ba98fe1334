"""The options of RULES.md §7.2, §7.3, §7.8 and the table setting "counts" (§10.5) in /settings:
offered only where the variant (and the other options) allow them, named in words in both
languages. (The panel's layout is tests/test_bot_render.py's.)"""

from __future__ import annotations

import pytest

from bot.engine import VARIANTS, Options
from bot.engine.options import MATCH_FORMATS, option_choices
from bot.i18n import LANGS, option_help, option_text, value_text
from bot.table.deadlines import TIMER_CHOICES
from bot.table.settings import SETTING_CHOICES, TABLE_SETTINGS, applicable_settings
from bot.table.table import Seat, Table

NEW = ("auction_start", "first_must_call", "two_caller_raises", "carichi_mode")


def test_s7_new_options_are_settings_with_their_values() -> None:
    """RULES §7.2, §7.3, §7.8, §10.5: each option is a setting whose values are the rules'
    (the default first), and every value is one `Options` accepts for chiamata."""
    assert SETTING_CHOICES["auction_start"] == ("dealer_right", "dealer_left")
    assert SETTING_CHOICES["first_must_call"] == ("false", "true")
    assert SETTING_CHOICES["two_caller_raises"] == ("true", "false")
    assert SETTING_CHOICES["carichi_mode"] == ("ends", "continues")
    assert SETTING_CHOICES["counts"] == ("false", "true")
    default = Options.parse("chiamata")
    for key in NEW:
        assert str(getattr(default, key)).lower() == SETTING_CHOICES[key][0]
        for value in SETTING_CHOICES[key]:
            raw = {key: value, "carichi": "true"} if key == "carichi_mode" else {key: value}
            assert str(getattr(Options.parse("chiamata", raw), key)).lower() == value


def test_setting_values_are_read_from_the_options_own_types() -> None:
    """The settings' values are written once, in `Options`' types (a Literal's values, a
    bool's with the default first, a number's `Choices`) and `TIMER_CHOICES`; the panel keeps
    its order: the match's format first, the rules in `Options`' order, the table's own last."""
    rules = [key for key in SETTING_CHOICES if key not in TABLE_SETTINGS]
    assert rules == ["match", *(k for k in Options.model_fields if k not in ("variant", "match"))]
    assert list(SETTING_CHOICES)[len(rules) :] == ["timer", "counts", "pin", "review"]
    for key in rules:
        assert SETTING_CHOICES[key] == option_choices(key)
    assert SETTING_CHOICES["match"] == MATCH_FORMATS
    assert SETTING_CHOICES["deck"] == ("italian", "french")
    assert SETTING_CHOICES["overbid"] == ("true", "false")  # the default first
    assert SETTING_CHOICES["teams"] == ("none", "pairs", "threes")
    assert SETTING_CHOICES["players"] == ("2", "3", "4")
    assert SETTING_CHOICES["target"] == ("7", "11", "21", "0")  # §7.13
    assert SETTING_CHOICES["hands"] == ("0", "4", "5", "8", "10")  # §7.13
    assert SETTING_CHOICES["timer"] == tuple(str(s) for s in TIMER_CHOICES)
    assert SETTING_CHOICES["pin"] == ("false", "true")
    assert SETTING_CHOICES["review"] == ("true", "false")  # issue 51: on by default


@pytest.mark.parametrize("variant", VARIANTS)
def test_s7_settings_offered_only_where_the_variant_allows(variant: str) -> None:
    """RULES §7.2, §7.3, §7.8: the auction options are offered in chiamata only; §7.3's
    two_caller_raises only with the overbid and the rank auction; §7.8's carichi_mode only with
    carichi on."""
    offered = set(applicable_settings(Options.parse(variant)))
    if variant in ("chiamata", "chiamata4"):
        assert {"auction_start", "first_must_call", "two_caller_raises"} <= offered
        assert "carichi_mode" not in offered  # carichi is off by default
        with_carichi = applicable_settings(Options.parse(variant, {"carichi": "true"}))
        assert "carichi_mode" in with_carichi
        no_overbid = applicable_settings(Options.parse(variant, {"overbid": "false"}))
        assert "two_caller_raises" not in no_overbid
        points = applicable_settings(Options.parse(variant, {"auction": "points"}))
        assert "two_caller_raises" not in points and "carichi_mode" not in points
        assert {"auction_start", "first_must_call"} <= set(points)
    else:
        assert not offered & set(NEW)
    assert "counts" not in offered  # a table without computer seats


def test_s10_5_counts_offered_only_with_computer_seats() -> None:
    """RULES §10.5: "counts" is a choice only at a table with computer seats."""
    options = Options.parse("due")
    assert "counts" not in applicable_settings(options)
    assert "counts" in applicable_settings(options, computers=True)
    table = Table(1, -1, 10, options)
    table.seats.append(Seat(10, "Anna"))
    assert table.computer_seats() == set() and table.counts is False
    table.add_bot("normal")
    assert table.computer_seats() == {1}


@pytest.mark.parametrize("lang", LANGS)
def test_s7_s10_5_settings_named_in_words(lang: str) -> None:
    """RULES §7.2, §7.3, §7.8, §10.5: each setting and each of its values has words (and a
    help line) in Italian and English, distinct per value."""
    for key in (*NEW, "counts"):
        name = option_text(lang, key)
        assert name and name != key
        assert option_help(lang, key)
        words = [value_text(lang, key, v) for v in SETTING_CHOICES[key]]
        assert all(words) and len(set(words)) == len(words), (key, words)


def test_no_setting_is_stuck_behind_another() -> None:
    """§7.8 and §7.3: switching off the option another one depends on takes that one back to
    its default (carichi=false: carichi_mode=ends; overbid=false: two_caller_raises=true), in
    the panel's choices and at the table; a value refused by itself still is."""
    from bot.engine import OptionsError
    from bot.table.settings import setting_values

    carichi = Options.parse("chiamata", {"carichi": "true", "carichi_mode": "continues"})
    off = carichi.with_value("carichi", "false")
    assert off.carichi is False and off.carichi_mode == "ends"
    no_overbid = Options.parse("chiamata", {"two_caller_raises": "false"}).with_value(
        "overbid", "false"
    )
    assert no_overbid.overbid is False and no_overbid.two_caller_raises is True
    with pytest.raises(OptionsError):
        Options.parse("chiamata").with_value("carichi_mode", "continues")  # needs carichi

    table = Table(1, -100, 10, carichi, lang="it")
    table.join(10, "Ana")
    assert "false" in setting_values(table, "carichi")  # offered: the panel is not stuck
    table.set_option("carichi", "false")
    assert table.options.carichi is False and table.options.carichi_mode == "ends"
