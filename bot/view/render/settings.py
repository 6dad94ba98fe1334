"""The table's settings as people see them: the settings panel, one setting's screen, and the
rules in words (`options_summary`); what each setting may take is `bot.table.settings`'."""

from __future__ import annotations

import html

from bot.engine.options import Options
from bot.i18n import option_help, option_name, t, value_name, variant_name
from bot.table.settings import (
    SETTING_CHOICES,
    TABLE_SETTINGS,
    applicable_settings,
    current_value,
    setting_value,
    setting_values,
)
from bot.table.table import Table
from bot.view.callback_data import callback_data
from bot.view.render.common import Button, Keyboard, Rendered, esc


def options_summary(table: Table, lang: str) -> str:
    """The table's rules in words: the match format (chiamata: its target, or its fixed number
    of hands, §7.13), then every other setting that differs from its default ("Formato: al
    meglio delle 5 mani · Carte: francesi")."""
    options = table.options
    first = "match"
    if options.rules().chiamata:  # §7.13: a fixed number of hands, or the target
        first = "hands" if options.hands else "target"
    parts = [(first, setting_value(table, first))]
    explicit = {k for k in options.explicit() if k not in ("variant", first)}
    default = Options.parse(options.variant)
    for key in SETTING_CHOICES:
        if key in explicit and current_value(options, key) != current_value(default, key):
            parts.append((key, current_value(options, key)))
    for key in TABLE_SETTINGS:
        value = setting_value(table, key)
        if key in SETTING_CHOICES and value not in ("0", "false"):
            parts.append((key, value))
    return " · ".join(
        t(lang, "setting_button", name=option_name(lang, k), value=value_name(lang, k, v))
        for k, v in parts
    )


def settings_message(table: Table, lang: str) -> Rendered:
    """The settings panel: each setting by its name and current value in words; a tap opens
    the setting's own screen (`option_message`)."""
    tid = table.table_id
    lines = [
        t(lang, "settings_title", variant=variant_name(lang, table.options.variant)),
        t(lang, "settings_hint"),
    ]
    kb: Keyboard = []
    for key in applicable_settings(table.options, computers=bool(table.computer_seats())):
        value = value_name(lang, key, setting_value(table, key))
        label = t(lang, "setting_button", name=option_name(lang, key), value=value)
        kb.append([Button(html.unescape(label), callback_data("o", tid, key))])
    kb.append([Button(t(lang, "btn_back"), callback_data("l", tid, "back"))])
    return Rendered("\n".join(lines), kb)


def option_message(table: Table, key: str, lang: str) -> Rendered:
    """One setting: its name, what it does in a line, its value now, and a button for each
    value allowed with the other settings (the current one ticked)."""
    tid = table.table_id
    current = setting_value(table, key)
    lines = [
        t(lang, "option_title", name=option_name(lang, key)),
        esc(option_help(lang, key)),
        t(lang, "option_now", value=value_name(lang, key, current)),
    ]
    kb: Keyboard = []
    for value in setting_values(table, key):
        mark = "✅ " if value == current else ""
        label = mark + value_name(lang, key, value)
        kb.append([Button(label, callback_data("s", tid, key, value))])
    kb.append([Button(t(lang, "btn_settings_back"), callback_data("l", tid, "settings"))])
    return Rendered("\n".join(lines), kb)
