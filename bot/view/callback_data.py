"""What a button carries: the callback data of each kind of tap, and its pattern.

Callback data (at most 64 bytes, `callback_data()` checks it):
    a:<table>:<hand>:<stamp>:<action>   a move; stamp = the turn's start for bids (0 for cards)
    l:<table>:<op>                      lobby: join, leave, bot, go, fill, cancel, settings, back
    l:<table>:bot:<level>               lobby: seat a computer player of that level
    s:<table>:<key>:<value>             a setting
    n:<table>:<hand>                    next hand
    o:<table>:<key>                     the settings panel's screen of one setting
    r:<table>                           a rematch of a finished match (same seats, settings)
    m:<table>:<hand>:<stamp>:<page>     points bids: the screen with every value (1) or not (0)
    v:<variant>                         the variant picked after a bare /new
    b:<table>                           take one's seat back from the computer ("Riprendo")
    c:<table>:<y|n>                     agree (or not) to cancel the running match
    T:<tournament>:<op>                 a tournament: new (team), bot, leave, go, cancel;
                                        again: a new one, once the group's last is over
    T:<tournament>:join:<team>          a tournament: take a free place in a team (0-based)
    T:<tournament>:counts:<y|n>         a tournament's matches with computers count (§10.5)
    L:s:<epoch>:<y|n>                   /season: start a new season after `epoch` (or keep it)
    L:u:<entry>:<y|n>                   /undo: undo the ledger entry (its hand_id), or keep it
    L:p:<epoch>:<version>:<debtor>:<creditor>:<amount>[:<done>]
                                        /beer: `amount` of a payment of the settlement shown
                                        at `version`, `done` of it paid before (0 if absent)
Each kind has its pattern (`CB_*`, next to `callback_data()`), which routes the taps (`TAPS` in
`handlers/callbacks.py` for a table's, `handlers/tournament.py` `T:`, `handlers/league.py` `L:`).
"""

from __future__ import annotations

import re

from bot.players import LEVELS

MAX_CALLBACK_BYTES = 64


def callback_data(*parts: object) -> str:
    data = ":".join(str(p) for p in parts)
    if len(data.encode()) > MAX_CALLBACK_BYTES:
        raise ValueError(f"callback data over {MAX_CALLBACK_BYTES} bytes: {data!r}")
    return data


# The patterns of the callback data, one per kind of tap (the handlers route taps with them:
# PTB's `CallbackQueryHandler(pattern=...)`, matched with `re.match`); data that matches none
# is forged or stale, and answered as such. `\Z`, not `$`: no trailing newline slips through.
_INT = r"(-?[0-9]{1,15})"  # a table id, a hand, a stamp, an action
_WORD = r"([^:]*)"  # a variant, a setting's key or value (the service checks them)


def _pattern(kind: str, *fields: str) -> re.Pattern[str]:
    return re.compile(":".join((kind, *fields)) + r"\Z")


CB_ACT = _pattern("a", _INT, _INT, _INT, _INT)  # table, hand, stamp, action
CB_NEXT = _pattern("n", _INT, _INT)  # table, hand
CB_BIDS = _pattern("m", _INT, _INT, _INT, _INT)  # table, hand, stamp, page
CB_RESUME = _pattern("b", _INT)  # table
CB_CANCEL_VOTE = _pattern("c", _INT, "([yn])")  # table, yes or no
CB_VARIANT = _pattern("v", _WORD)  # variant
CB_LOBBY_BOT = _pattern("l", _INT, "bot", "(" + "|".join(map(re.escape, LEVELS)) + ")")
CB_LOBBY = _pattern("l", _INT, "(join|leave|bot|settings|back|go|fill|cancel)")  # table, op
CB_SETTING = _pattern("s", _INT, _WORD, _WORD)  # table, key, value
CB_OPTION = _pattern("o", _INT, _WORD)  # table, key
CB_REMATCH = _pattern("r", _INT)  # table
CB_TOUR = _pattern("T", _INT, "(new|bot|leave|go|cancel|again)")  # tournament, op
CB_TOUR_JOIN = _pattern("T", _INT, "join", _INT)  # tournament, team
CB_TOUR_COUNTS = _pattern("T", _INT, "counts", "([yn])")  # tournament, yes or no
CB_SEASON = _pattern("L", "s", _INT, "([yn])")  # epoch, yes or no
CB_UNDO = _pattern("L", "u", _INT, "([yn])")  # ledger entry, yes or no
# epoch, version, payment (debtor, creditor, amount), and what was paid of it before
CB_PAID = re.compile(":".join(("L", "p", _INT, _INT, _INT, _INT, _INT)) + "(?::" + _INT + r")?\Z")


def season_data(epoch: int, yes: bool) -> str:
    return callback_data("L", "s", epoch, "y" if yes else "n")


def undo_data(hand_id: int, yes: bool) -> str:
    return callback_data("L", "u", hand_id, "y" if yes else "n")


def paid_data(epoch: int, version: int, payment: tuple[int, int, int], done: int = 0) -> str:
    debtor, creditor, amount = payment
    if done:
        return callback_data("L", "p", epoch, version, debtor, creditor, amount, done)
    return callback_data("L", "p", epoch, version, debtor, creditor, amount)
