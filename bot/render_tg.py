"""Telegram rendering: the group's table message and each player's private hand message.

HTML parse mode; every user-provided name goes through `html.escape`. The group message is
built from the spectator's observation (`observe(state, SPECTATOR)`): only what the whole
table may see. A private message is built from that seat's observation only.
Keyboards are plain data (`Button` rows); the Telegram adapter turns them into markup.

Callback data (at most 64 bytes, `callback_data()` checks it):
    a:<table>:<hand>:<stamp>:<action>   a move; stamp = the turn's start for bids (0 for cards)
    l:<table>:<op>                      lobby: join, leave, bot, go, fill, cancel, settings, back
    l:<table>:bot:<level>               lobby: seat a computer player of that level
    s:<table>:<key>:<value>             a setting
    n:<table>:<hand>                    next hand
    v:<variant>                         the variant picked after a bare /new
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from bot.engine import SPECTATOR, Observation, observe
from bot.engine import actions as A
from bot.engine.cards import card_id
from bot.engine.match import HandRecord
from bot.engine.options import VARIANTS, Options
from bot.i18n import level_name, t, variant_name
from bot.players import LEVELS
from bot.render_text import action_label, bid_label, card_name, rank_name, suit_name
from bot.tables import CANCELLED, FINISHED, LOBBY, Table

MAX_CALLBACK_BYTES = 64


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


def callback_data(*parts: object) -> str:
    data = ":".join(str(p) for p in parts)
    if len(data.encode()) > MAX_CALLBACK_BYTES:
        raise ValueError(f"callback data over {MAX_CALLBACK_BYTES} bytes: {data!r}")
    return data


def esc(text: str) -> str:
    return html.escape(text, quote=False)


def _french(options: Options) -> bool:
    return options.deck == "french"


def _card(card: int, obs: Observation, lang: str) -> str:
    return esc(card_name(card, obs.rules.deck, lang, french=_french(obs.options)))


# ---------------------------------------------------------------------- lobby


def options_summary(options: Options, lang: str) -> str:
    explicit = {k: v for k, v in options.explicit().items() if k != "variant"}
    parts = [
        f"match={options.resolved_match()}"
        if not options.rules().chiamata
        else f"target={options.target}"
    ]
    parts += [f"{k}={v}" for k, v in sorted(explicit.items()) if k not in ("match", "target")]
    return ", ".join(parts)


def lobby_message(table: Table, lang: str) -> Rendered:
    tid = table.table_id
    lines = [
        t(lang, "lobby_title", variant=variant_name(lang, table.options.variant)),
        t(lang, "lobby_seats", have=len(table.seats), n=table.n_players),
    ]
    for i in range(table.n_players):
        if i < len(table.seats):
            lines.append(f"{i + 1}. {esc(table.seats[i].name)}")
        else:
            lines.append(f"{i + 1}. {t(lang, 'lobby_empty_seat')}")
    lines.append(t(lang, "lobby_options", options=options_summary(table.options, lang)))
    if table.timer:
        lines.append(f"{t(lang, 'timer_label')}: {table.timer}s")
    lines.append(t(lang, "lobby_hint"))
    kb: Keyboard = [
        [
            Button(t(lang, "btn_join"), callback_data("l", tid, "join")),
            Button(t(lang, "btn_leave"), callback_data("l", tid, "leave")),
        ],
        [
            Button(
                t(lang, "btn_addbot", level=level_name(lang, lv)),
                callback_data("l", tid, "bot", lv),
            )
            for lv in LEVELS
        ],
        [
            Button(t(lang, "btn_settings"), callback_data("l", tid, "settings")),
            Button(t(lang, "btn_go"), callback_data("l", tid, "go")),
        ],
        [
            Button(t(lang, "btn_fill_go"), callback_data("l", tid, "fill")),
            Button(t(lang, "btn_cancel"), callback_data("l", tid, "cancel")),
        ],
    ]
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
    "overbid": ("true", "false"),
    "carichi": ("false", "true"),
    "auction": ("rank", "points"),
    "lead": ("dealer_right", "caller"),
    "cappotto": ("zero_points", "all_tricks"),
    "target": ("11", "21", "0"),
    "timer": ("0", "30", "60", "120"),
}


def _with(options: Options, key: str, value: str) -> Options | None:
    """The options with `key` set to `value`, or None if the rules do not allow it."""
    data = {
        k: str(v).lower()
        for k, v in options.explicit().items()
        if k != "variant" and v is not None  # unset: not the value "none" (teams, §9.1)
    }
    data[key] = value
    try:
        return Options.parse(options.variant, data)
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


def applicable_settings(options: Options) -> list[str]:
    """The settings that can take at least one value other than the current one."""
    return [key for key in SETTING_CHOICES if key == "timer" or _changes(options, key)]


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


def next_value(options: Options, key: str, timer: int) -> str:
    """What a tap on the setting's button sets: the next value in the cycle that the rules
    allow with the other options."""
    values = SETTING_CHOICES[key]
    current = str(timer) if key == "timer" else _current_value(options, key)
    i = values.index(current) if current in values else -1
    cycle = [values[(i + k) % len(values)] for k in range(1, len(values) + 1)]
    if key == "timer":
        return cycle[0]
    allowed = _changes(options, key)
    return next((v for v in cycle if v in allowed), current)


def settings_message(table: Table, lang: str) -> Rendered:
    tid = table.table_id
    lines = [t(lang, "settings_title", variant=variant_name(lang, table.options.variant))]
    kb: Keyboard = []
    for key in applicable_settings(table.options):
        current = (
            (f"{table.timer}s" if table.timer else t(lang, "timer_off"))
            if key == "timer"
            else _current_value(table.options, key)
        )
        nxt = next_value(table.options, key, table.timer)
        kb.append([Button(f"{key}: {current}", callback_data("s", tid, key, nxt))])
    kb.append([Button(t(lang, "btn_back"), callback_data("l", tid, "back"))])
    return Rendered("\n".join(lines), kb)


# ---------------------------------------------------------------------- the group's table


def _names(table: Table) -> list[str]:
    return [s.name for s in table.seats]


def table_message(table: Table, lang: str) -> Rendered:
    if table.status == LOBBY:
        return lobby_message(table, lang)
    if table.status == CANCELLED or table.hand is None:
        return Rendered(t(lang, "cancelled"), [])
    hand = table.hand
    assert hand is not None
    obs = observe(hand, SPECTATOR)
    names = _names(table)
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
    for seat, cards in sorted(obs.visible_hands.items()):  # scoperta: public hands
        lines.append(
            t(
                lang,
                "visible_hand",
                who=names[seat],
                cards_html=", ".join(_card(c, obs, lang) for c in cards),
            )
        )
    if obs.talon_next >= 0:
        lines.append(t(lang, "talon_next", card_html=_card(obs.talon_next, obs, lang)))
    if obs.trick:
        lines.append(t(lang, "table_line", plays_html=_plays(obs.trick, obs, names, lang)))
    if obs.tricks and not hand.is_terminal():
        last = obs.tricks[-1]
        lines.append(
            t(
                lang,
                # §3.7: card points are shown only with show_points (or once the hand is over)
                "last_trick_points" if obs.rules.show_points else "last_trick",
                plays_html=_plays(last.plays, obs, names, lang),
                winner=names[last.winner],
                points=last.points,
            )
        )
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
    elif obs.current >= 0:
        lines.append(t(lang, "turn_line", who=names[obs.current]))
    if table.match is not None:
        lines.append(t(lang, "score_line", score_html=_score(table, names)))
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


def _plays(
    plays: tuple[tuple[int, int], ...], obs: Observation, names: list[str], lang: str
) -> str:
    return ", ".join(f"{esc(names[s])}: {_card(c, obs, lang)}" for s, c in plays)


def _points(points: tuple[int, ...], names: list[str]) -> str:
    return ", ".join(f"{esc(names[s])} {p}" for s, p in enumerate(points))


def _side_label(table: Table, side: int, side_of: tuple[int, ...]) -> str:
    return " &amp; ".join(esc(table.seats[s].name) for s, x in enumerate(side_of) if x == side)


def _score(table: Table, names: list[str]) -> str:
    m = table.match
    assert m is not None
    rules = table.options.rules()
    if rules.chiamata:
        return ", ".join(f"{esc(names[s])} {v:+d}" for s, v in enumerate(m.scores))
    side_of = rules.side_of
    values = m.side_points if rules.match.startswith("points") else m.hands_won
    return ", ".join(f"{_side_label(table, side, side_of)} {v}" for side, v in enumerate(values))


def hand_result_lines(table: Table, rec: HandRecord, lang: str) -> list[str]:
    names = _names(table)
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
        who = " & ".join(names[s] for s, x in enumerate(side_of) if x == side)
        out.append(t(lang, "side_won", who=who, points=rec.side_points[side]))
    return out


def match_over_line(table: Table, lang: str) -> str:
    m = table.match
    assert m is not None
    names = _names(table)
    rules = table.options.rules()
    if rules.chiamata:
        who = names[m.winner]
    else:
        who = " & ".join(names[s] for s, x in enumerate(rules.side_of) if x == m.winner)
    return t(lang, "match_over", who=who)


# ---------------------------------------------------------------------- a player's hand


def private_message(table: Table, seat: int, lang: str) -> Rendered:
    hand = table.hand
    assert hand is not None
    obs = hand.observation(seat)
    names = _names(table)
    tid = table.table_id
    hidx = hand.hand_index
    lines = [f"🃏 <b>{esc(variant_name(lang, table.options.variant))}</b> · #{tid}"]
    lines.append(_briscola_line(obs, lang))
    if obs.rules.chiamata and obs.partner == seat and not obs.partner_revealed and obs.caller >= 0:
        lines.append(t(lang, "you_are_alone" if seat == obs.caller else "you_are_partner"))
    for s, cards in sorted(obs.visible_hands.items()):
        lines.append(
            t(
                lang,
                "visible_hand",
                who=names[s],
                cards_html=", ".join(_card(c, obs, lang) for c in cards),
            )
        )
    if obs.talon_next >= 0:
        lines.append(t(lang, "talon_next", card_html=_card(obs.talon_next, obs, lang)))
    for who, k in obs.signals:  # §5.3: between partners only (the observation filters them)
        card = card_id(A.SIGNAL_NUMBERS[k], max(obs.briscola, 0))
        rank = rank_name(card, obs.rules.deck, lang, french=_french(obs.options))
        lines.append(t(lang, "signal_line", who=names[who], rank=rank))
    kb: Keyboard = []
    my_turn = obs.current == seat
    stamp = table.turn_start()
    if obs.phase == "play" or obs.phase == "over":
        if obs.rules.blind:
            # A position names no card, so these buttons carry how many cards this seat has
            # played: a double tap (or a button from an earlier turn) is then stale. It
            # changes only when this seat plays, so nobody else's message is edited for it.
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
            row: list[Button] = []
            for c in sorted(obs.hand, key=lambda c: (deck.suit[c], -deck.strength[c])):
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
            lines.append(_prompt(obs, lang))
            kb.extend(_bid_keyboard(obs, lang, tid, hidx, stamp))
    return Rendered("\n".join(lines), kb)


def frozen_private(table: Table, lang: str, reason_key: str) -> Rendered:
    """The hand message of someone whose buttons no longer work (they left the table, or it
    was cancelled): the header and why; no cards, no buttons."""
    title = f"🃏 <b>{esc(variant_name(lang, table.options.variant))}</b> · #{table.table_id}"
    return Rendered(f"{title}\n{t(lang, reason_key)}", [])


def _cards(cards: tuple[int, ...], obs: Observation, lang: str) -> str:
    deck = obs.rules.deck
    ordered = sorted(cards, key=lambda c: (deck.suit[c], -deck.strength[c]))
    return ", ".join(_card(c, obs, lang) for c in ordered)


def _prompt(obs: Observation, lang: str) -> str:
    if obs.phase == "name_suit":
        rank = next(
            a - A.CALL_RANK for _, a in reversed(obs.bids) if A.CALL_RANK <= a < A.BID_POINTS
        )
        from bot.engine.cards import RANK_NAMES_EN, RANK_NAMES_IT

        return t(lang, "your_suit", rank=(RANK_NAMES_IT if lang == "it" else RANK_NAMES_EN)[rank])
    if obs.phase == "call_card":
        return t(lang, "your_card_call", n=obs.target)
    if any(A.BID_POINTS <= a < A.PASS for a in obs.legal):
        return t(lang, "your_points_bid" if obs.rules.auction == "points" else "your_overbid")
    return t(lang, "your_bid")


def _bid_keyboard(obs: Observation, lang: str, tid: int, hidx: int, stamp: int) -> Keyboard:
    legal = list(obs.legal)
    points = [a for a in legal if A.BID_POINTS <= a < A.PASS]
    if points:  # quick steps: +1, +2, +3, +5, +10 over the minimum, and the maximum
        low = points[0] - A.BID_POINTS
        steps = sorted({p for p in (low, low + 1, low + 2, low + 4, low + 9, 120) if p <= 120})
        legal = [A.BID_POINTS + p for p in steps] + [a for a in legal if a >= A.PASS]
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
    buttons = [
        Button(action_label(a, obs, lang), callback_data("a", tid, hidx, stamp, a)) for a in legal
    ]
    return [buttons[i : i + 3] for i in range(0, len(buttons), 3)]
