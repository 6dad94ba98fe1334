"""What a table shows (`Shown`): its group's table message and each person's hand message
(`render`, at the moments that matter to each, `core.Moments`), the Mini App's open pages, the
links to the bot and the Mini App.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.service.core import Moments, _moment, _seat_moment, _their_turn
from bot.service.registry import Registry
from bot.service.types import Live, Outbox, TableRef
from bot.table.table import CANCELLED, FINISHED, Table
from bot.view.render import (
    Rendered,
    away_private,
    frozen_private,
    private_message,
    table_message,
)


class Shown:
    """What a table shows: `render` and what it keeps (the moments shown, the screens of the
    points bids, the turns shown), the links."""

    def __init__(
        self, outbox: Outbox, registry: Registry, moments: Moments, bot_username: str
    ) -> None:
        self.out = outbox
        self.registry = registry  # a table's lock and the table as it is now (`show_hand`)
        self.moments = moments
        self.bot_username = bot_username
        # (table, seat) -> (version, turn, screen) while that seat looks at another screen of
        # the points bids than the first (§7.3; `bot.view.render.auction._bid_keyboard`)
        self._bid_pages: dict[tuple[int, int], tuple[int, int, int]] = {}
        # the hand messages this process last showed as their person's turn (`render`)
        self._turn_open: set[tuple[int, int]] = set()
        # The Mini App (`bot.webapp`): every render is published to its open pages, and the
        # group's table message links to it (`miniapp_link`)
        self.live: Live | None = None
        self.miniapp_short_name: str | None = None
        self.miniapp_param: Callable[[int], str] = lambda table_id: f"t{table_id}"

    def deep_link(self, table_id: int) -> str:
        return f"https://t.me/{self.bot_username}?start=t{table_id}"

    def lang_for(self, table: Table, user_id: int) -> str:
        """The language to answer a seated person's tap in: theirs, else the table's."""
        seat = table.seat_of(user_id)
        return (table.seats[seat].lang if seat is not None else None) or table.lang

    def miniapp_link(self, table_id: int) -> str | None:
        """The Mini App's direct link opening this table, when there is a Mini App."""
        if not self.miniapp_short_name:
            return None
        param = self.miniapp_param(table_id)  # `bot.webapp.auth.TableKeys`: id and key
        return f"https://t.me/{self.bot_username}/{self.miniapp_short_name}?startapp={param}"

    def replay_link(self, table_id: int, hand_index: int) -> str | None:
        """The Mini App's direct link opening the replay of a finished hand (issue 51.3):
        the table's start parameter after the hand's index, `h<hand>_t<table>_<key>`."""
        if not self.miniapp_short_name:
            return None
        param = f"h{hand_index}_{self.miniapp_param(table_id)}"
        return f"https://t.me/{self.bot_username}/{self.miniapp_short_name}?startapp={param}"

    def table_content(self, table: Table, lang: str) -> Rendered:
        """The group's table message (with the Mini App's button while the match is on)."""
        return table_message(table, lang, app_link=self.miniapp_link(table.table_id))

    def render(
        self, table: Table, resend: bool = False, urgent: bool = False, owed: bool = False
    ) -> None:
        """Show the table as it is now: the Mini App's open pages every change; the group's
        table message (a routine change at a slower pace, `_moment`); the hand message of the
        person to act (a new message on their turn) and the others' only at the moments that
        matter to them (`_their_moment`): Telegram's budget is about one call per move.
        `owed`: what another worker's write owed (`SHOWN_GRACE`), shown by one that may never
        have shown this table: the others' hand messages, whose moments it does not know,
        wait for their turn (or the hand's end) rather than being edited all at once."""
        lang = table.lang
        tid = table.table_id
        if self.live is not None:  # the open Mini App pages, each as its viewer sees it
            self.live.publish(table)
        ref = TableRef.of(table)  # what the outbox is told of the table (never the table)
        moment = _moment(table)
        routine = not (urgent or resend or owed) and self.moments.last.get((tid, None)) == moment
        self.moments.last[(tid, None)] = moment
        if table.status == CANCELLED and (table.closed or {}).get("drop"):
            self.out.drop_table(ref)  # another message says it was closed, and why
        else:
            content = self.table_content(table, lang)
            self.out.show_table(ref, content, urgent=urgent, routine=routine, moment=repr(moment))
        closed = table.status in (FINISHED, CANCELLED)
        if closed:  # no more bids: forget their screens
            for seat in range(len(table.seats)):
                self._bid_pages.pop((tid, seat), None)
        if table.hand is None:
            if closed:
                self._forget_moments(tid)
            return
        paused = table.paused()
        abandoned = table.status == CANCELLED and (table.closed or {}).get("key") == "abandoned"
        ended = table.hand.is_terminal() or closed
        # an all-pass redeal (§7.4) is over before any card: its replaced turn messages go
        # with the next played hand's (one deleteMessages per chat and hand played)
        redeal = table.hand.is_terminal() and not closed and table.hand.result().redeal
        sweep = False
        actions = table.hand.actions
        last_actor = actions[-1][0] if actions else -1
        for seat, s in enumerate(table.seats):
            if s.user_id is None:
                continue
            if not closed and self.live is not None and self.live.visible(tid, s.user_id):
                self._turn_open.discard((tid, seat))  # the page shows it, and takes taps
                continue  # their Mini App page is open and shows it: the chat stays quiet
            theirs = not s.is_bot and _their_turn(table, seat)
            now = _seat_moment(table, seat, paused)
            # their turn is over (they acted, the computer acted for them, the table closed)
            # while their chat still shows it: that message changes at once to say what
            # happened, without buttons (issue 49). Whoever acted last is checked too: with
            # other workers the turn may have been shown by another (the outbox edits only a
            # message that still shows a turn, `settle`).
            settle = not theirs and ((tid, seat) in self._turn_open or seat == last_actor)
            if theirs:
                self._turn_open.add((tid, seat))
            else:
                self._turn_open.discard((tid, seat))
            before = self.moments.last.get((tid, seat))
            moved = before != now
            if (
                moved
                and before is not None
                and before[:3] == now[:3]
                and before[4:] == now[4:]
                and not (theirs or urgent or resend or settle or ended or paused or s.is_bot)
                and not any(who == seat for who, _ in table.hand.actions)
            ):
                # a new hand dealt, and nothing else changed for them: someone not first to
                # act sees their new cards in their turn's message, a few moves on (the
                # group's table and the Mini App show the deal at once). One message and
                # call fewer a hand and person (issue 49); the match's first deal shows
                continue
            if (
                redeal
                and moved
                and before is not None
                and before[:3] == now[:3]
                and not (theirs or urgent or resend or settle or paused or s.is_bot)
            ):
                # an all-pass redeal (§7.4): the group's table says so; each one's chat
                # keeps their pass as it was recorded, and the next deal comes with their
                # turn, which says why (issue 49: five calls fewer a redeal)
                continue
            if not (theirs or urgent or resend or settle) and not moved:
                continue  # they see this change on their next turn
            if owed and not (theirs or ended or settle) and (tid, seat) not in self.moments.last:
                self.moments.last[(tid, seat)] = now
                continue
            sweep = sweep or (ended and moved and not redeal)
            self.moments.last[(tid, seat)] = now
            plang = s.lang or lang  # each person in their own language
            if table.status == CANCELLED:  # nobody's buttons work any more
                content = frozen_private(table, plang, "abandoned_pm" if abandoned else "cancelled")
            elif table.hand.is_terminal() or not s.is_bot:
                # the hand's summary reaches everyone, whoever played the seat
                page = self._bid_pages.get((tid, seat))
                shown = (table.move_no, table.turn_start())
                more = page[2] if page is not None and page[:2] == shown else 0
                content = private_message(table, seat, plang, bid_page=more)
            else:  # they left, or ran out of time twice: the computer plays
                content = away_private(table, seat, plang)
            # their turn (the actions they take one after another are one turn): the hand
            # comes as a new message, which notifies (an edit does not); so does the news
            # that the match waits for them (a key of its own), which its end as abandoned
            # then edits (its button goes: no dead button left once the table is closed)
            turn = f"{table.hand.hand_index}.{table.turn_start()}" if theirs else None
            if table.status == CANCELLED:  # the match ended without a result: news too
                turn = f"{table.hand.hand_index}.closed"
            elif s.is_bot and paused:
                turn = f"{table.hand.hand_index}.paused"
            # only a change of moment (or a resend) must show; a settled turn, only if the
            # chat still shows that turn
            only_turn = settle and not (moved or urgent or resend) and turn is None
            self.out.show_private(ref, s.user_id, content, turn=turn, settle=only_turn)
        if sweep:  # the hand is over: its replaced turn messages go, one call per chat
            self.out.sweep(ref)
        if closed:
            self._forget_moments(tid)

    def page_visibility(self, table_id: int, user_id: int, visible: bool) -> None:
        """A person's Mini App page of the table went to the background or closed: their
        private chat takes over at once (their turn as a new message, else their hand as it
        is now). `LiveHub.on_visibility`'s callback."""
        if not visible:
            self.registry.spawn(self.show_hand(table_id, user_id))

    async def show_hand(self, table_id: int, user_id: int) -> None:
        """Show a seated person their hand message as it is now, whatever it showed last
        (their private chat takes over from a Mini App page, /start after a deep link)."""
        async with self.registry.lock(table_id):
            table = await self.registry.current(table_id)
            seat = None if table is None else table.seat_of(user_id)
            if table is None or seat is None or table.status in (FINISHED, CANCELLED):
                return
            self.forget_moment(table_id, seat)
            self.render(table)

    def forget_moment(self, table_id: int, seat: int) -> None:
        """The seat's hand message is shown as it is at the next `render`, whatever it
        showed last."""
        self.moments.last.pop((table_id, seat), None)

    def set_bid_page(self, table_id: int, seat: int, shown: tuple[int, int, int] | None) -> None:
        """The screen of the points bids the seat looks at (version, turn, screen), or the
        first (None): `render` shows it."""
        if shown is None:
            self._bid_pages.pop((table_id, seat), None)
        else:
            self._bid_pages[(table_id, seat)] = shown

    def _forget_moments(self, table_id: int) -> None:
        for key in [k for k in self.moments.last if k[0] == table_id]:
            del self.moments.last[key]
        self._turn_open = {k for k in self._turn_open if k[0] != table_id}
