"""What the parts of a table's shared life all build on: the grace periods of several
workers, and the moments a table shows (`Moments`: what each message showed last, noted by
`Registry` for a table another worker stored and by `Shown.render`). The parts themselves:
`registry.py` (`Registry`: the tables in memory and their locks, a table found or reloaded),
`shown.py` (`Shown`: what a table shows, `render`), `deadlines.py` (`Deadlines`: the deadlines
its state sets, `plan`, `arm`; what the timer does when it fires is in `waits.py`).
"""

from __future__ import annotations

from bot.table.table import PLAYING, Table

# Several workers on one database (`shared`): a computer to move is also a deadline, this
# many seconds on, renewed with every write; it fires only if the worker that was moving it
# died (another then takes the moves over).
COMPUTER_GRACE = 5.0
# ... and what a write must show is a deadline too, "shown", this many seconds on: the worker
# that wrote shows it at once, but if it died first (the next person's turn message, the
# group's table, a replaced hand message to delete, all owed), whichever worker fires the
# deadline renders the table as stored. What is already shown costs no call: the outbox
# compares what each message shows (noted in the database) before it sends anything.
SHOWN_GRACE = 3.0
ADMISSION_BACKLOG = 5.0  # seconds of calls queued for Telegram past which /new says "busy"


def _moment(table: Table) -> tuple[object, ...]:
    """What the group's table message must show at the group's pace when it changes: the
    table's state, a hand dealt, a hand's end, someone away. Between two moments (a bid,
    the call, a card, a trick taken) a change is routine: the group sees it a little later
    (`TelegramOutbox.routine_interval`, at most 10 s while moves go by: issue 50.4), with
    every move since."""
    hand = table.hand
    away = tuple(s.is_bot for s in table.seats)
    if hand is None or table.status != PLAYING:
        return (table.status, table.lang, away, table.move_no)  # every change matters
    return (table.status, table.lang, away, hand.hand_index, hand.is_terminal())


def _their_moment(table: Table, seat: int) -> tuple[object, ...]:
    """What a person's hand message must show as soon as it changes, though it is not their
    turn: the match's first hand dealt (their cards; a later deal waits for their turn,
    `Shown.render`), the hand's end, the table closed, their seat away or back, their
    language. A bid, the call, a card played they see on their next turn, a
    few moves later, in its new message (the group's table message and the Mini App show
    every move): the call, too, as the first trick comes round to every seat at once (issue
    49: the budget their own tapped message's edit takes comes from here)."""
    hand = table.hand
    s = table.seats[seat]
    phase = (hand.hand_index, hand.is_terminal()) if hand else None
    return (table.status, s.is_bot, s.lang or table.lang, phase)


def _seat_moment(table: Table, seat: int, paused: bool) -> tuple[object, ...]:
    """`_their_moment`, and whether the match waits for them (news too)."""
    return (*_their_moment(table, seat), paused)


def _their_turn(table: Table, seat: int) -> bool:
    """Whether `seat` is to act now (a bid, the suit, the called card, a card, a signal)."""
    hand = table.hand
    return (
        table.status == PLAYING
        and hand is not None
        and not hand.is_terminal()
        and hand.current == seat
        and not table.forced()  # their last card plays itself (`Table.forced`)
    )


class Moments:
    """The moments last shown (`Shown.render`): the group's table message (seat None), each
    hand message; a table another worker stored is taken as shown at its moment
    (`Registry`)."""

    def __init__(self) -> None:
        self.last: dict[tuple[int, int | None], tuple[object, ...]] = {}
