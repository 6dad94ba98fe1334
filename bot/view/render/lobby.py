"""The lobby (who sits, the rules, what can be done) and the variant picker."""

from __future__ import annotations

from bot.engine.options import VARIANTS
from bot.i18n import level_name, t, variant_name
from bot.players import LEVELS
from bot.table.table import Table
from bot.view.callback_data import callback_data
from bot.view.render.common import Button, Keyboard, Rendered, esc, seat_name
from bot.view.render.settings import options_summary


def lobby_message(table: Table, lang: str) -> Rendered:
    tid = table.table_id
    lines = [
        t(lang, "lobby_title", variant=variant_name(lang, table.options.variant)),
        t(lang, "lobby_seats", have=len(table.seats), n=table.n_players),
    ]
    for i in range(table.n_players):
        if i < len(table.seats):
            lines.append(f"{i + 1}. {esc(seat_name(table, i, lang))}")
        else:
            lines.append(f"{i + 1}. {t(lang, 'lobby_empty_seat')}")
    lines.append(t(lang, "lobby_options", options_html=options_summary(table, lang)))
    lines.append(t(lang, "lobby_hint"))
    full = len(table.seats) >= table.n_players
    kb: Keyboard = []
    # only what can be done: a full table offers no seat (neither to a person nor a computer)
    if full:
        kb.append([Button(t(lang, "btn_leave"), callback_data("l", tid, "leave"))])
    else:
        kb.append(
            [
                Button(t(lang, "btn_join"), callback_data("l", tid, "join")),
                Button(t(lang, "btn_leave"), callback_data("l", tid, "leave")),
            ]
        )
        kb.append(
            [
                Button(
                    t(lang, "btn_addbot", level=level_name(lang, lv)),
                    callback_data("l", tid, "bot", lv),
                )
                for lv in LEVELS
            ]
        )
    kb.append(
        [
            Button(t(lang, "btn_settings"), callback_data("l", tid, "settings")),
            Button(t(lang, "btn_go"), callback_data("l", tid, "go")),
        ]
    )
    last = [Button(t(lang, "btn_cancel"), callback_data("l", tid, "cancel"))]
    if not full:
        last.insert(0, Button(t(lang, "btn_fill_go"), callback_data("l", tid, "fill")))
    kb.append(last)
    return Rendered("\n".join(lines), kb)


def variant_picker(lang: str) -> Rendered:
    rows: Keyboard = []
    row: list[Button] = []
    for v in VARIANTS:
        row.append(Button(variant_name(lang, v), callback_data("v", v)))
        if len(row) == 2:
            rows.append(row)
            row = []
    if row:
        rows.append(row)
    return Rendered(t(lang, "choose_variant"), rows)
