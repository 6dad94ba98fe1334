"""The group's table message, the live view: seats, the briscola, the table, the last
trick, whose turn it is and the match's score, built from the spectator's observation."""

from __future__ import annotations

from bot.engine import SPECTATOR, Observation, observe
from bot.i18n import join_names, t, variant_name
from bot.table.table import CANCELLED, FINISHED, LOBBY, PLAYING, Table
from bot.view.callback_data import callback_data
from bot.view.render.auction import _auction_lines
from bot.view.render.cards import _briscola_line, _last_trick_line, _open_lines, _plays, _points
from bot.view.render.common import (
    Button,
    Keyboard,
    Rendered,
    _names,
    closed_text,
    esc,
    hand_label,
)
from bot.view.render.lobby import lobby_message
from bot.view.render.summaries import _score, hand_result_lines, match_over_line


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
            n=hand_label(table, lang),
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
