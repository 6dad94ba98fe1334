"""What the Mini App shows one viewer of a table: a snapshot, plain JSON, built from that
seat's observation (`HandState.observation(seat)`) or the spectator's (`SPECTATOR`) only, so
nothing the rules hide can reach the page: other hands, the talon's order, the socio before
the called card is played (§7.6; the socio alone is told), card points the settings hide
(§3.7).

The texts are the bot's own (`bot.view.render`, `bot.i18n`), turned into plain text: the
page inserts them as text, never as markup. A table with no group (`python -m bot play
--web`, `group=False`) has no group's ledger: its results say nothing of one.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

from bot.engine import SPECTATOR, Observation, observe
from bot.engine import actions as A
from bot.engine.cards import Deck
from bot.i18n import join_names, level_name, t, variant_name
from bot.i18n.words import action_label, bid_label, card_name, suit_name
from bot.table.table import CANCELLED, FINISHED, LOBBY, PLAYING, Table
from bot.view import render

_TAG = re.compile(r"<[^>]*>")

# The corner of a card: 40 cards by Italian number, 32 cards by rank index (A T K Q J 9 8 7)
_FIGURES = {
    ("it", False): {1: "A", 8: "F", 9: "C", 10: "R"},
    ("en", False): {1: "A", 8: "J", 9: "Kn", 10: "K"},
    ("it", True): {1: "A", 8: "J", 9: "Q", 10: "K"},
    ("en", True): {1: "A", 8: "J", 9: "Q", 10: "K"},
}
_RANKS32 = ("A", "10", "K", "Q", "J", "9", "8", "7")
# The figure drawn in the middle of a face card (the page draws each one)
_FACES = {False: {8: "jack", 9: "knight", 10: "king"}, True: {8: "jack", 9: "queen", 10: "king"}}
_FACES32 = {2: "king", 3: "queen", 4: "jack"}
TRICK_SHOWN_MS = 1200  # the page shows a completed trick this long before it goes


def plain(markup: str) -> str:
    """Telegram HTML as plain text: the tags dropped, the entities read."""
    return html.unescape(_TAG.sub("", markup))


class Cards:
    """A table's cards as the page draws them: id, corner, suit, name."""

    def __init__(self, deck: Deck, lang: str, french: bool) -> None:
        self.deck, self.lang, self.french = deck, lang, french
        self._figures = _FIGURES[(lang if lang == "en" else "it", french)]

    def corner(self, card: int) -> str:
        number = self.deck.number[card]
        if self.deck.size == 32:
            return _RANKS32[number]
        return self._figures.get(number, str(number))

    def face(self, card: int) -> str | None:
        number = self.deck.number[card]
        if self.deck.size == 32:
            return _FACES32.get(number)
        return _FACES[self.french].get(number)

    def __call__(self, card: int) -> dict[str, Any]:
        return {
            "id": card,
            "r": self.corner(card),
            "s": self.deck.suit[card],
            "f": self.face(card),
            "name": card_name(card, self.deck, self.lang, french=self.french),
        }

    def maybe(self, card: int) -> dict[str, Any] | None:
        return self(card) if card >= 0 else None

    def sorted(self, cards: tuple[int, ...]) -> list[dict[str, Any]]:
        deck = self.deck
        return [self(c) for c in sorted(cards, key=lambda c: (deck.suit[c], -deck.strength[c]))]


def viewer_seat(table: Table, user_id: int | None) -> int:
    """The seat `user_id` sees the table from: their own while they hold it, else the
    spectator's (-1). A seat the computer plays for them (they left) is theirs no more."""
    if user_id is None:
        return SPECTATOR
    seat = table.seat_of(user_id)
    if seat is None or table.seats[seat].away == "left":
        return SPECTATOR
    return seat


def snapshot(
    table: Table,
    seat: int,
    lang: str,
    table_param: Callable[[int], str] | None = None,
    *,
    group: bool = True,
) -> dict[str, Any]:
    """The table as `seat` (or SPECTATOR) sees it now, in `lang`. `table_param`: a table's
    start parameter (its link), for the rematch a finished match opened. `group`: the table
    is a group's, whose ledger its results speak of (module doc)."""
    names = [render.seat_name(table, s, lang) for s in range(len(table.seats))]
    out = _blank(table, seat, lang, names)
    hand = table.hand
    if table.status == LOBBY:
        out["message"] = plain(t(lang, "miniapp_lobby"))
        out["can_start"] = (
            seat >= 0
            and table.seats[seat].user_id == table.creator_id
            and len(table.seats) == table.n_players
        )
        return out
    if table.status == CANCELLED or hand is None:
        out["message"] = plain(render.closed_text(table, lang))
        return out
    obs = hand.observation(seat) if seat >= 0 else observe(hand, SPECTATOR)
    cards = Cards(obs.rules.deck, lang, out["french"])
    out["title"] = plain(
        t(lang, "miniapp_title", variant=out["title"], n=render.hand_label(table, lang))
    )
    _seats(out["seats"], obs)
    out.update(
        phase=str(obs.phase),
        hand_index=obs.hand_index,
        tricks_done=len(obs.tricks),
        current=obs.current,
        briscola=(
            {"suit": obs.briscola, "name": suit_name(obs.briscola, lang, french=out["french"])}
            if obs.briscola >= 0
            else None
        ),
        # the turned card lies on the table until someone draws it (§3.4): then it is in a
        # hand, and the table keeps only its suit
        turned=cards.maybe(obs.turned) if obs.turned_to < 0 else None,
        talon=obs.talon_left,
        talon_next=cards.maybe(obs.talon_next),
        trick=[{"seat": s, "card": cards(c)} for s, c in obs.trick],
        visible_hands=[
            {"seat": s, "cards": cards.sorted(v)} for s, v in sorted(obs.visible_hands.items())
        ],
    )
    if obs.tricks:
        last = obs.tricks[-1]
        out["last_trick"] = {
            "plays": [{"seat": s, "card": cards(c)} for s, c in last.plays],
            "winner": last.winner,
            # §3.7: a trick's points only where card points may be shown
            "points": last.points if obs.rules.show_points or hand.is_terminal() else None,
        }
    if obs.rules.chiamata:
        out["auction"] = _auction(obs, seat, names, lang, cards)
    if obs.all_points is not None:
        out["points"] = [{"label": names[s], "points": p} for s, p in enumerate(obs.all_points)]
    elif obs.my_points is not None and seat >= 0:
        key = "pm_side_points" if obs.teammates else "pm_my_points"
        out["points"] = [{"label": plain(t(lang, key, n=obs.my_points)), "points": obs.my_points}]
    out["standing"] = _standing(table, obs, names)
    if seat >= 0:
        _mine(out, table, obs, seat, lang, cards)
    if hand.is_terminal():
        _hand_over(out, table, seat, obs, names, lang, table_param, group)
    elif seat >= 0 and obs.current == seat:
        if obs.phase != "play":
            out["message"] = plain(render.auction_prompt(obs, lang))
            _bid_hint(out, obs, lang)
        else:
            out["message"] = plain(t(lang, "pm_your_lead" if not obs.trick else "pm_your_turn"))
    elif obs.current >= 0:
        out["message"] = plain(t(lang, "pm_turn_of", who=names[obs.current]))
    return out


def _blank(table: Table, seat: int, lang: str, names: list[str]) -> dict[str, Any]:
    """Every key a snapshot has, as a table with no hand shows it (the lobby, a closed table)."""
    return {
        "table_id": table.table_id,
        "move": table.move_no,
        "status": table.status,
        "lang": lang,
        "title": variant_name(lang, table.options.variant),
        "me": seat,
        "french": table.options.deck == "french",
        "seats": [
            {
                "name": names[s],
                "short": _short_name(table, s),
                "level": _level(table, s, lang),
                "bot": table.seats[s].is_bot,
                "away": table.seats[s].is_bot and table.seats[s].user_id is not None,
                "turn": False,
                "dealer": False,
                "cards": 0,
                "team": None,
                "caller": False,
                "socio": False,
                "passed": False,
                "you": s == seat,
            }
            for s in range(len(table.seats))
        ],
        "n_players": table.n_players,
        "phase": None,
        "hand_index": 0,
        "ply": table.ply(),
        "tricks_done": 0,
        "trick_ms": TRICK_SHOWN_MS,
        "card_stamp": 0,
        "current": -1,
        "briscola": None,
        "turned": None,
        "talon": 0,
        "talon_next": None,
        "trick": [],
        "last_trick": None,
        "hand": [],
        "blind": 0,
        "playable": [],
        "choices": [],
        "visible_hands": [],
        "auction": None,
        "points": None,
        "standing": None,
        "outcome": None,
        "result": [],
        "can_next": False,
        "can_start": False,
        "can_rematch": False,
        "rematch": None,
        "message": "",
        "bid_hint": None,
    }


def _hand_over(
    out: dict[str, Any],
    table: Table,
    seat: int,
    obs: Observation,
    names: list[str],
    lang: str,
    table_param: Callable[[int], str] | None,
    group: bool,
) -> None:
    """A hand's end: its result, the outcome, the next hand's and the rematch's buttons."""
    if seat >= 0:
        lines = render.pm_summary(table, seat, obs, names, lang, ledger=group)
    elif table.match is not None and table.match.records:
        lines = render.hand_result_lines(table, table.match.records[-1], lang)
        if table.status == FINISHED:
            lines.append(render.match_over_line(table, lang))
    else:
        lines = []
    out["result"] = [plain(line) for line in lines]
    out["outcome"] = outcome(table, seat, names, lang, group)
    out["can_next"] = (
        seat >= 0 and table.status == PLAYING and table.match is not None and not table.match.over
    )
    out["message"] = plain(t(lang, "miniapp_hand_over"))
    if table.status == FINISHED:
        out["can_rematch"] = (
            table.rematch is None
            and table.tournament is None
            and (seat >= 0 or table.creator_id in [s.user_id for s in table.seats])
        )
        if table.rematch is not None and table_param is not None:
            out["rematch"] = {"table_id": table.rematch, "param": table_param(table.rematch)}


def _short_name(table: Table, seat: int) -> str:
    """A seat's name without a computer's level ("🤖 Ada"), for where room is short."""
    s = table.seats[seat]
    if s.user_id is None and s.level is not None and not s.name.startswith("🤖"):
        return f"🤖 {s.name}"
    return s.name


def _level(table: Table, seat: int, lang: str) -> str | None:
    """A computer's level in `lang` ("difficile"), which its `short` name leaves out (the
    page puts it on a line of its own); None for a person, or a name that holds it."""
    s = table.seats[seat]
    if s.user_id is None and s.level is not None and not s.name.startswith("🤖"):
        return level_name(lang, s.level)
    return None


def _bid_hint(out: dict[str, Any], obs: Observation, lang: str) -> None:
    """Chiamata's overbid after the Two (§7.3): what a bid means, said of the bid the page's
    big button shows. `bid_hint` keeps `{bid}` (the button's words, "Due a 70") and `{n}`
    (its points) for the page to fill in as the bid changes; the message says it of the
    lowest bid, the one the button shows first."""
    points = sorted(a - A.BID_POINTS for a in obs.legal if A.BID_POINTS <= a < A.PASS)
    if obs.phase != "auction" or obs.rules.auction == "points" or not points:
        return
    key = "miniapp_overbid" if A.PASS in obs.legal else "miniapp_overbid_no_pass"
    hint = plain(t(lang, key, bid="{bid}", n="{n}"))
    out["bid_hint"] = hint
    low = action_label(A.BID_POINTS + points[0], obs, lang)
    out["message"] = hint.replace("{bid}", low).replace("{n}", str(points[0]))


def _standing(table: Table, obs: Observation, names: list[str]) -> dict[str, Any] | None:
    """The match so far, as a table: one row per side (chiamata: per seat), its match score
    and, where the rules show them (§3.7), this hand's card points."""
    m = table.match
    if m is None:
        return None
    rules = table.options.rules()
    hand_points: list[int | None]
    if rules.chiamata:
        # §7.13: a target, or a fixed number of hands (then the target does not apply)
        kind, target = "score", (None if rules.hands else rules.target or None)
        groups = [[s] for s in range(rules.n_players)]
        values = list(m.scores)
    else:
        fmt = rules.match
        if fmt.startswith("points"):
            kind, values, target = "points", list(m.side_points), int(fmt[len("points") :])
        else:
            kind, values = "hands", list(m.hands_won)
            target = {"single": 1, "best3": 2, "best5": 3}.get(fmt)
        groups = [
            [s for s, x in enumerate(rules.side_of) if x == side] for side in range(rules.n_sides)
        ]
    if obs.all_points is not None:
        all_points = obs.all_points
        hand_points = [sum(all_points[s] for s in g) for g in groups]
    else:
        hand_points = [None] * len(groups)
        if obs.my_points is not None and obs.seat >= 0:
            mine = next(i for i, g in enumerate(groups) if obs.seat in g)
            hand_points[mine] = obs.my_points
    return {
        "kind": kind,  # "hands" won, card "points" summed, chiamata "score" (§7.12)
        "format": rules.match if not rules.chiamata else "target",
        "target": target,
        "hands": m.counted_hands(),
        "fixed_hands": rules.hands or None,  # §7.13: the hands to play, when fixed
        "rows": [
            {
                "label": " & ".join(names[s] for s in g),
                "seats": g,
                "value": values[i],
                "hand_points": hand_points[i],
            }
            for i, g in enumerate(groups)
        ],
    }


def outcome(table: Table, seat: int, names: list[str], lang: str, group: bool) -> dict[str, Any]:
    """The end of a hand as a small table: per player the role, the card points and what
    the hand gave them (chiamata: §7.12's score; else a hand won, or the points counted);
    the headline, and at the match's end the winner and the group's ledger (none without a
    group)."""
    hand = table.hand
    assert hand is not None
    res = hand.result()
    rules = table.options.rules()
    m = table.match
    out: dict[str, Any] = {
        "headline": "",
        "void": res.void,
        "redeal": res.redeal,
        "rows": [],
        "caller": "",
        "cappotto": False,
        "ledger": "",
        "match_over": "",
    }
    if res.redeal:
        out["headline"] = plain(t(lang, "pm_redeal" if seat >= 0 else "hand_redeal"))
        return out
    if rules.chiamata:
        side_of = [0 if s in (hand.caller, hand.partner) else 1 for s in range(rules.n_players)]
    else:
        side_of = list(rules.side_of)
    if res.void:
        out["headline"] = plain(t(lang, "pm_void"))
    elif seat >= 0:
        out["headline"] = plain(
            t(lang, "pm_won" if side_of[seat] in res.winning_sides else "pm_lost")
        )
    else:
        side = res.winning_sides[0]
        winners = [names[s] for s, x in enumerate(side_of) if x == side]
        key = "side_won_many" if len(winners) > 1 else "side_won"
        out["headline"] = plain(
            t(lang, key, who=join_names(lang, winners), points=res.side_points[side])
        )
    points_kind = not rules.chiamata and rules.match.startswith("points")
    for s in range(rules.n_players):
        won = not res.void and side_of[s] in res.winning_sides
        if rules.chiamata:
            role = (
                "caller"
                if s == hand.caller
                else ("socio" if s == hand.partner and not hand.carichi else "other")
            )
            delta = res.deltas[s]
        else:
            role = f"team:{'ABC'[side_of[s]]}" if rules.has_teams else ""
            if res.void:
                delta = 0
            elif points_kind:
                delta = res.side_points[side_of[s]]
            else:
                delta = int(won)
        out["rows"].append(
            {
                "seat": s,
                "name": names[s],
                "role": role,
                "points": res.card_points[s],
                "side_points": res.side_points[side_of[s]],
                "delta": delta,
                "won": won,
            }
        )
    if rules.chiamata and not res.void:
        key = "caller_won" if res.winning_sides == (0,) else "caller_lost"
        out["caller"] = plain(
            t(lang, key, who=names[hand.caller], points=res.side_points[0], target=hand.target)
        )
        out["cappotto"] = res.cappotto
    if seat >= 0 and rules.chiamata and group:
        out["ledger"] = plain(render.pm_ledger(table, res.deltas, seat, lang))
    if m is not None and m.over:
        out["match_over"] = plain(render.match_over_line(table, lang))
        if seat >= 0 and not rules.chiamata and group:
            out["ledger"] = plain(render.pm_ledger(table, m.ledger_deltas(), seat, lang))
    return out


def _seats(seats: list[dict[str, Any]], obs: Observation) -> None:
    rules = obs.rules
    for s, seat in enumerate(seats):
        seat["turn"] = obs.current == s
        seat["dealer"] = obs.dealer == s
        seat["cards"] = obs.hand_sizes[s]
        if rules.has_teams:
            seat["team"] = "ABC"[rules.side_of[s]]
        if rules.chiamata:
            seat["caller"] = obs.caller == s
            seat["socio"] = obs.partner_revealed and obs.partner == s and s != obs.caller
            seat["passed"] = obs.phase == "auction" and obs.passed[s]


def _auction(
    obs: Observation, seat: int, names: list[str], lang: str, cards: Cards
) -> dict[str, Any]:
    """The whole auction as everybody heard it; the socio only once the called card is
    out, except to the socio themself (§7.6)."""
    revealed = obs.partner_revealed
    return {
        "bids": [{"seat": s, "label": bid_label(a, obs, lang)} for s, a in obs.bids],
        "caller": obs.caller,
        "called": cards.maybe(obs.called_card),
        "target": obs.target,
        "carichi": obs.carichi,
        "socio": obs.partner if revealed else -1,
        "alone": revealed and obs.partner == obs.caller and not obs.carichi,
        "you_are_socio": seat >= 0 and obs.partner == seat and seat != obs.caller,
    }


def _kind(action: int) -> str:
    if A.BLIND <= action < A.CALL_RANK:
        return "blind"
    if A.BID_POINTS <= action < A.PASS:
        return "points"
    if action == A.PASS:
        return "pass"
    if action == A.CARICHI:
        return "carichi"
    if A.NAME_SUIT <= action < A.CALL_CARD:
        return "suit"
    if A.CALL_CARD <= action < A.SIGNAL:
        return "call"
    if action >= A.SIGNAL:
        return "signal"
    return "bid"


def _mine(
    out: dict[str, Any], table: Table, obs: Observation, seat: int, lang: str, cards: Cards
) -> None:
    """The viewer's own cards and, on their turn, what they may do: the cards to play, and
    every other action as a choice carrying the stamp a DM button would carry."""
    out["hand"] = cards.sorted(obs.hand)
    if obs.rules.blind:
        out["blind"] = obs.hand_sizes[seat]
    if obs.current != seat or table.seats[seat].is_bot:
        return
    out["playable"] = [a for a in obs.legal if A.is_card(a)]
    stamp = table.turn_start()
    choices = []
    for a in obs.legal:
        if A.is_card(a):
            continue
        kind = _kind(a)
        label = action_label(a, obs, lang)
        short = label  # what a small button shows (the label is its accessible name)
        if kind == "suit":
            label = render.bid_text(a, obs, lang)
            short = suit_name(a - A.NAME_SUIT, lang, french=out["french"]).capitalize()
        elif kind == "bid":
            short = bid_label(a, obs, lang)
        choices.append(
            {
                "action": a,
                "label": label,
                "short": short,
                "kind": kind,
                "stamp": table.plays_by(seat) if kind == "blind" else stamp,
                "card": cards(a - A.CALL_CARD) if kind == "call" else None,
                "suit": a - A.NAME_SUIT if kind == "suit" else None,
                "value": a - A.BID_POINTS if kind == "points" else None,
            }
        )
    out["choices"] = choices
