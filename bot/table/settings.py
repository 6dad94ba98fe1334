"""The table's settings as rules: the values each may take (`SETTING_CHOICES`: the rules' own
from `Options`, the table's own from `Table`), those the rules allow together with the other
settings (`setting_values`), and which can change at all (`applicable_settings`). What they
look like is `bot.view.render.settings`'."""

from __future__ import annotations

from dataclasses import fields
from functools import lru_cache

from bot.engine.options import Options, option_choices, switch_values
from bot.table.deadlines import TIMER_CHOICES
from bot.table.table import Table

# Settings kept on the table itself, not in the rules' Options: they change no rule of play.
TABLE_SETTINGS = ("timer", "pin", "counts", "review")


def _table_choices(key: str) -> tuple[str, ...]:
    """A table setting's values: the timer's seconds per move (`TIMER_CHOICES`), a switch's
    default first."""
    if key == "timer":
        return tuple(str(seconds) for seconds in TIMER_CHOICES)
    default = next(f.default for f in fields(Table) if f.name == key)
    assert isinstance(default, bool), key
    return switch_values(default)


# Every setting and its values, spelled as they are stored and sent, in the order of the
# settings panel: the match's format first, the other rules in `Options`' order (their values
# from `Options`' own types, `option_choices`), then the table's own (`counts`, §10.5, only
# with computer seats; `pin`: the bot pins the table message; `review`: a hand's result names
# its costliest decision, issue 51).
SETTING_CHOICES: dict[str, tuple[str, ...]] = {
    **{
        key: option_choices(key)
        for key in ("match", *(k for k in Options.model_fields if k not in ("variant", "match")))
    },
    **{key: _table_choices(key) for key in ("timer", "counts", "pin", "review")},
}


def applicable_settings(options: Options, *, computers: bool = False) -> list[str]:
    """The settings that can take at least one value other than the current one. `counts`
    (§10.5) only at a table with computer seats (`computers`)."""
    return [
        key
        for key in SETTING_CHOICES
        if key in ("timer", "pin", "review")
        or (
            computers
            if key == "counts"
            else key not in TABLE_SETTINGS and bool(_changes(options, key))
        )
    ]


def setting_value(table: Table, key: str) -> str:
    """The setting's current value at `table`, spelled as in SETTING_CHOICES."""
    if key in TABLE_SETTINGS:
        return str(getattr(table, key)).lower()
    return current_value(table.options, key)


def setting_values(table: Table, key: str) -> list[str]:
    """The values `key` may take at `table` now, the current one included, in the order of
    SETTING_CHOICES: only what the rules allow together with the other settings."""
    if key not in applicable_settings(table.options, computers=bool(table.computer_seats())):
        return []
    current = setting_value(table, key)
    if key in TABLE_SETTINGS:
        allowed = set(SETTING_CHOICES[key])
    else:
        allowed = set(_changes(table.options, key))
    values = [v for v in SETTING_CHOICES[key] if v in allowed or v == current]
    return values if current in values else [current, *values]


def _with(options: Options, key: str, value: str) -> Options | None:
    """The options with `key` set to `value` (an option that only applied with the old value
    going back to its default), or None if the rules do not allow it."""
    try:
        return options.with_value(key, value)
    except ValueError:
        return None


def _changes(options: Options, key: str) -> tuple[str, ...]:
    """The values of `key` that are allowed with the other options and change it."""
    # each is a validation of the whole options, and a settings menu asks for every key:
    # remembered (`Options` is immutable, and tables share a few sets of them); keyed by the
    # options the table set too, which `Options.with_value` starts from and `==` ignores
    return _changes_of(options, frozenset(options.model_fields_set), key)


@lru_cache(maxsize=1024)
def _changes_of(options: Options, explicit: frozenset[str], key: str) -> tuple[str, ...]:
    current = current_value(options, key)
    out = []
    for value in SETTING_CHOICES[key]:
        changed = _with(options, key, value)
        if changed is not None and current_value(changed, key) != current:
            out.append(value)
    return tuple(out)


def current_value(options: Options, key: str) -> str:
    if key == "match":
        return options.resolved_match()
    value = getattr(options, key)
    if value is None:
        if key == "teams":
            return "pairs" if options.rules().n_sides < options.rules().n_players else "none"
        if key == "players":
            return str(options.rules().n_players)
    return str(value).lower()
