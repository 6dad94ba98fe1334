"""Telegram rendering: the group's table message and each player's private hand message.

HTML parse mode; every user-provided name goes through `html.escape`. The group message is
built from the spectator's observation (`observe(state, SPECTATOR)`): only what the whole
table may see. A private message is built from that seat's observation only.
Keyboards are plain data (`Button` rows); the Telegram adapter turns them into markup.

Button data: `bot.telegram.callback_data`.
"""

from __future__ import annotations

import html
import re
import unicodedata
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
    value_name,
    variant_name,
)
from bot.i18n.words import action_label, bid_label, card_name, rank_name, rank_word, suit_name
from bot.players import LEVELS
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


def _card(card: int, obs: Observation, lang: str) -> str:
    return esc(card_name(card, obs.rules.deck, lang, french=_french(obs.options)))


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
    """The group's table message; `app_link`: the Mini App's direct link, a button while the
    match is played (Telegram refuses `web_app` buttons in groups: a plain URL button)."""
    if table.status == LOBBY:
        return lobby_message(table, lang)
    if table.status == CANCELLED or table.hand is None:
        return Rendered(closed_text(table, lang), [])
    hand = table.hand
    assert hand is not None
    obs = observe(hand, SPECTATOR)
    names = _names(table, lang)
    n = table.n_players
    # the hand's number: a void hand (§4.4) and its replay share one
    counted = table.match.counted_hands() if table.match else 0
    records = table.match.records if table.match else []
    done = hand.is_terminal() and bool(records) and not (records[-1].void or records[-1].redeal)
    lines = [
        t(
            lang,
            "hand_title",
            variant=variant_name(lang, table.options.variant),
            n=counted if done else counted + 1,
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
    if obs.tricks and not hand.is_terminal():  # §3.7: once it is over, all points show
        lines.append(_last_trick_line(obs, names, lang))
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
            if table.rematch is None:  # same seats, same settings: a new table in one tap
                kb.append([Button(t(lang, "btn_rematch"), callback_data("r", table.table_id))])
        else:
            kb.append(
                [Button(t(lang, "btn_next"), callback_data("n", table.table_id, hand.hand_index))]
            )
    elif obs.current >= 0:
        lines.append(t(lang, "turn_line", who=names[obs.current]))
    if table.match is not None:
        lines.append(t(lang, "score_line", score_html=_score(table, names)))
    if app_link is not None and table.status == PLAYING:
        kb.append([Button(t(lang, "btn_miniapp"), url=app_link)])
    return Rendered("\n".join(lines), kb)


def _briscola_line(obs: Observation, lang: str) -> str:
    french = _french(obs.options)
    if obs.briscola >= 0:
        card_html = ""
        if obs.turned >= 0:
            card_html = f" ({_card(obs.turned, obs, lang)})"
        return t(
            lang,
            "briscola_line",
            suit=suit_name(obs.briscola, lang, french=french),
            card_html=card_html,
        )
    if obs.rules.chiamata and obs.phase in ("auction", "name_suit", "call_card"):
        return t(lang, "briscola_pending")
    return t(lang, "no_briscola")


def _auction_lines(obs: Observation, names: list[str], lang: str) -> list[str]:
    out = []
    if obs.bids:
        bids = " · ".join(f"{esc(names[s])}: {esc(bid_label(a, obs, lang))}" for s, a in obs.bids)
        out.append(t(lang, "auction_line", bids_html=bids))
    if obs.carichi:
        out.append(t(lang, "carichi_line", who=names[obs.caller]))
    elif obs.called_card >= 0:
        target = t(lang, "target", n=obs.target) if obs.target != 61 else ""
        out.append(
            t(
                lang,
                "caller_line",
                who=names[obs.caller],
                card_html=f"<b>{_card(obs.called_card, obs, lang)}</b>",
                target_html=target,
            )
        )
    return out


def _open_lines(obs: Observation, names: list[str], lang: str) -> list[str]:
    """What everybody sees: the public hands (scoperta) and the talon's next card."""
    out = [
        t(
            lang,
            "visible_hand",
            who=names[seat],
            cards_html=", ".join(_card(c, obs, lang) for c in cards),
        )
        for seat, cards in sorted(obs.visible_hands.items())
    ]
    if obs.talon_next >= 0:
        out.append(t(lang, "talon_next", card_html=_card(obs.talon_next, obs, lang)))
    return out


def _last_trick_line(obs: Observation, names: list[str], lang: str) -> str:
    last = obs.tricks[-1]
    return t(
        lang,
        # §3.7: card points are shown only with show_points
        "last_trick_points" if obs.rules.show_points else "last_trick",
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


def _score(table: Table, names: list[str]) -> str:
    m = table.match
    assert m is not None
    rules = table.options.rules()
    if rules.chiamata:
        return ", ".join(f"{esc(names[s])} {v:+d}" for s, v in enumerate(m.scores))
    side_of = rules.side_of
    values = m.side_points if rules.match.startswith("points") else m.hands_won
    return ", ".join(f"{_side_label(names, side, side_of)} {v}" for side, v in enumerate(values))


def hand_result_lines(table: Table, rec: HandRecord, lang: str) -> list[str]:
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
        deltas = ", ".join(f"{esc(names[s])} {d:+d}" for s, d in enumerate(rec.deltas))
        out.append(t(lang, "deltas_line", deltas_html=deltas))
    else:
        side = rec.winning_sides[0]
        side_of = table.options.rules().side_of
        winners = [names[s] for s, x in enumerate(side_of) if x == side]
        key = "side_won_many" if len(winners) > 1 else "side_won"  # "Vincono Mario e Luigi"
        out.append(t(lang, key, who=join_names(lang, winners), points=rec.side_points[side]))
    return out


def match_over_line(table: Table, lang: str) -> str:
    m = table.match
    assert m is not None
    names = _names(table, lang)
    rules = table.options.rules()
    if rules.chiamata:
        winners = [names[m.winner]]
    else:
        # §4.3 fixed5: tied sides are all winners
        winners = [names[s] for s, x in enumerate(rules.side_of) if x in m.winners]
    key = "match_over_many" if len(winners) > 1 else "match_over"
    return t(lang, key, who=join_names(lang, winners))


# ---------------------------------------------------------------------- a player's hand


PRIVATE_NAME_MAX = 16  # characters of a name in the hand message (the group shows it whole)


def short_name(name: str, limit: int = PRIVATE_NAME_MAX) -> str:
    """`name` cut to `limit` characters with "…" (not escaped), for the compact hand message.
    The cut does not split an emoji sequence (a flag, a joined or modified emoji)."""
    if len(name) <= limit:
        return name
    cut = limit - 1
    while cut > 1 and _continues(name, cut):
        cut -= 1
    return name[:cut].rstrip() + "…"


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
    match standing, this seat's cards as buttons; at the end of the hand its own summary.
    Names are shortened (`short_name`) so that it fits a phone screen."""
    hand = table.hand
    assert hand is not None
    obs = hand.observation(seat)
    nm = [short_name(name) for name in _names(table, lang)]
    tid = table.table_id
    hidx = hand.hand_index
    variant = variant_name(lang, table.options.variant)
    lines = [t(lang, "pm_title", variant=variant, n=_hand_number(table), tid=tid)]
    kb: Keyboard = []
    if hand.is_terminal():
        lines.extend(_pm_summary(table, seat, obs, nm, lang))
        if table.status == PLAYING and table.match is not None and not table.match.over:
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
        lines.append(t(lang, "pm_turn_of", who=nm[obs.current]))
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
            deck = obs.rules.deck
            # §8.2 (Briscolone): on one's turn only the cards one may play are buttons; the
            # others are named, so no tap is wasted on a card that would be refused
            held = tuple(c for c in obs.hand if not my_turn or c in obs.legal)
            if len(held) < len(obs.hand):
                unplayable = tuple(c for c in obs.hand if c not in held)
                lines.append(t(lang, "must_follow_line", cards_html=_cards(unplayable, obs, lang)))
            row: list[Button] = []
            for c in sorted(held, key=lambda c: (deck.suit[c], -deck.strength[c])):
                row.append(
                    Button(
                        card_name(c, deck, lang, french=_french(obs.options)),
                        callback_data("a", tid, hidx, 0, c),
                    )
                )
                if len(row) == 2:
                    kb.append(row)
                    row = []
            if row:
                kb.append(row)
        if my_turn:
            signals = [a for a in obs.legal if a >= A.SIGNAL]
            for a in signals:
                kb.append(
                    [Button(action_label(a, obs, lang), callback_data("a", tid, hidx, stamp, a))]
                )
    else:
        # The auction and the call: the cards are shown (one needs them to bid), as text.
        if obs.hand:
            lines.append(t(lang, "your_cards", cards_html=_cards(obs.hand, obs, lang)))
        if my_turn:
            kb.extend(_bid_keyboard(obs, lang, tid, hidx, stamp, bid_page))
    return Rendered("\n".join(lines), kb)


def _pm_chiamata(obs: Observation, seat: int, nm: list[str], lang: str) -> list[str]:
    """The auction (each bidder's last word), then the caller, the called card, the target;
    the partner once the called card is out, or privately to the partner themselves."""
    out = []
    if obs.caller < 0:
        last: dict[int, int] = {}
        for s, a in obs.bids:
            last[s] = a
        if last:
            bids = " · ".join(
                f"{esc(nm[s])}: {esc(bid_label(a, obs, lang))}" for s, a in last.items()
            )
            out.append(t(lang, "pm_bids", bids_html=bids))
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
            card_html=f"<b>{_card(obs.called_card, obs, lang)}</b>",
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
        return ", ".join(f"{esc(nm[s])} {v:+d}" for s, v in enumerate(m.scores))
    values = m.side_points if rules.match.startswith("points") else m.hands_won
    return ", ".join(f"{_pm_side(table, side, nm)} {v}" for side, v in enumerate(values))


def _pm_summary(table: Table, seat: int, obs: Observation, nm: list[str], lang: str) -> list[str]:
    """This seat's end of the hand: won or lost, the card points, in chiamata the caller's
    result and this seat's score for the hand, the match standing, and at the match's end
    the winner and this seat's ledger change."""
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
    if rules.chiamata and not res.redeal:
        out.extend(_pm_chiamata(obs, seat, nm, lang))
        key = "caller_won" if res.winning_sides == (0,) else "caller_lost"
        out.append(t(lang, key, who=nm[hand.caller], points=res.side_points[0], target=hand.target))
        if res.cappotto:
            out.append(t(lang, "cappotto"))
        out.append(t(lang, "pm_hand_score", delta=f"{res.deltas[seat]:+d}"))
        out.append(_pm_ledger(table, res.deltas, seat, lang))  # §10.1: every hand
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


def _pm_ledger(table: Table, deltas: tuple[int, ...], seat: int, lang: str) -> str:
    """What the group's ledger receives for this seat now (§10.5: a table with computer
    seats writes only if its creator chose so, and then no computer pays or collects)."""
    if table.computer_seats() and not table.counts:
        return t(lang, "pm_ledger_off")
    return t(lang, "pm_ledger", delta=f"{table.counted_deltas(deltas)[seat]:+d}")


def frozen_private(table: Table, lang: str, reason_key: str) -> Rendered:
    """The hand message of someone whose buttons no longer work (they left the table, or it
    was cancelled): the header and why; no cards, no buttons."""
    title = f"🃏 <b>{esc(variant_name(lang, table.options.variant))}</b> · #{table.table_id}"
    return Rendered(f"{title}\n{t(lang, reason_key)}", [])


def closed_text(table: Table, lang: str) -> str:
    """Why a cancelled table closed: who cancelled it, or that the lobby expired."""
    closed = table.closed or {}
    key = closed.get("key", "cancelled")
    return t(lang, key, who=closed.get("who", ""))


def away_private(table: Table, seat: int, lang: str) -> Rendered:
    """The hand message of someone whose seat the computer plays: after /leave (no buttons:
    /join takes the seat back), or after two timeouts in a row (a button takes it back)."""
    if table.seats[seat].away != "timeout":
        return frozen_private(table, lang, "ok_left_playing")
    title = f"🃏 <b>{esc(variant_name(lang, table.options.variant))}</b> · #{table.table_id}"
    button = Button(t(lang, "btn_resume"), callback_data("b", table.table_id))
    return Rendered(f"{title}\n{t(lang, 'away_timeout')}", [[button]])


def mention(user_id: int, name: str) -> str:
    """A mention that notifies the person (HTML; the name escaped)."""
    return f'<a href="tg://user?id={int(user_id)}">{esc(name)}</a>'


def _cards(cards: tuple[int, ...], obs: Observation, lang: str) -> str:
    deck = obs.rules.deck
    ordered = sorted(cards, key=lambda c: (deck.suit[c], -deck.strength[c]))
    return ", ".join(_card(c, obs, lang) for c in ordered)


def _prompt(obs: Observation, lang: str) -> str:
    if obs.phase == "name_suit":
        rank = next(
            a - A.CALL_RANK for _, a in reversed(obs.bids) if A.CALL_RANK <= a < A.BID_POINTS
        )
        return t(lang, "your_suit", rank=rank_word(rank, lang))
    if obs.phase == "call_card":
        return t(lang, "your_card_call", n=obs.target)
    key = "your_bid"
    if any(A.BID_POINTS <= a < A.PASS for a in obs.legal):
        key = "your_points_bid" if obs.rules.auction == "points" else "your_overbid"
    if A.PASS not in obs.legal:  # §7.2 first_must_call: the first to speak may not pass
        key += "_no_pass"
    return t(lang, key)


QUICK_RAISES = (1, 2, 5, 10)  # points bids on the first screen: this much over the last bid
ALL_BIDS_PER_ROW = 6


def _bid_keyboard(
    obs: Observation, lang: str, tid: int, hidx: int, stamp: int, page: int = 0
) -> Keyboard:
    """The auction's buttons. Points bids (§7.3, §7.9) reach any legal value in at most two
    taps: the first screen raises the last bid by 1, 2, 5 or 10 and has a button to a second
    screen (`page` 1) with every legal value; its other buttons (pass, ...) stay on both."""
    legal = list(obs.legal)
    points = [a for a in legal if A.BID_POINTS <= a < A.PASS]
    others = [a for a in legal if not A.BID_POINTS <= a < A.PASS]
    if obs.phase == "call_card":
        deck = obs.rules.deck
        rows: Keyboard = []
        for s in range(4):
            cards = [c for c in range(deck.size) if deck.suit[c] == s]
            cards.sort(key=lambda c: -deck.strength[c])
            for i in range(0, len(cards), 5):
                rows.append(
                    [
                        Button(
                            card_name(c, deck, lang, french=_french(obs.options)),
                            callback_data("a", tid, hidx, stamp, A.CALL_CARD + c),
                        )
                        for c in cards[i : i + 5]
                    ]
                )
        return rows

    def button(a: int) -> Button:
        return Button(_bid_text(a, obs, lang), callback_data("a", tid, hidx, stamp, a))

    rows = []
    if len(points) > len(QUICK_RAISES) + 1:
        if page == 1:
            values = [button(a) for a in points]
            rows += [
                values[i : i + ALL_BIDS_PER_ROW] for i in range(0, len(values), ALL_BIDS_PER_ROW)
            ]
            rows.append(
                [Button(t(lang, "btn_fewer_bids"), callback_data("m", tid, hidx, stamp, 0))]
            )
        else:
            last = points[0] - 1  # the bid to beat
            quick = [a for a in points if a - last in QUICK_RAISES]
            rows.append([button(a) for a in quick])
            rows.append([Button(t(lang, "btn_more_bids"), callback_data("m", tid, hidx, stamp, 1))])
    else:
        others = points + others
    buttons = [button(a) for a in others]
    return rows + [buttons[i : i + 3] for i in range(0, len(buttons), 3)]


def _bid_text(action: int, obs: Observation, lang: str) -> str:
    """A bid button's words, without the cards' short codes ("Denari: 2 di denari")."""
    if A.NAME_SUIT <= action < A.CALL_CARD:
        label = action_label(action, obs, lang)
        return re.sub(r" \([^()]*\)$", "", label)
    return action_label(action, obs, lang)
