"""A hand's and a match's end: the result on the table message, the evening's log (one
message per hand, and the match's end with the rematch), what the ledger got, and each
seat's own summary in private."""

from __future__ import annotations

from bot.engine import SPECTATOR, Observation, observe
from bot.engine import actions as A
from bot.engine.match import HandRecord
from bot.engine.state import HandState
from bot.i18n import join_names, t, tn
from bot.i18n.words import action_label, bid_label
from bot.players.review_data import Review
from bot.table.table import Table
from bot.view.callback_data import callback_data
from bot.view.render.auction import _pm_chiamata
from bot.view.render.cards import _card, _last_trick_line, _points
from bot.view.render.common import (
    Button,
    Keyboard,
    Rendered,
    _names,
    esc,
    hand_label,
    points_text,
    seat_short,
    signed,
)


def _score(table: Table, names: list[str]) -> str:
    m = table.match
    assert m is not None
    rules = table.options.rules()
    if rules.chiamata:
        return ", ".join(f"{esc(names[s])} {signed(v)}" for s, v in enumerate(m.scores))
    side_of = rules.side_of
    values = m.side_points if rules.match.startswith("points") else m.hands_won
    return ", ".join(f"{_side_label(names, side, side_of)} {v}" for side, v in enumerate(values))


def _side_label(names: list[str], side: int, side_of: tuple[int, ...]) -> str:
    return " &amp; ".join(esc(names[s]) for s, x in enumerate(side_of) if x == side)


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


def hand_log(table: Table, lang: str, replay_link: str | None = None) -> Rendered:
    """The result of the hand just over, as its own short message in the group (sent
    silently: it is the evening's log, the table message stays the live view). Chiamata: the
    caller, the call and the target, the socio, the caller's points and who won, each
    seat's score for the hand. The other variants: who won, with how many points, and the
    match so far. `replay_link`: the Mini App's direct link to the hand's replay, a button
    under it (issue 51.3; in a group a URL button, as the table message's), but for a
    redeal, which nobody played."""
    text = _hand_log_text(table, lang)
    rec = table.match.records[-1] if table.match and table.match.records else None
    if replay_link is None or rec is None or rec.redeal:
        return Rendered(text, [])
    return Rendered(text, [[Button(t(lang, "btn_replay"), url=replay_link)]])


def _hand_log_text(table: Table, lang: str) -> str:
    hand = table.hand
    assert hand is not None and table.match is not None and table.match.records
    rec = table.match.records[-1]
    names = [seat_short(table, s, lang) for s in range(len(table.seats))]
    title = t(lang, "log_title", n=hand_label(table, lang))
    if rec.redeal:
        return t(lang, "log_redeal", title_html=title)
    if rec.void:
        return t(lang, "log_void", title_html=title, points_html=_points(rec.card_points, names))
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
        return first + "\n" + t(lang, "score_line", score_html=_score(table, names))
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
    return "\n".join(lines)


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


def _pm_standing(table: Table, nm: list[str]) -> str:
    """The match so far, as the table message gives it (`_score`); empty before the first
    hand has counted."""
    m = table.match
    if m is None or not m.counted_hands():
        return ""
    return _score(table, nm)


def pm_summary(
    table: Table, seat: int, obs: Observation, nm: list[str], lang: str, *, ledger: bool = True
) -> list[str]:
    """This seat's end of the hand: won or lost, the card points taken, in chiamata the
    call and the caller's result and this seat's score for the hand (and what of it the
    group's ledger got), the match standing, and at the match's end the winner and, in the
    other variants, this seat's ledger change. `ledger` False: a table with no group (`python
    -m bot play --web`) has no ledger to speak of."""
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
            sides = rules.side_of
            points = ", ".join(
                f"{_side_label(nm, side, sides)} {p}" for side, p in enumerate(res.side_points)
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
        if ledger:
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
        if ledger and not rules.chiamata:  # §10.2: at the match's end (chiamata: hand by hand)
            out.append(pm_ledger(table, m.ledger_deltas(), seat, lang))
    return out


def _pm_hand_score(table: Table, deltas: tuple[int, ...], seat: int, lang: str) -> str:
    """Chiamata: this seat's score for the hand (§7.12), and what the group's ledger got of
    it: the same, or less with computers at a table that counts (§10.5), or nothing."""
    delta = points_text(lang, deltas[seat], sign=True)  # money-like: "+1 punto"
    if table.computer_seats() and not table.counts:
        return t(lang, "pm_hand_score_off", delta=delta)
    counted = table.counted_deltas(deltas)[seat]
    if counted == deltas[seat]:
        return t(lang, "pm_hand_score", delta=delta)
    counted_text = points_text(lang, counted, sign=True)
    return t(lang, "pm_hand_score_counted", delta=delta, counted=counted_text)


def pm_ledger(table: Table, deltas: tuple[int, ...], seat: int, lang: str) -> str:
    """What the group's ledger receives for this seat at the match's end (§10.5: a table
    with computer seats writes only if its creator chose so, and then no computer pays or
    collects)."""
    if table.computer_seats() and not table.counts:
        return t(lang, "pm_ledger_off")
    return t(
        lang, "pm_ledger", delta=points_text(lang, table.counted_deltas(deltas)[seat], sign=True)
    )


def review_lines(names: list[str], hand: HandState, review: Review, lang: str) -> list[str]:
    """Issue 51, "il colpo della mano": the costliest decision of the hand just over (who,
    what, in which trick, what was better, what it cost: card points, or in chiamata the
    hand's score, §7.12) and the best play of the hand, if there is one, each on a line
    (HTML); none when nothing cost anything worth saying. A decision judged with every hand
    seen says so."""
    obs = observe(hand, SPECTATOR)
    out: list[str] = []
    costliest = review.costliest
    if costliest is not None:
        cost = review_cost(lang, costliest.cost, review.currency)
        if cost:
            key = {"card": "review_card", "bid": "review_bid"}.get(costliest.kind, "review_call")
            line = t(
                lang,
                key,
                who=names[costliest.seat],
                trick=_trick_of(hand, costliest.index),
                move_html=_move(costliest.move, obs, lang),
                best_html=_move(costliest.best, obs, lang),
                cost=cost,
            )
            if costliest.judged == "open":
                line += t(lang, "review_open")
            out.append(line)
    best = review.best_move
    if best is not None and (costliest is None or best.index != costliest.index):
        out.append(
            t(
                lang,
                "review_best",
                who=names[best.seat],
                trick=_trick_of(hand, best.index),
                move_html=_move(best.move, obs, lang),
            )
        )
    return out


def _move(action: int, obs: Observation, lang: str) -> str:
    """A move as the chat names it (HTML): a card "Asso 🪙" (bold if a briscola), a bid
    as the auction's history says it ("Re", "passo", "Due a 64"), else the action's label."""
    if A.is_card(action):
        return _card(action, obs, lang)
    if A.CALL_RANK <= action < A.NAME_SUIT:
        return esc(bid_label(action, obs, lang))
    return esc(action_label(action, obs, lang))


def _trick_of(hand: HandState, index: int) -> int:
    """The trick (1-based) of the card played as the hand's `index`-th action."""
    cards = sum(1 for _, a in hand.actions[:index] if A.is_card(a))
    return cards // hand.rules.n_players + 1


def review_cost(lang: str, cost: float, currency: str) -> str:
    """A cost in words ("11 punti"; in chiamata "0,8 punti di partita"); "" when too small
    to be worth a word."""
    if currency == "score":
        if cost < 0.05:
            return ""
        value = f"{cost:.1f}".removesuffix(".0").replace(".", "," if lang == "it" else ".")
        return t(lang, "review_score", value=value)
    whole = round(cost)
    return tn(lang, "points_unit", whole, value=str(whole)) if whole else ""
