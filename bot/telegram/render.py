"""Telegram rendering: the group's table message and each player's private hand message.

HTML parse mode; every user-provided name goes through `html.escape`. The group message is
built from the spectator's observation (`observe(state, SPECTATOR)`): only what the whole
table may see. A private message is built from that seat's observation only.
Keyboards are plain data (`Button` rows); the Telegram adapter turns them into markup.

Button data: `bot.telegram.callback_data`.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from bot.engine import SPECTATOR, Observation, observe
from bot.engine import actions as A
from bot.engine.cards import card_id
from bot.engine.match import HandRecord
from bot.engine.options import VARIANTS, Options
from bot.i18n import (
    join_names,
    level_name,
    option_help,
    option_name,
    t,
    tn,
    value_name,
    variant_name,
)
from bot.i18n.words import (
    action_label,
    bid_label,
    called_rank,
    card_short,
    rank_name,
    suit_name,
    suit_symbol,
)
from bot.players import LEVELS
from bot.table.deadlines import ABANDON_AFTER
from bot.table.table import CANCELLED, FINISHED, LOBBY, PLAYING, Table
from bot.telegram.callback_data import callback_data


@dataclass(frozen=True, slots=True)
class Button:
    text: str
    data: str | None = None
    url: str | None = None


Keyboard = list[list[Button]]


@dataclass(frozen=True, slots=True)
class Rendered:
    text: str
    keyboard: Keyboard

    def key(self) -> tuple[str, tuple[tuple[tuple[str, str | None, str | None], ...], ...]]:
        """Equality key: two renders with the same key need no edit."""
        return self.text, tuple(
            tuple((b.text, b.data, b.url) for b in row) for row in self.keyboard
        )


def esc(text: str) -> str:
    return html.escape(text, quote=False)


def _french(options: Options) -> bool:
    return options.deck == "french"


ABANDON_MINUTES = round(ABANDON_AFTER / 60)  # a paused match waits this long for its people
BRISCOLA_MARK = "★"  # a briscola's button (in a text a briscola is in bold)
CARDS_PER_ROW = 4  # card buttons in one row, a suit's cards together


def _is_briscola(card: int, obs: Observation) -> bool:
    return obs.briscola >= 0 and obs.rules.deck.suit[card] == obs.briscola


def _card(card: int, obs: Observation, lang: str) -> str:
    """A card in a message (HTML): "Asso 🪙", in bold when it is a briscola."""
    text = esc(card_short(card, obs.rules.deck, lang, french=_french(obs.options)))
    return f"<b>{text}</b>" if _is_briscola(card, obs) else text


def _card_label(card: int, obs: Observation, lang: str) -> str:
    """A card's button: "Asso 🪙", "★Asso 🪙" for a briscola (plain text)."""
    label = card_short(card, obs.rules.deck, lang, french=_french(obs.options))
    return BRISCOLA_MARK + label if _is_briscola(card, obs) else label


def _suit_order(obs: Observation) -> list[int]:
    """The suits as a hand is shown: the briscola first, then the others in deck order."""
    suits = list(range(4))
    if obs.briscola >= 0:
        suits.remove(obs.briscola)
        suits.insert(0, obs.briscola)
    return suits


def _by_suit(cards: tuple[int, ...] | list[int], obs: Observation) -> list[list[int]]:
    """`cards` grouped by suit (`_suit_order`), each group strongest first; no empty group."""
    deck = obs.rules.deck
    groups = []
    for suit in _suit_order(obs):
        group = sorted((c for c in cards if deck.suit[c] == suit), key=lambda c: -deck.strength[c])
        if group:
            groups.append(group)
    return groups


def _card_rows(
    cards: tuple[int, ...] | list[int], obs: Observation, lang: str, data: Callable[[int], str]
) -> Keyboard:
    """Card buttons grouped by suit, one suit a row (`CARDS_PER_ROW` at most: a longer suit
    is split in even rows), the briscola's row first and its buttons marked."""
    rows: Keyboard = []
    for group in _by_suit(cards, obs):
        n_rows = -(-len(group) // CARDS_PER_ROW)
        size = -(-len(group) // n_rows)
        for i in range(0, len(group), size):
            rows.append([Button(_card_label(c, obs, lang), data(c)) for c in group[i : i + size]])
    return rows


# ---------------------------------------------------------------------- lobby


def options_summary(table: Table, lang: str) -> str:
    """The table's rules in words: the match format (or chiamata's target), then every other
    setting that differs from its default ("Formato: al meglio delle 5 mani · Carte: francesi")."""
    options = table.options
    first = "target" if options.rules().chiamata else "match"
    parts = [(first, setting_value(table, first))]
    explicit = {k for k in options.explicit() if k not in ("variant", first)}
    default = Options.parse(options.variant)
    for key in SETTING_CHOICES:
        if key in explicit and _current_value(options, key) != _current_value(default, key):
            parts.append((key, _current_value(options, key)))
    for key in TABLE_SETTINGS:
        value = setting_value(table, key)
        if key in SETTING_CHOICES and value not in ("0", "false"):
            parts.append((key, value))
    return " · ".join(
        t(lang, "setting_button", name=option_name(lang, k), value=value_name(lang, k, v))
        for k, v in parts
    )


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


SETTING_CHOICES: dict[str, tuple[str, ...]] = {
    "match": ("single", "best3", "best5", "points120", "points121", "points151", "fixed5"),
    "deck": ("italian", "french"),
    "southern": ("false", "true"),
    "retrump": ("false", "true"),
    "show_points": ("false", "true"),
    "signals": ("false", "true"),
    "teams": ("none", "pairs", "threes"),
    "players": ("2", "3", "4"),
    "auction_start": ("dealer_right", "dealer_left"),  # §7.2
    "first_must_call": ("false", "true"),  # §7.2
    "overbid": ("true", "false"),
    "two_caller_raises": ("true", "false"),  # §7.3
    "carichi": ("false", "true"),
    "carichi_mode": ("ends", "continues"),  # §7.8
    "auction": ("rank", "points"),
    "lead": ("dealer_right", "caller"),
    "cappotto": ("zero_points", "all_tricks"),
    "target": ("11", "21", "0"),
    "timer": ("0", "30", "60", "120", "300"),  # seconds per move (bot.table.deadlines)
    "counts": ("false", "true"),  # §10.5: a table setting, only with computer seats
    "pin": ("false", "true"),  # a table setting: the bot pins the table message
}


def _with(options: Options, key: str, value: str) -> Options | None:
    """The options with `key` set to `value` (an option that only applied with the old value
    going back to its default), or None if the rules do not allow it."""
    try:
        return options.with_value(key, value)
    except ValueError:
        return None


def _changes(options: Options, key: str) -> list[str]:
    """The values of `key` that are allowed with the other options and change it."""
    current = _current_value(options, key)
    out = []
    for value in SETTING_CHOICES[key]:
        changed = _with(options, key, value)
        if changed is not None and _current_value(changed, key) != current:
            out.append(value)
    return out


def applicable_settings(options: Options, *, computers: bool = False) -> list[str]:
    """The settings that can take at least one value other than the current one. `counts`
    (§10.5) only at a table with computer seats (`computers`)."""
    return [
        key
        for key in SETTING_CHOICES
        if key in ("timer", "pin")
        or (
            computers
            if key == "counts"
            else key not in TABLE_SETTINGS and bool(_changes(options, key))
        )
    ]


def _current_value(options: Options, key: str) -> str:
    if key == "match":
        return options.resolved_match()
    value = getattr(options, key)
    if value is None:
        if key == "teams":
            return "pairs" if options.rules().n_sides < options.rules().n_players else "none"
        if key == "players":
            return str(options.rules().n_players)
    return str(value).lower()


# Settings kept on the table itself, not in the rules' Options: they change no rule of play.
TABLE_SETTINGS = ("timer", "pin", "counts")


def setting_value(table: Table, key: str) -> str:
    """The setting's current value at `table`, spelled as in SETTING_CHOICES."""
    if key in TABLE_SETTINGS:
        return str(getattr(table, key)).lower()
    return _current_value(table.options, key)


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


# ---------------------------------------------------------------------- the group's table


def seat_name(table: Table, seat: int, lang: str) -> str:
    """How a seat is called (plain text: escape it where it goes): a person by their name, a
    computer player by its first name and its level in `lang`, "🤖 Ada (difficile)". A table
    stored when seats kept their whole name ("🤖 Ada (difficile)") shows it as it is."""
    s = table.seats[seat]
    if s.user_id is not None or s.level is None or s.name.startswith("🤖"):
        return s.name
    return f"🤖 {s.name} ({level_name(lang, s.level)})"


def _names(table: Table, lang: str) -> list[str]:
    return [seat_name(table, seat, lang) for seat in range(len(table.seats))]


def table_message(table: Table, lang: str, app_link: str | None = None) -> Rendered:
    """The group's table message, the live view; `app_link`: the Mini App's direct link, a
    button while the match is played (Telegram refuses `web_app` buttons in groups: a plain
    URL button). Each hand's result also goes out as a message of its own (`hand_log`), and
    the match's end as a new message with the rematch button (`match_end`)."""
    if table.status == LOBBY:
        return lobby_message(table, lang)
    if table.status == CANCELLED or table.hand is None:
        return Rendered(closed_text(table, lang), [])
    hand = table.hand
    assert hand is not None
    obs = observe(hand, SPECTATOR)
    names = _names(table, lang)
    n = table.n_players
    lines = [
        t(
            lang,
            "hand_title",
            variant=variant_name(lang, table.options.variant),
            n=_hand_number(table),
        )
    ]
    for seat in range(n):
        mark = t(lang, "seat_turn") + " " if obs.current == seat else "▫️ "
        tags = []
        if seat == obs.dealer:
            tags.append(t(lang, "dealer_tag"))
        if obs.rules.chiamata and seat == obs.caller:
            tags.append("📣")
        if (
            obs.rules.chiamata
            and obs.partner_revealed
            and seat == obs.partner
            and seat != obs.caller
        ):
            tags.append("🤝")
        if obs.phase == "auction" and obs.passed[seat]:
            tags.append("✖️")
        if table.seats[seat].is_bot and table.seats[seat].user_id is not None:
            tags.append("🤖")
        side = ""
        if obs.rules.has_teams:
            side = f" [{'ABC'[obs.rules.side_of[seat]]}]"
        lines.append(f"{mark}{esc(names[seat])}{side} {' '.join(tags)}".rstrip())
    lines.append(_briscola_line(obs, lang))
    if obs.talon_left:
        lines.append(t(lang, "talon_line", n=obs.talon_left))
    if obs.rules.chiamata:
        lines.extend(_auction_lines(obs, names, lang))
    lines.extend(_open_lines(obs, names, lang))
    if obs.trick:
        lines.append(t(lang, "table_line", plays_html=_plays(obs.trick, obs, names, lang)))
    if obs.tricks:  # the hand's last trick too, once it is over (§3.7: its points then show)
        lines.append(_last_trick_line(obs, names, lang, points=hand.is_terminal()))
    if obs.partner_revealed and obs.rules.chiamata and not obs.carichi:
        key = "alone_revealed" if obs.partner == obs.caller else "partner_revealed"
        lines.append(t(lang, key, who=names[obs.partner]))
    if obs.all_points is not None and not hand.is_terminal():
        lines.append(t(lang, "points_line", points_html=_points(obs.all_points, names)))
    kb: Keyboard = []
    if hand.is_terminal() and table.match is not None and table.match.records:
        lines.append("")
        lines.extend(hand_result_lines(table, table.match.records[-1], lang))
        if table.status == FINISHED:
            lines.append(match_over_line(table, lang))
        else:
            kb.append(
                [Button(t(lang, "btn_next"), callback_data("n", table.table_id, hand.hand_index))]
            )
    elif table.paused():
        lines.append(t(lang, "paused_line", who=join_names(lang, _away_people(table))))
    elif obs.current >= 0:
        lines.append(_turn_line(obs, names[obs.current], lang))
    if table.match is not None:
        lines.append(t(lang, "score_line", score_html=_score(table, names)))
    if app_link is not None and table.status == PLAYING:
        kb.append([Button(t(lang, "btn_miniapp"), url=app_link)])
    return Rendered("\n".join(lines), kb)


def _away_people(table: Table) -> list[str]:
    """The people whose seat the computer plays (left, or timed out twice in a row)."""
    return [s.name for s in table.seats if s.user_id is not None and s.is_bot]


def _turn_line(obs: Observation, who: str, lang: str) -> str:
    """Whose turn it is, in the words of the phase: a bid, the suit, the called card, a card."""
    key = {
        "auction": "turn_line_bid",
        "name_suit": "turn_line_suit",
        "call_card": "turn_line_call",
    }.get(obs.phase, "turn_line")
    return t(lang, key, who=who)


def _briscola_line(obs: Observation, lang: str) -> str:
    french = _french(obs.options)
    if obs.briscola >= 0:
        card_html = ""
        if obs.turned >= 0:
            card_html = f" ({_card(obs.turned, obs, lang)})"
        suit = _suit_words(obs.briscola, lang, french)
        return t(lang, "briscola_line", suit=suit, card_html=card_html)
    if obs.rules.chiamata and obs.phase in ("auction", "name_suit", "call_card"):
        return t(lang, "briscola_pending")
    return t(lang, "no_briscola")


def _suit_words(suit: int, lang: str, french: bool) -> str:
    """ "🪙 denari" (plain text)."""
    return f"{suit_symbol(suit, french=french)} {suit_name(suit, lang, french=french)}"


def _auction_lines(obs: Observation, names: list[str], lang: str) -> list[str]:
    out = []
    if obs.bids and obs.caller < 0:  # the auction as it went; once it is over, its outcome
        bids = " · ".join(f"{esc(names[s])}: {esc(bid_label(a, obs, lang))}" for s, a in obs.bids)
        out.append(t(lang, "auction_line", bids_html=bids))
    out.extend(_call_lines(obs, names, lang))
    return out


def _call_lines(obs: Observation, names: list[str], lang: str) -> list[str]:
    """Chiamata once the auction is won: the caller, the called card and the target (or
    carichi); nothing about the partner (§7.6)."""
    if obs.caller < 0:
        return []
    if obs.carichi:
        return [t(lang, "carichi_line", who=names[obs.caller])]
    if obs.called_card < 0:
        return [t(lang, "pm_caller_pending", who=names[obs.caller], n=obs.target)]
    return [
        t(
            lang,
            "caller_line",
            who=names[obs.caller],
            card_html=_card(obs.called_card, obs, lang),
            n=obs.target,
        )
    ]


def _open_lines(obs: Observation, names: list[str], lang: str) -> list[str]:
    """What everybody sees: the public hands (scoperta) and the talon's next card."""
    out = [
        t(lang, "visible_hand", who=names[seat], cards_html=_hand_text(cards, obs, lang))
        for seat, cards in sorted(obs.visible_hands.items())
    ]
    if obs.talon_next >= 0:
        out.append(t(lang, "talon_next", card_html=_card(obs.talon_next, obs, lang)))
    return out


def _last_trick_line(obs: Observation, names: list[str], lang: str, *, points: bool = False) -> str:
    """The last trick and who took it; its card points with `show_points`, or once the hand
    is over (`points`: §3.7)."""
    last = obs.tricks[-1]
    return t(
        lang,
        "last_trick_points" if obs.rules.show_points or points else "last_trick",
        plays_html=_plays(last.plays, obs, names, lang),
        winner=names[last.winner],
        points=last.points,
    )


def _plays(
    plays: tuple[tuple[int, int], ...], obs: Observation, names: list[str], lang: str
) -> str:
    return ", ".join(f"{esc(names[s])}: {_card(c, obs, lang)}" for s, c in plays)


def _points(points: tuple[int, ...], names: list[str]) -> str:
    return ", ".join(f"{esc(names[s])} {p}" for s, p in enumerate(points))


def _side_label(names: list[str], side: int, side_of: tuple[int, ...]) -> str:
    return " &amp; ".join(esc(names[s]) for s, x in enumerate(side_of) if x == side)


def signed(value: int) -> str:
    """A score or a ledger amount with its sign, the minus a real one: "+2", "−1", "0"."""
    return f"{value:+d}".replace("-", "−") if value else "0"


def points_text(lang: str, n: int, *, sign: bool = False) -> str:
    """A ledger amount with its unit (plain text): "10 punti", "+1 punto", "−3 punti"."""
    return tn(lang, "points_unit", abs(n), value=signed(n) if sign else str(n))


def beers_text(lang: str, points: int, beer: int) -> str:
    """`points` in beers of `beer` points each (plain text): "2 birre", "1,5 birre"."""
    tenths = round(10 * points / beer)
    if tenths % 10 == 0:
        return tn(lang, "beers_unit", tenths // 10, value=str(tenths // 10))
    value = f"{tenths / 10:.1f}"
    return tn(lang, "beers_unit", 2, value=value.replace(".", ",") if lang == "it" else value)


def _score(table: Table, names: list[str]) -> str:
    m = table.match
    assert m is not None
    rules = table.options.rules()
    if rules.chiamata:
        return ", ".join(f"{esc(names[s])} {signed(v)}" for s, v in enumerate(m.scores))
    side_of = rules.side_of
    values = m.side_points if rules.match.startswith("points") else m.hands_won
    return ", ".join(f"{_side_label(names, side, side_of)} {v}" for side, v in enumerate(values))


def _deltas(deltas: tuple[int, ...], names: list[str]) -> str:
    return ", ".join(f"{esc(names[s])} {signed(d)}" for s, d in enumerate(deltas))


def hand_result_lines(table: Table, rec: HandRecord, lang: str) -> list[str]:
    """The end of a hand on the table message: the card points taken, who won, and in
    chiamata each seat's score for the hand (the match's score is on its own line)."""
    names = _names(table, lang)
    hand = table.hand
    assert hand is not None
    if rec.redeal:
        return [t(lang, "hand_redeal")]
    points_html = _points(rec.card_points, names)
    if rec.void:
        return [t(lang, "hand_void", points_html=points_html)]
    out = [t(lang, "points_line", points_html=points_html)]
    if table.options.rules().chiamata:
        key = "caller_won" if rec.winning_sides == (0,) else "caller_lost"
        out.append(
            t(lang, key, who=names[hand.caller], points=rec.side_points[0], target=hand.target)
        )
        if hand.result().cappotto:
            out.append(t(lang, "cappotto"))
        out.append(t(lang, "deltas_line", deltas_html=_deltas(rec.deltas, names)))
    else:
        side = rec.winning_sides[0]
        winners = _winners(table, names, (side,))
        key = "side_won_many" if len(winners) > 1 else "side_won"  # "Vincono Mario e Luigi"
        out.append(t(lang, key, who=join_names(lang, winners), points=rec.side_points[side]))
    return out


def _winners(table: Table, names: list[str], sides: tuple[int, ...]) -> list[str]:
    side_of = table.options.rules().side_of
    return [names[s] for s, x in enumerate(side_of) if x in sides]


def match_over_line(table: Table, lang: str) -> str:
    m = table.match
    assert m is not None
    names = _names(table, lang)
    # chiamata: the winning seat; else the winning sides (§4.3 fixed5: tied sides all win)
    winners = (
        [names[m.winner]] if table.options.rules().chiamata else _winners(table, names, m.winners)
    )
    key = "match_over_many" if len(winners) > 1 else "match_over"
    return t(lang, key, who=join_names(lang, winners))


# ---------------------------------------------------------------------- the evening's log


def hand_log(table: Table, lang: str) -> Rendered:
    """The result of the hand just over, as its own short message in the group (sent
    silently: it is the evening's log, the table message stays the live view). Chiamata: the
    caller, the call and the target, the socio, the caller's points and who won, each
    seat's score for the hand. The other variants: who won, with how many points, and the
    match so far."""
    hand = table.hand
    assert hand is not None and table.match is not None and table.match.records
    rec = table.match.records[-1]
    names = [seat_short(table, s, lang) for s in range(len(table.seats))]
    title = t(lang, "log_title", n=_hand_number(table))
    if rec.redeal:
        return Rendered(t(lang, "log_redeal", title_html=title), [])
    if rec.void:
        return Rendered(
            t(lang, "log_void", title_html=title, points_html=_points(rec.card_points, names)), []
        )
    rules = table.options.rules()
    if not rules.chiamata:
        side = rec.winning_sides[0]
        winners = _winners(table, names, (side,))
        key = "log_side_won_many" if len(winners) > 1 else "log_side_won"
        first = t(
            lang,
            key,
            title_html=title,
            who=join_names(lang, winners),
            points=rec.side_points[side],
        )
        return Rendered(first + "\n" + t(lang, "score_line", score_html=_score(table, names)), [])
    obs = observe(hand, SPECTATOR)
    if obs.carichi:
        call = t(lang, "log_carichi", who=names[hand.caller])
    else:
        call = t(
            lang,
            "log_call" if hand.target == 61 else "log_call_target",
            who=names[hand.caller],
            card_html=_card(hand.called_card, obs, lang),
            n=hand.target,
        )
        if hand.partner == hand.caller:
            call += " · " + t(lang, "log_alone")
        else:
            call += " · " + t(lang, "log_partner", who=names[hand.partner])
    won = rec.winning_sides == (0,)
    result = t(
        lang,
        "log_caller_won" if won else "log_caller_lost",
        points=rec.side_points[0],
        target=hand.target,
    )
    if hand.result().cappotto:
        result += " " + t(lang, "cappotto")
    lines = [f"{title} · {call}", f"{result} · {_deltas(rec.deltas, names)}"]
    return Rendered("\n".join(lines), [])


def match_end(table: Table, lang: str, ledger_html: str) -> Rendered:
    """The match's end, a new message in the group (it notifies): who won, the final
    standing, what the group's ledger got (`ledger_html`, built by the service, which knows
    the balances) and the rematch button."""
    m = table.match
    assert m is not None
    names = _names(table, lang)
    rules = table.options.rules()
    lines = [match_over_line(table, lang)]
    if rules.chiamata:
        order = sorted(range(len(m.scores)), key=lambda s: (-m.scores[s], s))
        standing = ", ".join(f"{esc(names[s])} {signed(m.scores[s])}" for s in order)
        lines.append(t(lang, "final_scores", score_html=standing))
    else:
        lines.append(t(lang, "score_line", score_html=_score(table, names)))
    if ledger_html:
        lines.append(ledger_html)
    kb: Keyboard = []
    if table.rematch is None:  # same seats, same settings: a new table in one tap
        kb.append([Button(t(lang, "btn_rematch"), callback_data("r", table.table_id))])
    return Rendered("\n".join(lines), kb)


def match_ledger(table: Table) -> tuple[int, ...] | None:
    """What the group's ledger got from the whole match, per seat (chiamata: hand by hand,
    §10.1; the other variants at its end, §10.2), or None if it does not count (§10.5)."""
    m = table.match
    assert m is not None
    if table.computer_seats() and not table.counts:
        return None
    if table.options.rules().chiamata:
        total = [0] * len(table.seats)
        for rec in m.records:
            if not (rec.void or rec.redeal):
                for s, d in enumerate(table.counted_deltas(rec.deltas)):
                    total[s] += d
        return tuple(total)
    return table.counted_deltas(m.ledger_deltas())


# ---------------------------------------------------------------------- a player's hand


PRIVATE_NAME_MAX = 16  # characters of a name in the hand message (the group shows it whole)
WORD_MAX = 24  # a name's first word longer than this is cut all the same
TITLE_MAX = 28  # characters of the group's name in a private message's title


def short_name(name: str, limit: int = PRIVATE_NAME_MAX) -> str:
    """`name` shortened for the compact hand message (plain text, not escaped): whole words
    up to `limit` characters ("Maria Grazia Cutrone" → "Maria Grazia"), never a word cut in
    the middle; only a first word longer than `WORD_MAX` is cut, with "…", and never inside
    an emoji sequence (a flag, a joined or modified emoji)."""
    name = name.strip()
    if len(name) <= limit:
        return name
    words = name.split()
    kept = words[0]
    for word in words[1:]:
        if len(kept) + 1 + len(word) > limit:
            break
        kept += " " + word
    if len(kept) <= max(limit, WORD_MAX):
        return kept
    cut = WORD_MAX - 1
    while cut > 1 and _continues(kept, cut):
        cut -= 1
    return kept[:cut].rstrip() + "…"


def _continues(text: str, i: int) -> bool:
    """Whether text[i] belongs to the same symbol as text[i - 1]."""
    c, p = text[i], text[i - 1]
    if "\u200d" in (c, p) or unicodedata.category(c) in ("Mn", "Me"):
        return True  # a joiner, a combining mark or a variation selector
    if "\U0001f3fb" <= c <= "\U0001f3ff":  # a skin tone
        return True
    ri = "\U0001f1e6" <= c <= "\U0001f1ff"
    if ri:  # a flag is two regional indicators: cut only between pairs
        k = i
        while k > 0 and "\U0001f1e6" <= text[k - 1] <= "\U0001f1ff":
            k -= 1
        return (i - k) % 2 == 1
    return False


def seat_short(table: Table, seat: int, lang: str) -> str:
    """A seat as the compact messages name it (plain text): a person by `short_name`, a
    computer player by its first name alone, "🤖 Ada" (the group's table says its level)."""
    s = table.seats[seat]
    if s.user_id is None and s.level is not None and not s.name.startswith("🤖"):
        return f"🤖 {s.name}"
    return short_name(s.name)


def group_title(table: Table) -> str:
    """The group the table is played in, as its private messages name it (HTML, escaped):
    the group's name in whole words, or "#<table>" for a table stored without it."""
    if table.title:
        return esc(short_name(table.title, TITLE_MAX))
    return f"#{table.table_id}"


def _hand_number(table: Table) -> int:
    """The hand's number as people count it: a void hand (§4.4) and its replay share one."""
    hand = table.hand
    assert hand is not None
    counted = table.match.counted_hands() if table.match else 0
    records = table.match.records if table.match else []
    done = (
        hand.is_terminal()
        and bool(records)
        and records[-1].hand_index == hand.hand_index
        and not (records[-1].void or records[-1].redeal)
    )
    return counted if done else counted + 1


def private_message(table: Table, seat: int, lang: str, bid_page: int = 0) -> Rendered:
    """The hand message of `seat`, built from its observation only: whose turn it is, the
    cards on the table and the last trick, the briscola and the talon, in chiamata the
    caller, the called card and the target (and to the partner alone that they are it), the
    match standing, this seat's cards as buttons grouped by suit; at the end of the hand its
    own summary. Names are shortened (`seat_short`) so that it fits a phone screen; the
    title names the group. `bid_page`: the points bids' screen (`_bid_keyboard`)."""
    hand = table.hand
    assert hand is not None
    obs = hand.observation(seat)
    nm = [seat_short(table, s, lang) for s in range(len(table.seats))]
    tid = table.table_id
    hidx = hand.hand_index
    lines = [_pm_title(table, lang, _hand_number(table))]
    kb: Keyboard = []
    if hand.is_terminal():
        lines.extend(_pm_summary(table, seat, obs, nm, lang))
        if table.status == PLAYING and table.match is not None and not table.match.over:
            if table.paused():  # the match waits for them: the next hand when they are back
                away = "paused_left" if table.seats[seat].away == "left" else "paused_timeout"
                lines.append(t(lang, away, minutes=ABANDON_MINUTES))
                kb.append([Button(t(lang, "btn_resume"), callback_data("b", tid))])
            else:
                kb.append([Button(t(lang, "btn_next"), callback_data("n", tid, hidx))])
        return Rendered("\n".join(lines), kb)

    my_turn = obs.current == seat
    auction = obs.phase in ("auction", "name_suit", "call_card")
    if my_turn:
        if auction:
            lines.append(_prompt(obs, lang))
        else:
            lines.append(t(lang, "pm_your_lead" if not obs.trick else "pm_your_turn"))
    elif obs.current >= 0:
        key = "pm_bid_of" if obs.phase == "auction" else "pm_turn_of"
        lines.append(t(lang, key, who=nm[obs.current]))
    if obs.rules.chiamata:
        lines.extend(_pm_chiamata(obs, seat, nm, lang))
    briscola = _briscola_line(obs, lang)
    if obs.talon_left:
        briscola += " · " + t(lang, "pm_talon", n=obs.talon_left)
    lines.append(briscola)
    lines.extend(_open_lines(obs, nm, lang))
    for who, k in obs.signals:  # §5.3: between partners only (the observation filters them)
        card = card_id(A.SIGNAL_NUMBERS[k], max(obs.briscola, 0))
        rank = rank_name(card, obs.rules.deck, lang, french=_french(obs.options))
        lines.append(t(lang, "signal_line", who=nm[who], rank=rank))
    if obs.trick:
        lines.append(t(lang, "table_line", plays_html=_plays(obs.trick, obs, nm, lang)))
    if obs.tricks:
        lines.append(_last_trick_line(obs, nm, lang))
    if obs.my_points is not None:  # §3.7: one's own pile at the last trick (or show_points)
        key = "pm_side_points" if obs.teammates else "pm_my_points"
        lines.append(t(lang, key, n=obs.my_points))
    standing = _pm_standing(table, nm)
    if standing:
        lines.append(t(lang, "score_line", score_html=standing))

    stamp = table.turn_start()
    if obs.phase == "play":
        if obs.rules.blind:
            # A position names no card, so these buttons carry how many cards this seat has
            # played: a double tap (or a button from an earlier turn) is then stale. It
            # changes only when this seat plays, so nobody else's buttons change for it.
            played = table.plays_by(seat)
            lines.append(t(lang, "blind_hand", n=obs.hand_sizes[seat]))
            kb.append(
                [
                    Button(f"🂠 {i + 1}", callback_data("a", tid, hidx, played, A.BLIND + i))
                    for i in range(obs.hand_sizes[seat])
                ]
            )
        else:
            lines.append(t(lang, "your_hand"))
            # §8.2 (Briscolone): on one's turn only the cards one may play are buttons; the
            # others are named, so no tap is wasted on a card that would be refused
            held = tuple(c for c in obs.hand if not my_turn or c in obs.legal)
            if len(held) < len(obs.hand):
                unplayable = tuple(c for c in obs.hand if c not in held)
                lines.append(
                    t(lang, "must_follow_line", cards_html=_hand_text(unplayable, obs, lang))
                )
            kb.extend(_card_rows(held, obs, lang, lambda c: callback_data("a", tid, hidx, 0, c)))
        if my_turn:
            signals = [a for a in obs.legal if a >= A.SIGNAL]
            for a in signals:
                kb.append(
                    [Button(action_label(a, obs, lang), callback_data("a", tid, hidx, stamp, a))]
                )
    else:
        # The auction and the call: the cards are shown (one needs them to bid), as text.
        if obs.hand:
            lines.append(t(lang, "your_cards", cards_html=_hand_text(obs.hand, obs, lang)))
        if my_turn:
            kb.extend(_bid_keyboard(obs, lang, tid, hidx, stamp, bid_page))
    return Rendered("\n".join(lines), kb)


def _pm_title(table: Table, lang: str, n: int | None = None) -> str:
    """A private message's first line: the game, the hand, and the group it is played in."""
    variant = variant_name(lang, table.options.variant)
    if n is None:
        return t(lang, "pm_title_table", variant=variant, group_html=group_title(table))
    return t(lang, "pm_title", variant=variant, n=n, group_html=group_title(table))


def _bids_in_order(obs: Observation, nm: list[str], lang: str) -> str:
    """The auction so far, one word per bidder, in the order they last spoke (HTML)."""
    last: dict[int, int] = {}
    for s, a in obs.bids:
        last.pop(s, None)  # moved to the end: the order in which they last spoke
        last[s] = a
    return " · ".join(f"{esc(nm[s])}: {esc(bid_label(a, obs, lang))}" for s, a in last.items())


def _pm_chiamata(obs: Observation, seat: int, nm: list[str], lang: str) -> list[str]:
    """The auction (each bidder's last word, in the order they spoke), then the caller,
    the called card, the target; the partner once the called card is out, or privately to
    the partner themselves."""
    out = []
    if obs.caller < 0:
        if obs.bids:
            out.append(t(lang, "pm_bids", bids_html=_bids_in_order(obs, nm, lang)))
        return out
    if obs.carichi:
        out.append(t(lang, "carichi_line", who=nm[obs.caller]))
        return out
    if obs.called_card < 0:
        out.append(t(lang, "pm_caller_pending", who=nm[obs.caller], n=obs.target))
        return out
    partner = ""
    if obs.partner_revealed:
        partner = (
            t(lang, "pm_alone_known")
            if obs.partner == obs.caller
            else t(lang, "pm_partner_known", who=nm[obs.partner])
        )
    out.append(
        t(
            lang,
            "pm_caller",
            who=nm[obs.caller],
            card_html=_card(obs.called_card, obs, lang),
            n=obs.target,
            partner_html=partner,
        )
    )
    if obs.partner == seat and not obs.partner_revealed:  # §7.6: the partner alone knows
        out.append(t(lang, "you_are_alone" if seat == obs.caller else "you_are_partner"))
    return out


def _pm_side(table: Table, side: int, nm: list[str]) -> str:
    side_of = table.options.rules().side_of
    return " &amp; ".join(esc(nm[s]) for s, x in enumerate(side_of) if x == side)


def _pm_standing(table: Table, nm: list[str]) -> str:
    """The match so far (chiamata: each seat's score; else hands or points per side); empty
    before the first hand has counted."""
    m = table.match
    if m is None or not m.counted_hands():
        return ""
    rules = table.options.rules()
    if rules.chiamata:
        return ", ".join(f"{esc(nm[s])} {signed(v)}" for s, v in enumerate(m.scores))
    values = m.side_points if rules.match.startswith("points") else m.hands_won
    return ", ".join(f"{_pm_side(table, side, nm)} {v}" for side, v in enumerate(values))


def _pm_summary(table: Table, seat: int, obs: Observation, nm: list[str], lang: str) -> list[str]:
    """This seat's end of the hand: won or lost, the card points taken, in chiamata the
    call and the caller's result and this seat's score for the hand (and what of it the
    group's ledger got), the match standing, and at the match's end the winner and, in the
    other variants, this seat's ledger change."""
    hand = table.hand
    assert hand is not None
    res = hand.result()
    rules = table.options.rules()
    out: list[str] = []
    if res.redeal:
        out.append(t(lang, "pm_redeal"))
    elif res.void:
        out.append(t(lang, "pm_void"))
    else:
        if rules.chiamata:
            mine = 0 if seat in (hand.caller, hand.partner) else 1
        else:
            mine = rules.side_of[seat]
        out.append(t(lang, "pm_won" if mine in res.winning_sides else "pm_lost"))
    if not res.redeal:
        if rules.chiamata or rules.n_sides == rules.n_players:
            points = ", ".join(f"{esc(nm[s])} {p}" for s, p in enumerate(res.card_points))
        else:
            points = ", ".join(
                f"{_pm_side(table, side, nm)} {p}" for side, p in enumerate(res.side_points)
            )
        out.append(t(lang, "points_line", points_html=points))
        if obs.tricks:  # the hand's last trick (§3.7: its points show now)
            out.append(_last_trick_line(obs, nm, lang, points=True))
    if rules.chiamata and not res.redeal and not res.void:
        out.extend(_pm_chiamata(obs, seat, nm, lang))
        key = "caller_won" if res.winning_sides == (0,) else "caller_lost"
        out.append(t(lang, key, who=nm[hand.caller], points=res.side_points[0], target=hand.target))
        if res.cappotto:
            out.append(t(lang, "cappotto"))
        out.append(_pm_hand_score(table, res.deltas, seat, lang))  # §10.1: every hand
    standing = _pm_standing(table, nm)
    if standing:
        out.append(t(lang, "score_line", score_html=standing))
    m = table.match
    if m is not None and m.over:
        winners = (
            [m.winner]
            if rules.chiamata
            else [s for s, x in enumerate(rules.side_of) if x in m.winners]
        )
        if seat in winners:
            out.append(t(lang, "pm_match_won"))
        else:
            out.append(t(lang, "pm_match_lost", who=" & ".join(nm[s] for s in winners)))
        if not rules.chiamata:  # §10.2: at the match's end (chiamata: hand by hand)
            out.append(_pm_ledger(table, m.ledger_deltas(), seat, lang))
    return out


def _pm_hand_score(table: Table, deltas: tuple[int, ...], seat: int, lang: str) -> str:
    """Chiamata: this seat's score for the hand (§7.12), and what the group's ledger got of
    it: the same, or less with computers at a table that counts (§10.5), or nothing."""
    delta = points_text(lang, deltas[seat], sign=True)  # money-like: "+1 punto" (issue 38)
    if table.computer_seats() and not table.counts:
        return t(lang, "pm_hand_score_off", delta=delta)
    counted = table.counted_deltas(deltas)[seat]
    if counted == deltas[seat]:
        return t(lang, "pm_hand_score", delta=delta)
    counted_text = points_text(lang, counted, sign=True)
    return t(lang, "pm_hand_score_counted", delta=delta, counted=counted_text)


def _pm_ledger(table: Table, deltas: tuple[int, ...], seat: int, lang: str) -> str:
    """What the group's ledger receives for this seat at the match's end (§10.5: a table
    with computer seats writes only if its creator chose so, and then no computer pays or
    collects)."""
    if table.computer_seats() and not table.counts:
        return t(lang, "pm_ledger_off")
    return t(
        lang, "pm_ledger", delta=points_text(lang, table.counted_deltas(deltas)[seat], sign=True)
    )


def kept_summary(table: Table, seat: int, lang: str) -> Rendered:
    """A hand's summary as it stays in the person's chat once the next hand is dealt: the
    same text, without its button (`private_message` at the hand's end)."""
    return Rendered(private_message(table, seat, lang).text, [])


def frozen_private(table: Table, lang: str, reason_key: str) -> Rendered:
    """The hand message of someone whose buttons no longer work (they left the table, or it
    was cancelled): the header and why; no cards, no buttons."""
    return Rendered(f"{_pm_title(table, lang)}\n{t(lang, reason_key)}", [])


def closed_text(table: Table, lang: str) -> str:
    """Why a cancelled table closed: who cancelled it, or that the lobby expired."""
    closed = table.closed or {}
    key = closed.get("key", "cancelled")
    return t(lang, key, who=closed.get("who", ""))


def away_private(table: Table, seat: int, lang: str) -> Rendered:
    """The hand message of someone whose seat the computer plays: after /leave (no buttons:
    /join takes the seat back), or after two timeouts in a row (a button takes it back).
    When nobody but computers is left to play, the match waits for them: paused (§10.5's
    spirit: no ledger, no result, for computers playing alone)."""
    button = Button(t(lang, "btn_resume"), callback_data("b", table.table_id))
    if table.paused():
        key = "paused_left" if table.seats[seat].away == "left" else "paused_timeout"
        text = t(lang, key, minutes=ABANDON_MINUTES)
        return Rendered(f"{_pm_title(table, lang)}\n{text}", [[button]])
    if table.seats[seat].away != "timeout":
        return frozen_private(table, lang, "ok_left_playing")
    return Rendered(f"{_pm_title(table, lang)}\n{t(lang, 'away_timeout')}", [[button]])


def mention(user_id: int, name: str) -> str:
    """A mention that notifies the person (HTML; the name escaped)."""
    return f'<a href="tg://user?id={int(user_id)}">{esc(name)}</a>'


def _hand_text(cards: tuple[int, ...] | list[int], obs: Observation, lang: str) -> str:
    """Cards as text, by suit: "🪙 Asso, Re · 🍷 3, 7", the briscola's in bold and first."""
    french = _french(obs.options)
    deck = obs.rules.deck
    parts = []
    for group in _by_suit(cards, obs):
        suit = deck.suit[group[0]]
        ranks = ", ".join(esc(rank_name(c, deck, lang, french=french)) for c in group)
        text = f"{suit_symbol(suit, french=french)} {ranks}"
        parts.append(f"<b>{text}</b>" if suit == obs.briscola else text)
    return " · ".join(parts)


def _prompt(obs: Observation, lang: str) -> str:
    if obs.phase == "name_suit":
        rank = next(
            a - A.CALL_RANK for _, a in reversed(obs.bids) if A.CALL_RANK <= a < A.BID_POINTS
        )
        called = called_rank(rank, lang, french=_french(obs.options))
        return t(lang, "your_suit", rank=called)
    if obs.phase == "call_card":
        return t(lang, "your_card_call", n=obs.target)
    key = "your_bid"
    if any(A.BID_POINTS <= a < A.PASS for a in obs.legal):
        key = "your_points_bid" if obs.rules.auction == "points" else "your_overbid"
    if A.PASS not in obs.legal:  # §7.2 first_must_call: the first to speak may not pass
        key += "_no_pass"
    return t(lang, key)


QUICK_RAISES = (1, 2, 5, 10)  # points bids on the first screen: this much over the last bid
BIDS_PER_ROW = 5  # the values of one span of ten, on its own screen
# The points bids' screens (`page`): 0 the quick raises, 1 the spans of ten, and 6..12 the
# span that starts at page * 10 (60-69, ..., 110-120; 120 is in the last one).
PAGE_QUICK, PAGE_SPANS = 0, 1


def bid_pages(obs: Observation) -> tuple[int, ...]:
    """The points bids' screens this seat may open now (`Play.bid_page` checks a tap)."""
    points = [a - A.BID_POINTS for a in obs.legal if A.BID_POINTS <= a < A.PASS]
    spans = sorted({min(p // 10, 11) for p in points})
    return (PAGE_QUICK, PAGE_SPANS, *spans) if points else (PAGE_QUICK,)


def _bid_keyboard(
    obs: Observation, lang: str, tid: int, hidx: int, stamp: int, page: int = 0
) -> Keyboard:
    """The auction's buttons. Points bids (§7.3, §7.9) reach any legal value in at most
    three taps, on screens that fit a phone: the first raises the last bid by 1, 2, 5 or 10
    and opens the spans of ten ("70–79"); a span's screen has its values. Pass and the other
    words stay on every screen."""
    legal = list(obs.legal)
    points = [a for a in legal if A.BID_POINTS <= a < A.PASS]
    others = [a for a in legal if not A.BID_POINTS <= a < A.PASS]
    if obs.phase == "call_card":
        deck = obs.rules.deck
        every = [c for c in range(deck.size)]
        rows: Keyboard = []
        for group in _by_suit(every, obs):
            for i in range(0, len(group), 5):
                rows.append(
                    [
                        Button(
                            _card_label(c, obs, lang),
                            callback_data("a", tid, hidx, stamp, A.CALL_CARD + c),
                        )
                        for c in group[i : i + 5]
                    ]
                )
        return rows

    def button(a: int, label: str | None = None) -> Button:
        text = label if label is not None else _bid_text(a, obs, lang)
        return Button(text, callback_data("a", tid, hidx, stamp, a))

    def screen(to: int, label: str) -> Button:
        return Button(label, callback_data("m", tid, hidx, stamp, to))

    rows = []
    if len(points) > len(QUICK_RAISES) + 1:
        values = [a - A.BID_POINTS for a in points]
        if page == PAGE_SPANS:
            spans = sorted({min(v // 10, 11) for v in values})
            labels = [
                t(lang, "bid_span", low=max(10 * s, values[0]), high=min(10 * s + 9, 120))
                if s < 11
                else t(lang, "bid_span", low=max(110, values[0]), high=120)
                for s in spans
            ]
            buttons = [screen(s, label) for s, label in zip(spans, labels, strict=True)]
            rows += [buttons[i : i + 3] for i in range(0, len(buttons), 3)]
            rows.append([screen(PAGE_QUICK, t(lang, "btn_fewer_bids"))])
        elif page > PAGE_SPANS:
            span = [a for a in points if min((a - A.BID_POINTS) // 10, 11) == page]
            buttons = [button(a, str(a - A.BID_POINTS)) for a in span]
            rows += [buttons[i : i + BIDS_PER_ROW] for i in range(0, len(buttons), BIDS_PER_ROW)]
            rows.append([screen(PAGE_SPANS, t(lang, "btn_fewer_bids"))])
        else:
            last = points[0] - 1  # the bid to beat
            quick = [a for a in points if a - last in QUICK_RAISES]
            rows.append([button(a) for a in quick[:2]])
            rows.append([button(a) for a in quick[2:]])
            rows.append([screen(PAGE_SPANS, t(lang, "btn_more_bids"))])
    else:
        others = points + others
    buttons = [button(a) for a in others]
    return rows + [buttons[i : i + 3] for i in range(0, len(buttons), 3)]


def _bid_text(action: int, obs: Observation, lang: str) -> str:
    """A bid button's words. The caller naming the suit: "🪙 Denari", and "(in mano: da
    solo)" for the suit whose called card they hold (§7.7)."""
    if A.NAME_SUIT <= action < A.CALL_CARD:
        suit = action - A.NAME_SUIT
        french = _french(obs.options)
        name = suit_name(suit, lang, french=french).capitalize()
        label = f"{suit_symbol(suit, french=french)} {name}"
        rank = next(
            (a - A.CALL_RANK for _, a in reversed(obs.bids) if A.CALL_RANK <= a < A.BID_POINTS),
            0,
        )
        if rank and obs.rules.deck.size == 40 and card_id(rank, suit) in obs.hand:
            label += " " + t(lang, "suit_held")
        return label
    return action_label(action, obs, lang)
