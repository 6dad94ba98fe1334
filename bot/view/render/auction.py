"""Chiamata's auction and call (§7): the lines the group and a hand message show of it, the
prompt to the one who speaks, and the buttons of a bid, the suit, or the called card."""

from __future__ import annotations

from bot.engine import Observation
from bot.engine import actions as A
from bot.engine.cards import card_id
from bot.i18n import t
from bot.i18n.words import action_label, bid_label, called_rank, suit_name, suit_symbol
from bot.view.callback_data import callback_data
from bot.view.render.cards import _by_suit, _card, _card_label, _french
from bot.view.render.common import Button, Keyboard, esc


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


# A turn's text while nobody has called a rank, carichi or points yet (a pass changes nothing).
FIRST_BID = {"your_bid": "your_first_bid", "your_points_bid": "your_first_points_bid"}


def auction_prompt(obs: Observation, lang: str) -> str:
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
    elif key in FIRST_BID and all(a == A.PASS for _, a in obs.bids):
        key = FIRST_BID[key]  # only passes yet: "lower", "more" would say of nothing
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
        text = label if label is not None else bid_text(a, obs, lang)
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


def bid_text(action: int, obs: Observation, lang: str) -> str:
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
