"""A player's private hand message, built from that seat's observation only, and the forms it
takes when its buttons no longer work (frozen, away, kept once the next hand is dealt)."""

from __future__ import annotations

from bot.engine import Observation
from bot.engine import actions as A
from bot.engine.cards import card_id
from bot.i18n import t, variant_name
from bot.i18n.words import action_label, bid_label, rank_name
from bot.table.deadlines import ABANDON_AFTER
from bot.table.table import PLAYING, Table
from bot.view.callback_data import callback_data
from bot.view.render.auction import _bid_keyboard, _pm_chiamata, auction_prompt
from bot.view.render.cards import (
    _briscola_line,
    _card,
    _card_rows,
    _french,
    _hand_text,
    _last_trick_line,
    _open_lines,
    _plays,
)
from bot.view.render.common import (
    Button,
    Keyboard,
    Rendered,
    group_title,
    hand_label,
    seat_short,
)
from bot.view.render.summaries import _pm_standing, pm_summary

ABANDON_MINUTES = round(ABANDON_AFTER / 60)  # a paused match waits this long for its people


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
    lines = [_pm_title(table, lang, hand_label(table, lang))]
    kb: Keyboard = []
    if hand.is_terminal():
        lines.extend(pm_summary(table, seat, obs, nm, lang))
        # the next hand: by itself, or the group's table message's button (a summary without
        # a button stays as it is, no edit, when the next hand is dealt); but the match waits
        # for them: the next hand when they are back
        on = table.status == PLAYING and table.match is not None and not table.match.over
        if on and table.paused():
            away = "paused_left" if table.seats[seat].away == "left" else "paused_timeout"
            lines.append(t(lang, away, minutes=ABANDON_MINUTES))
            kb.append([Button(t(lang, "btn_resume"), callback_data("b", tid))])
        return Rendered("\n".join(lines), kb)

    # their last card, their one legal move, plays itself (`Table.forced`): no turn, no button
    forced = obs.current == seat and table.forced()
    my_turn = obs.current == seat and not forced
    auction = obs.phase in ("auction", "name_suit", "call_card")
    records = table.match.records if table.match else []
    if obs.phase == "auction" and records and records[-1].redeal:
        # §7.4: the all-pass deal before this one reached nobody's chat (`Shown.render`)
        lines.append(t(lang, "pm_after_redeal"))
    if my_turn:
        if auction:
            lines.append(auction_prompt(obs, lang))
        else:
            lines.append(t(lang, "pm_your_lead" if not obs.trick else "pm_your_turn"))
    elif forced:
        lines.append(t(lang, "pm_last_card_plays"))
    elif obs.current >= 0:
        key = "pm_bid_of" if obs.phase == "auction" else "pm_turn_of"
        lines.append(t(lang, key, who=nm[obs.current]))
        done = _what_you_did(obs, seat, lang)
        if done:  # the turn that was theirs, as it went (issue 49: the tapped message says it)
            lines.append(done)
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
            if my_turn:
                kb.append(
                    [
                        Button(f"🂠 {i + 1}", callback_data("a", tid, hidx, played, A.BLIND + i))
                        for i in range(obs.hand_sizes[seat])
                    ]
                )
        elif not my_turn:  # one's cards as text: no button that would only say "not yet"
            if obs.hand:
                lines.append(t(lang, "your_cards", cards_html=_hand_text(obs.hand, obs, lang)))
        else:
            lines.append(t(lang, "your_hand"))
            # §8.2 (Briscolone): on one's turn only the cards one may play are buttons; the
            # others are named, so no tap is wasted on a card that would be refused
            held = tuple(c for c in obs.hand if c in obs.legal)
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


def _what_you_did(obs: Observation, seat: int, lang: str) -> str:
    """What the seat did on its last turn, while it is someone else's: the card it played
    in the trick on the table (or in the trick just taken, before the next is led), its
    last word in the auction; "" otherwise."""
    if obs.phase == "play":
        plays = obs.trick or (obs.tricks[-1].plays if obs.tricks else ())
        card = next((c for s, c in plays if s == seat), -1)
        if card < 0:
            return ""
        return t(lang, "pm_you_played", card_html=_card(card, obs, lang))
    if obs.phase == "auction":
        said = [a for s, a in obs.bids if s == seat]
        if said:
            return t(lang, "pm_you_bid", bid=bid_label(said[-1], obs, lang))
    return ""


def _pm_title(table: Table, lang: str, n: str | None = None) -> str:
    """A private message's first line: the game, the hand, and the group it is played in."""
    variant = variant_name(lang, table.options.variant)
    if n is None:
        return t(lang, "pm_title_table", variant=variant, group_html=group_title(table))
    return t(lang, "pm_title", variant=variant, n=n, group_html=group_title(table))


def kept_summary(table: Table, seat: int, lang: str) -> Rendered:
    """A hand's summary as it stays in the person's chat once the next hand is dealt: the
    same text, without its button (`private_message` at the hand's end)."""
    return Rendered(private_message(table, seat, lang).text, [])


def frozen_private(table: Table, lang: str, reason_key: str) -> Rendered:
    """The hand message of someone whose buttons no longer work (they left the table, or it
    was cancelled): the header and why; no cards, no buttons."""
    return Rendered(f"{_pm_title(table, lang)}\n{t(lang, reason_key)}", [])


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
