"""Plain-text rendering of what one seat may see, for the terminal (Italian or English).

Every function that describes a hand in progress reads only an `Observation`
(`bot.engine.observation`), never the full `HandState`, so a hidden card cannot leak: other
players' hands appear only where the observation makes them visible (scoperta §6.1, partners
after the talon §5.2), the chiamata partner only once this seat may know it (§7.6), signals
only between partners (§5.3), card points only when `my_points` / `all_points` are set (§3.7).
The hand and match summaries also read the `HandRecord` / `Match`, which hold results only.

Text is plain (no markup): user-provided names are printed as they are. The words come from
the catalogue the bot uses too (`bot.i18n`, keys `cli_*`; cards, suits and actions from
`bot.i18n.words`), so the terminal and the bot name variants and cards alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine import actions as A
from bot.engine.match import HandRecord, Match
from bot.engine.observation import Observation
from bot.engine.state import Trick
from bot.i18n import LANGS as LANGS
from bot.i18n import check_lang, plain, variant_name
from bot.i18n.words import action_label, bid_label, card_text, signal_name, suit_name
from bot.i18n.words import card_name as card_name  # tests name cards through this module
from bot.i18n.words import is_french as _french


def _tr(lang: str, key: str, **kw: object) -> str:
    return plain(lang, key, **kw)


# ---------------------------------------------------------------------- cards


def _sorted_cards(cards: Sequence[int], obs: Observation) -> list[int]:
    deck = obs.rules.deck
    return sorted(cards, key=lambda c: (deck.suit[c], -deck.strength[c], c))


def _cards_text(cards: Sequence[int], obs: Observation, lang: str) -> str:
    return ", ".join(card_text(c, obs, lang) for c in _sorted_cards(cards, obs))


# ---------------------------------------------------------------------- actions


def legal_choices(obs: Observation, lang: str = "it") -> list[tuple[int, str]]:
    """This seat's legal actions in the order they are offered (numbered 1..k), with labels.
    Cards (to play or to call) are sorted by suit and strength; blind positions, bids and
    suits keep the engine's order."""
    legal = list(obs.legal)
    cards = _sorted_cards([a for a in legal if A.is_card(a)], obs)
    called = [a for a in legal if A.CALL_CARD <= a < A.SIGNAL]
    called = [A.CALL_CARD + c for c in _sorted_cards([a - A.CALL_CARD for a in called], obs)]
    others = [a for a in legal if not A.is_card(a) and not A.CALL_CARD <= a < A.SIGNAL]
    return [(a, action_label(a, obs, lang)) for a in cards + called + others]


def render_choices(obs: Observation, lang: str = "it", width: int = 100) -> str:
    """Numbered list of the legal choices; laid out in columns when there are many."""
    choices = legal_choices(obs, lang)
    items = [f"{i:>2}) {label}" for i, (_, label) in enumerate(choices, 1)]
    lines = [_tr(lang, "cli_choose")]
    if len(items) <= 12:
        lines += [f"  {item}" for item in items]
        return "\n".join(lines)
    col = max(len(item) for item in items) + 3
    per_row = max(1, width // col)
    for i in range(0, len(items), per_row):
        lines.append("  " + "".join(item.ljust(col) for item in items[i : i + per_row]).rstrip())
    return "\n".join(lines)


def prompt_text(k: int, lang: str = "it") -> str:
    """The input prompt for a choice among 1..k."""
    return _tr(lang, "cli_prompt", k=k)


# ---------------------------------------------------------------------- names


def default_names(n_players: int, seat: int, lang: str = "it") -> list[str]:
    """``Tu`` / ``You`` for `seat`, ``Giocatore k`` / ``Player k`` for the others."""
    return [
        _tr(lang, "cli_you") if s == seat else _tr(lang, "cli_player", n=s + 1)
        for s in range(n_players)
    ]


def _names(obs: Observation, names: Sequence[str] | None, lang: str) -> Sequence[str]:
    if names is None:
        return default_names(obs.rules.n_players, obs.seat, lang)
    if len(names) != obs.rules.n_players:
        raise ValueError(f"expected {obs.rules.n_players} names, got {len(names)}")
    return names


def _join(items: Sequence[str], lang: str) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {_tr(lang, 'and')} {items[-1]}"


def _ev(lang: str, key: str, you: bool, **kw: object) -> str:
    return _tr(lang, f"{key}_you" if you else key, **kw)


def _plays_text(
    plays: Sequence[tuple[int, int]], obs: Observation, names: Sequence[str], lang: str
) -> str:
    return ", ".join(f"{names[s]}: {card_text(c, obs, lang)}" for s, c in plays)


# ---------------------------------------------------------------------- the table


def render_hand_header(
    obs: Observation, names: Sequence[str] | None = None, lang: str = "it"
) -> str:
    nm = _names(obs, names, lang)
    return _tr(
        lang,
        "cli_hand_header",
        n=obs.hand_index + 1,
        variant=variant_name(check_lang(lang), obs.rules.variant),
        dealer=nm[obs.dealer],
    )


def _seat_lines(obs: Observation, nm: Sequence[str], lang: str) -> list[str]:
    rules = obs.rules
    n = rules.n_players
    width = max(len(x) for x in nm)
    lines = [_tr(lang, "cli_seats")]
    for s in range(n):
        tags: list[str] = []
        if rules.has_teams:
            tags.append(_tr(lang, "cli_team", x="ABC"[rules.side_of[s]]))
        if s == obs.dealer:
            tags.append(_tr(lang, "cli_dealer"))
        if rules.chiamata:
            if obs.caller < 0 and obs.phase == "auction" and obs.passed[s]:
                tags.append(_tr(lang, "cli_passed_tag"))
            if s == obs.caller:
                tags.append(_tr(lang, "cli_caller_tag"))
            if obs.partner >= 0 and s == obs.partner and obs.partner != obs.caller:
                if obs.partner_revealed or obs.phase == "over":
                    tags.append(_tr(lang, "cli_partner_tag"))
                elif s == obs.seat:
                    tags.append(_tr(lang, "cli_you_partner_tag"))
        size = obs.hand_sizes[s]
        cards = _tr(lang, "cli_cards", n=size)
        line = f"  {s + 1}. {nm[s].ljust(width)}  {cards}"
        if tags:
            line += f"  [{', '.join(tags)}]"
        if s == obs.current:
            line += "  " + _tr(lang, "cli_to_act" if s == obs.seat else "cli_to_act_other")
        lines.append(line)
    return lines


def _briscola_line(obs: Observation, nm: Sequence[str], lang: str) -> str:
    rules = obs.rules
    french = _french(obs)
    if rules.no_briscola:
        return _tr(lang, "cli_no_briscola")
    if rules.chiamata:
        if obs.carichi:
            return _tr(lang, "cli_no_briscola_carichi")
        if obs.briscola < 0:
            return _tr(lang, "cli_briscola_tbd")
        return _tr(lang, "cli_briscola", suit=suit_name(obs.briscola, lang, french=french))
    if obs.turned >= 0:
        line = _tr(
            lang,
            "cli_briscola_turned",
            suit=suit_name(obs.briscola, lang, french=french),
            card=card_text(obs.turned, obs, lang),
        )
        if obs.turned_to >= 0:
            line += _tr(lang, "cli_turned_drawn", who=nm[obs.turned_to])
        return line
    if obs.briscola >= 0:
        return _tr(lang, "cli_briscola", suit=suit_name(obs.briscola, lang, french=french))
    return _tr(lang, "cli_no_briscola")


def _talon_line(obs: Observation, lang: str) -> str | None:
    rules = obs.rules
    if rules.chiamata:
        return None
    if obs.talon_left == 0:
        return _tr(lang, "cli_talon_empty")
    key = "cli_talon" if obs.turned >= 0 and obs.turned_to < 0 else "cli_talon_plain"
    return _tr(lang, key, n=obs.talon_left)


def render_hand(obs: Observation, lang: str = "it") -> str:
    """The 'your hand' line: only this seat's own cards (none in coperta, §6.2)."""
    if obs.rules.blind:
        n = obs.hand_sizes[obs.seat]
        return _tr(lang, "cli_your_hand_blind", n=n) if n else _tr(lang, "cli_your_hand_empty")
    if not obs.hand:
        return _tr(lang, "cli_your_hand_empty")
    return _tr(lang, "cli_your_hand", cards=_cards_text(obs.hand, obs, lang))


def _bid_text(seat: int, action: int, obs: Observation, nm: Sequence[str], lang: str) -> str:
    return f"{nm[seat]}: {bid_label(action, obs, lang)}"


def render_auction(obs: Observation, names: Sequence[str] | None = None, lang: str = "it") -> str:
    """Chiamata auction state: bids so far, who passed, the highest bid, the caller, the called
    card, the target and the partner as far as this seat may know it. Empty for other variants."""
    rules = obs.rules
    if not rules.chiamata:
        return ""
    nm = _names(obs, names, lang)
    lines: list[str] = []
    if obs.caller < 0:
        if obs.bids:
            bids = " · ".join(_bid_text(s, a, obs, nm, lang) for s, a in obs.bids)
            lines.append(_tr(lang, "cli_auction", bids=bids))
        else:
            lines.append(_tr(lang, "cli_auction_none"))
        top = next(((s, a) for s, a in reversed(obs.bids) if a != A.PASS), None)
        if top is None:
            lines.append(_tr(lang, "cli_no_bid"))
        else:
            lines.append(
                _tr(lang, "cli_current_bid", bid=bid_label(top[1], obs, lang), who=nm[top[0]])
            )
        passed = [nm[s] for s in range(rules.n_players) if obs.passed[s]]
        if passed:
            lines.append(_tr(lang, "cli_passed", who=", ".join(passed)))
        return "\n".join(lines)
    if obs.carichi:
        lines.append(_tr(lang, "cli_carichi_line", who=nm[obs.caller]))
        return "\n".join(lines)
    lines.append(_tr(lang, "cli_caller", who=nm[obs.caller]))
    lines.append(_tr(lang, "cli_target", n=obs.target))
    if obs.called_card >= 0:
        suit = suit_name(rules.deck.suit[obs.called_card], lang, french=_french(obs))
        lines.append(_tr(lang, "cli_called", card=card_text(obs.called_card, obs, lang), suit=suit))
        lines.append(_partner_line(obs, nm, lang))
    return "\n".join(lines)


def _partner_line(obs: Observation, nm: Sequence[str], lang: str) -> str:
    known = obs.partner >= 0
    if not known:
        return _tr(lang, "cli_partner_unknown")
    if obs.partner == obs.caller:
        if obs.seat == obs.caller and not (obs.partner_revealed or obs.phase == "over"):
            return _tr(lang, "cli_alone_you")
        return _tr(lang, "cli_alone", who=nm[obs.caller])
    if obs.partner == obs.seat and not (obs.partner_revealed or obs.phase == "over"):
        return _tr(lang, "cli_partner_you")
    return _tr(lang, "cli_partner", who=nm[obs.partner])


def render_table(obs: Observation, names: Sequence[str] | None = None, lang: str = "it") -> str:
    """The whole table as this seat sees it."""
    nm = _names(obs, names, lang)
    rules = obs.rules
    lines = _seat_lines(obs, nm, lang)
    lines.append(_briscola_line(obs, nm, lang))
    talon = _talon_line(obs, lang)
    if talon is not None:
        lines.append(talon)
    if obs.talon_next >= 0:
        lines.append(_tr(lang, "cli_talon_next", card=card_text(obs.talon_next, obs, lang)))
    if rules.chiamata:
        lines.append(render_auction(obs, nm, lang))
    if obs.phase == "play":
        if obs.trick:
            lines.append(_tr(lang, "cli_table", plays=_plays_text(obs.trick, obs, nm, lang)))
        else:
            lines.append(_tr(lang, "cli_table_empty"))
            if obs.tricks:
                t = obs.tricks[-1]
                lines.append(
                    _tr(
                        lang,
                        "cli_last_trick",
                        plays=_plays_text(t.plays, obs, nm, lang),
                        winner=nm[t.winner],
                    )
                )
    if obs.signals:
        items = [
            _tr(lang, "cli_signal_item", who=nm[s], sig=signal_name(k, obs, lang))
            for s, k in obs.signals
        ]
        lines.append(_tr(lang, "cli_signals", items="; ".join(items)))
    for s in sorted(obs.visible_hands):
        cards = obs.visible_hands[s]
        shown = _cards_text(cards, obs, lang) if cards else "-"
        lines.append(_tr(lang, "cli_visible_hand", who=nm[s], cards=shown))
    if obs.all_points is not None:
        pts = " · ".join(f"{nm[s]}: {p}" for s, p in enumerate(obs.all_points))
        lines.append(_tr(lang, "cli_points_all", pts=pts))
    elif obs.my_points is not None:
        key = "cli_points_side" if obs.teammates else "cli_points_mine"
        lines.append(_tr(lang, key, n=obs.my_points))
    lines.append(render_hand(obs, lang))
    return "\n".join(lines)


# ---------------------------------------------------------------------- events


def _all_plays(obs: Observation) -> list[tuple[int, int]]:
    out = [p for t in obs.tricks for p in t.plays]
    out.extend(obs.trick)
    return out


def render_trick(
    trick: Trick,
    number: int,
    obs: Observation,
    names: Sequence[str] | None = None,
    lang: str = "it",
) -> str:
    """A completed trick and its winner. Its points only with ``show_points`` (§3.7)."""
    nm = _names(obs, names, lang)
    text = _ev(
        lang,
        "cli_ev_trick",
        trick.winner == obs.seat,
        n=number,
        plays=_plays_text(trick.plays, obs, nm, lang),
        who=nm[trick.winner],
    )
    if obs.all_points is not None:
        text += _tr(lang, "cli_ev_trick_pts", p=trick.points)
    return text


def describe_events(
    prev: Observation, obs: Observation, names: Sequence[str] | None = None, lang: str = "it"
) -> list[str]:
    """What this seat saw happen between two of its observations of the same hand: bids, the
    call, cards played, tricks taken, its own draws, the partner revealed, signals received."""
    if prev.seat != obs.seat or prev.hand_index != obs.hand_index:
        raise ValueError("both observations must be of the same seat and hand")
    nm = _names(obs, names, lang)
    me = obs.seat
    rules = obs.rules
    french = _french(obs)
    out: list[str] = []

    # Auction (§7.2-7.4, §7.8, §7.9).
    for seat, a in obs.bids[len(prev.bids) :]:
        you = seat == me
        if a == A.PASS:
            out.append(_ev(lang, "cli_ev_pass", you, who=nm[seat]))
        elif a == A.CARICHI:
            out.append(_ev(lang, "cli_ev_carichi", you, who=nm[seat]))
        else:
            out.append(_ev(lang, "cli_ev_call", you, who=nm[seat], bid=action_label(a, obs, lang)))
    if rules.chiamata and obs.phase == "over" and obs.caller < 0 and prev.phase != "over":
        out.append(_tr(lang, "cli_ev_all_pass"))
    if prev.caller < 0 <= obs.caller and not obs.carichi:
        out.append(_tr(lang, "cli_ev_auction_end", who=nm[obs.caller], n=obs.target))
    if prev.called_card < 0 <= obs.called_card:
        called = card_text(obs.called_card, obs, lang)
        suit = suit_name(rules.deck.suit[obs.called_card], lang, french=french)
        out.append(
            _ev(lang, "cli_ev_called", obs.caller == me, who=nm[obs.caller], card=called, suit=suit)
        )
        if obs.partner == me and not obs.partner_revealed:
            if me == obs.caller:
                out.append(_tr(lang, "cli_ev_you_alone", card=called))
            else:
                out.append(_tr(lang, "cli_ev_you_partner", card=called, who=nm[obs.caller]))

    # Signals sent or received (§5.3): the observation holds only this pair's.
    for seat, k in obs.signals[len(prev.signals) :]:
        out.append(
            _ev(lang, "cli_ev_signal", seat == me, who=nm[seat], sig=signal_name(k, obs, lang))
        )

    # Cards played, then completed tricks.
    before = _all_plays(prev)
    after = _all_plays(obs)
    for seat, card in after[len(before) :]:
        out.append(
            _ev(lang, "cli_ev_play", seat == me, who=nm[seat], card=card_text(card, obs, lang))
        )
        if card == obs.called_card and obs.partner_revealed and not prev.partner_revealed:
            ctext = card_text(card, obs, lang)
            if obs.partner == obs.caller:
                out.append(_tr(lang, "cli_ev_revealed_alone", card=ctext, who=nm[obs.caller]))
            elif obs.partner == me:
                out.append(_tr(lang, "cli_ev_revealed_you", card=ctext, caller=nm[obs.caller]))
            else:
                out.append(
                    _tr(
                        lang,
                        "cli_ev_revealed",
                        card=ctext,
                        caller=nm[obs.caller],
                        who=nm[obs.partner],
                    )
                )
    for i in range(len(prev.tricks), len(obs.tricks)):
        out.append(render_trick(obs.tricks[i], i + 1, obs, nm, lang))

    # Draws (§3.4): own cards only; the turned briscola is public.
    if len(obs.tricks) > len(prev.tricks) and not rules.chiamata:
        turned_drawn = prev.turned_to < 0 <= obs.turned_to
        if not rules.blind:
            for c in obs.hand:
                if c in prev.hand or c == obs.turned:
                    continue
                out.append(_tr(lang, "cli_ev_draw_you", card=card_text(c, obs, lang)))
        if turned_drawn:
            out.append(
                _ev(
                    lang,
                    "cli_ev_draw_turned",
                    obs.turned_to == me,
                    who=nm[obs.turned_to],
                    card=card_text(obs.turned, obs, lang),
                )
            )
        if prev.talon_left > 0:
            if obs.talon_left > 0:
                out.append(_tr(lang, "cli_ev_talon", n=obs.talon_left))
            else:
                out.append(_tr(lang, "cli_ev_talon_done"))
    for s in sorted(obs.visible_hands):
        if s not in prev.visible_hands and not rules.public_hands and obs.phase == "play":
            cards = _cards_text(obs.visible_hands[s], obs, lang)
            out.append(_tr(lang, "cli_ev_partner_hand", who=nm[s], cards=cards))
    return out


# ---------------------------------------------------------------------- results


def _side_seats(side: int, side_of: Sequence[int]) -> list[int]:
    return [s for s, x in enumerate(side_of) if x == side]


def _side_name(side: int, side_of: Sequence[int], nm: Sequence[str], lang: str) -> str:
    """A player's name, or ``squadra A (Tu e Giocatore 3)`` for a team."""
    seats = _side_seats(side, side_of)
    if len(seats) == 1:
        return nm[seats[0]]
    members = _join([nm[s] for s in seats], lang)
    return f"{_tr(lang, 'cli_team', x='ABC'[side])} ({members})"


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def render_hand_result(
    obs: Observation, record: HandRecord, names: Sequence[str] | None = None, lang: str = "it"
) -> str:
    """Summary of a finished hand: `obs` is this seat's observation of the finished hand
    (everything is public then), `record` what `Match.record` returned for it."""
    nm = _names(obs, names, lang)
    rules = obs.rules
    me = obs.seat
    lines = [_tr(lang, "cli_res_header", n=record.hand_index + 1)]
    if rules.chiamata:
        if record.redeal:
            lines.append(_tr(lang, "cli_res_redeal"))
            return "\n".join(lines)
        caller = obs.caller
        if obs.carichi:
            lines.append(_tr(lang, "cli_res_caller_carichi", who=nm[caller], target=obs.target))
        elif obs.partner == caller:
            lines.append(_tr(lang, "cli_res_caller_alone", who=nm[caller], target=obs.target))
        else:
            lines.append(
                _tr(
                    lang,
                    "cli_res_caller",
                    who=nm[caller],
                    partner=nm[obs.partner],
                    target=obs.target,
                )
            )
        a, b = record.side_points
        lines.append(_tr(lang, "cli_res_caller_pts", a=a, b=b))
        won = record.winning_sides == (0,)
        text = _tr(lang, "cli_res_caller_won" if won else "cli_res_caller_lost")
        if _cappotto(record, obs):
            text += _tr(lang, "cli_res_cappotto")
        lines.append(text)
        items = " · ".join(f"{nm[s]}: {_signed(d)}" for s, d in enumerate(record.deltas))
        lines.append(_tr(lang, "cli_res_deltas", items=items))
        return "\n".join(lines)
    side_of = rules.side_of
    pts = " · ".join(
        f"{_side_name(side, side_of, nm, lang)}: {p}" for side, p in enumerate(record.side_points)
    )
    lines.append(_tr(lang, "cli_res_points", pts=pts))
    if record.void:
        lines.append(_tr(lang, "cli_res_void2" if rules.n_sides == 2 else "cli_res_void3"))
        return "\n".join(lines)
    win = record.winning_sides[0]
    who = _side_name(win, side_of, nm, lang)
    if side_of[me] == win:
        lines.append(_tr(lang, "cli_res_win_you", who=who))
    else:
        lines.append(_tr(lang, "cli_res_lose_you", who=who))
    return "\n".join(lines)


def _cappotto(record: HandRecord, obs: Observation) -> bool:
    """Whether the chiamata hand ended in cappotto: a defender's score is doubled (§7.12)."""
    side = (obs.caller, obs.partner)
    return any(abs(d) == 2 for s, d in enumerate(record.deltas) if s not in side)


def render_match_status(match: Match, names: Sequence[str], lang: str = "it") -> str:
    """Running score of the match after a hand."""
    rules = match.rules
    side_of = rules.side_of
    if rules.chiamata:
        items = " · ".join(f"{names[s]}: {_signed(v)}" for s, v in enumerate(match.scores))
        if rules.hands:  # §7.13: a fixed number of counted hands, then one more while tied
            k, n = match.counted_hands(), rules.hands
            if k < n or (match.over and k == n):
                return _tr(lang, "cli_st_scores_hands", items=items, k=k, n=n)
            if match.over:
                return _tr(lang, "cli_st_scores_extra", items=items, k=k, n=n)
            return _tr(lang, "cli_st_scores_tied", items=items, n=n)
        if rules.target > 0:
            return _tr(lang, "cli_st_scores", items=items, n=rules.target)
        return _tr(lang, "cli_st_scores_open", items=items)
    fmt = rules.match
    if fmt.startswith("points"):
        items = " · ".join(
            f"{_side_name(i, side_of, names, lang)}: {p}" for i, p in enumerate(match.side_points)
        )
        return _tr(lang, "cli_st_points", items=items, n=int(fmt.removeprefix("points")))
    items = " · ".join(
        f"{_side_name(i, side_of, names, lang)}: {w}" for i, w in enumerate(match.hands_won)
    )
    if fmt == "fixed5":
        return _tr(lang, "cli_st_fixed", items=items, k=match.counted_hands())
    need = {"single": 1, "best3": 2, "best5": 3}[fmt]
    return _tr(lang, "cli_st_hands", items=items, n=need)


def render_match_result(match: Match, names: Sequence[str], seat: int, lang: str = "it") -> str:
    """The winner of a finished match and the ledger deltas (§10.1-10.2), seen by `seat`."""
    rules = match.rules
    if rules.chiamata:
        winners = [match.winner]
        who = names[match.winner]
    else:  # §4.3 fixed5: with three or more sides, tied sides are all winners
        winners = [s for side in match.winners for s in _side_seats(side, rules.side_of)]
        who = _join([_side_name(side, rules.side_of, names, lang) for side in match.winners], lang)
    if seat in winners:
        head = _tr(lang, "cli_match_over_you", who=who)
    elif winners:
        head = _tr(lang, "cli_match_over_lost", who=who)
    else:
        head = _tr(lang, "cli_match_over", who=who)
    deltas = match.ledger_deltas()
    items = " · ".join(f"{names[s]}: {_signed(d)}" for s, d in enumerate(deltas))
    return "\n".join(
        [render_match_status(match, names, lang), head, _tr(lang, "cli_ledger", items=items)]
    )
