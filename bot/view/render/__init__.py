"""Telegram rendering: the group's table message and each player's private hand message.

HTML parse mode; every user-provided name goes through `html.escape`. The group message is
built from the spectator's observation (`observe(state, SPECTATOR)`): only what the whole
table may see. A private message is built from that seat's observation only.
Keyboards are plain data (`Button` rows); the Telegram adapter turns them into markup.

One module a concern, each name importable from here too:

    common     Button, Keyboard, Rendered; escaping, names, numbers
    cards      cards in words and buttons, and the lines every view of a hand shows
    settings   the rules' and the table's settings: their values, the panel, one setting
    lobby      the lobby and the variant picker
    group      the group's table message, the live view
    auction    chiamata's auction and call: its lines, its prompt, its buttons
    hand       a player's private hand message
    summaries  a hand's and a match's end: on the table, in the evening's log, in private

Button data: `bot.view.callback_data`.
"""

from bot.view.render.auction import (
    BIDS_PER_ROW,
    PAGE_QUICK,
    PAGE_SPANS,
    QUICK_RAISES,
    auction_prompt,
    bid_pages,
    bid_text,
)
from bot.view.render.cards import BRISCOLA_MARK, CARDS_PER_ROW
from bot.view.render.common import (
    PRIVATE_NAME_MAX,
    TITLE_MAX,
    WORD_MAX,
    Button,
    Keyboard,
    Rendered,
    beers_text,
    closed_text,
    esc,
    group_title,
    hand_label,
    hand_number,
    mention,
    points_text,
    seat_name,
    seat_short,
    short_name,
    signed,
)
from bot.view.render.group import table_message
from bot.view.render.hand import (
    ABANDON_MINUTES,
    away_private,
    frozen_private,
    kept_summary,
    private_message,
)
from bot.view.render.lobby import lobby_message, variant_picker
from bot.view.render.settings import (
    option_message,
    options_summary,
    settings_message,
)
from bot.view.render.summaries import (
    hand_log,
    hand_result_lines,
    match_end,
    match_ledger,
    match_over_line,
    pm_ledger,
    pm_summary,
    review_cost,
    review_lines,
)

__all__ = [
    "ABANDON_MINUTES",
    "BIDS_PER_ROW",
    "BRISCOLA_MARK",
    "CARDS_PER_ROW",
    "PAGE_QUICK",
    "PAGE_SPANS",
    "PRIVATE_NAME_MAX",
    "QUICK_RAISES",
    "TITLE_MAX",
    "WORD_MAX",
    "Button",
    "Keyboard",
    "Rendered",
    "auction_prompt",
    "away_private",
    "beers_text",
    "bid_pages",
    "bid_text",
    "closed_text",
    "esc",
    "frozen_private",
    "group_title",
    "hand_label",
    "hand_log",
    "hand_number",
    "hand_result_lines",
    "kept_summary",
    "lobby_message",
    "match_end",
    "match_ledger",
    "match_over_line",
    "mention",
    "option_message",
    "options_summary",
    "pm_ledger",
    "pm_summary",
    "points_text",
    "private_message",
    "review_cost",
    "review_lines",
    "seat_name",
    "seat_short",
    "settings_message",
    "short_name",
    "signed",
    "table_message",
    "variant_picker",
]
