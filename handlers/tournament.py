"""/torneo (and /tournament) and the tournament message's buttons (RULES §11): parse, call the
service (`bot/service/tournament.py`), send.

    /torneo                        a new tournament (its registration message), or, while one
                                   runs, the standings and the next match; once the last
                                   one is over, its final standings and a button that opens
                                   a new one
    /torneo due | briscolone | scoperta | coperta
                                   a new tournament of single players in that 2-player
                                   variant (singoli | singles: due); quattro | coppie: pairs
    /torneo nuova | new            register a new team (you are its first member)
    /torneo entra N | join N       take the free place in team N (without N: register, as
                                   /torneo nuova)
    /torneo esci | leave           leave your team (between matches: §11.3)
    /torneo bot [N] [livello]      the organiser adds a computer player (to team N)
    /torneo punti 7 5 4 3 2 0      the match points for 5-0, 4-1, 3-2, 2-3, 1-4, 0-5 (§11.2)
    /torneo conti sì | no          the organiser: matches with a computer at the table go in
                                   the group's ledger, without the computers (§10.5); also
                                   `counts yes`, `conti=sì`, `counts=no`
    /torneo avvia | start          the organiser starts it
    /torneo annulla | cancel       the organiser (or an admin) cancels it
"""

from __future__ import annotations

import re

from telegram import Chat, Update, User
from telegram.ext import BaseHandler, CommandHandler

from bot.i18n import parse_level, t
from bot.players import DEFAULT_LEVEL
from bot.service import Reply
from bot.table.tournament import PAIRS_VARIANT, SINGLES_VARIANTS
from bot.telegram.context import BotContext
from bot.view import callback_data as cb
from handlers.common import admin_check, group_only, person, send
from handlers.taps import Tap, TapRoute, chat_tap, tap_handlers

COMMANDS = ("torneo", "tournament")
NEW = {"nuova", "new", "squadra", "team"}
JOIN = {"entra", "join"}
LEAVE = {"esci", "leave"}
BOT = {"bot", "computer"}
POINTS = {"punti", "points"}
COUNTS = {"conti", "counts", "conta"}
START = {"avvia", "start", "go", "inizia"}
CANCEL = {"annulla", "cancel"}
# /torneo due: the variant of a new tournament (a 2-player one: single players)
VARIANT_WORDS = {
    **{v: v for v in SINGLES_VARIANTS},
    "singoli": "due",
    "singles": "due",
    PAIRS_VARIANT: PAIRS_VARIANT,
    "coppie": PAIRS_VARIANT,
    "pairs": PAIRS_VARIANT,
}


def _team(word: str) -> int | None:
    """A team's number as people write it (1, "#2"), 0-based; None if it is not one."""
    word = word.lstrip("#")
    if not word.isdigit() or len(word) > 3 or int(word) < 1:
        return None
    return int(word) - 1


@group_only
async def cmd_tournament(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    tours, who = context.service.tournaments, person(user)
    args = [a.lower() for a in (context.args or [])]
    if args and "=" in args[0]:  # `counts=yes`, as /settings takes it
        key, _, value = args[0].partition("=")
        args = [key, *([value] if value else []), *args[1:]]
    lang = await context.service.langs.chat(chat.id)
    usage = Reply(t(lang, "err_tour_usage"))
    if not args:
        await send(update, await tours.tournament(chat.id, who, True))
        return
    word, rest = args[0], args[1:]
    admin = admin_check(context, chat, user)
    reply = usage
    if word in VARIANT_WORDS and not rest:
        reply = await tours.tournament(chat.id, who, True, VARIANT_WORDS[word])
    elif (word in NEW or word in JOIN) and not rest:
        reply = await tours.tour_new_team(chat.id, who)
    elif word in JOIN and len(rest) == 1 and (team := _team(rest[0])) is not None:
        reply = await tours.tour_join(chat.id, who, team)
    elif word in LEAVE and not rest:
        reply = await tours.tour_leave(chat.id, who)
    elif word in BOT and len(rest) <= 2:
        reply = await _add_bot(context, chat, user, rest) or usage
    elif word in POINTS:
        numbers = [n for a in rest for n in re.split(r"[,;/]", a) if n]
        if len(numbers) == 6 and all(n.isdigit() and len(n) <= 2 for n in numbers):
            reply = await tours.tour_points(chat.id, who, [int(n) for n in numbers], is_admin=admin)
        else:
            reply = Reply(t(lang, "err_tour_points"))
    elif word in COUNTS:
        if len(rest) == 1:
            reply = await tours.tour_counts(chat.id, who, rest[0], is_admin=admin)
        else:
            reply = Reply(t(lang, "err_tour_counts"))
    elif word in START and not rest:
        reply = await tours.tour_start(chat.id, who, is_admin=admin)
    elif word in CANCEL and not rest:
        reply = await tours.tour_cancel(chat.id, who, is_admin=admin)
    await send(update, reply)


async def _add_bot(context: BotContext, chat: Chat, user: User, rest: list[str]) -> Reply | None:
    """/torneo bot [N] [level], in either order; None for words that are neither."""
    team, level = None, DEFAULT_LEVEL
    for word in rest:
        if (n := _team(word)) is not None and team is None:
            team = n
        elif (found := parse_level(word)) is not None:
            level = found
        else:
            return None
    return await context.service.tournaments.tour_add_bot(
        chat.id, person(user), is_admin=admin_check(context, chat, user), team=team, level=level
    )


# ------------------------------------------------------------------ the buttons (`T:` data)


@chat_tap
async def tour_tap(tap: Tap, chat: Chat) -> Reply:
    """A tap on the tournament message: new (team), bot, leave, go, cancel; or on a finished
    one's standings (/torneo): again, a new tournament."""
    tours, who = tap.context.service.tournaments, tap.who
    tid, op = int(tap.fields[0]), tap.fields[1]
    if op == "again":
        return await tours.tour_again(chat.id, who, tap.message_id)
    if op in ("new", "leave"):
        anyone = tours.tour_new_team if op == "new" else tours.tour_leave
        return await anyone(chat.id, who, tid)
    admin_only = {"bot": tours.tour_add_bot, "go": tours.tour_start}.get(op, tours.tour_cancel)
    return await admin_only(chat.id, who, is_admin=tap.admin(chat), tournament_id=tid)


@chat_tap
async def tour_join_tap(tap: Tap, chat: Chat) -> Reply:
    """A tap on "Entra nella squadra N"."""
    tid, team = int(tap.fields[0]), int(tap.fields[1])
    return await tap.context.service.tournaments.tour_join(chat.id, tap.who, team, tid)


@chat_tap
async def tour_counts_tap(tap: Tap, chat: Chat) -> Reply:
    """A tap on "Conta le partite coi computer" (or its opposite): §10.5, the organiser's."""
    tid, value = int(tap.fields[0]), tap.fields[1]
    return await tap.context.service.tournaments.tour_counts(
        chat.id, tap.who, value, is_admin=tap.admin(chat), tournament_id=tid
    )


TAPS: tuple[TapRoute, ...] = (
    (cb.CB_TOUR, tour_tap),
    (cb.CB_TOUR_JOIN, tour_join_tap),
    (cb.CB_TOUR_COUNTS, tour_counts_tap),
)


def handlers() -> list[BaseHandler[Update, BotContext, None]]:
    """/torneo and /tournament (registered before the catch-all of unknown commands), then the
    taps."""
    return [CommandHandler(list(COMMANDS), cmd_tournament), *tap_handlers(TAPS)]
