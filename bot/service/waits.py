"""What the table's timer does when it fires (`timeout`): the group mentions a slow person,
they are reminded privately, the computer plays a move whose time ran out, the next hand
starts by itself, an idle lobby closes, a request to cancel lapses. The deadlines are set by
`Deadlines.plan` with every write and armed by `Deadlines.arm` (`deadlines.py`); their lengths
are in `bot.table.deadlines`.
"""

from __future__ import annotations

import asyncio
import logging

from bot.i18n import t, variant_name
from bot.players import DEFAULT_LEVEL
from bot.players.thinker import Job
from bot.service.closing import Closing
from bot.service.core import COMPUTER_GRACE
from bot.service.deadlines import Deadlines
from bot.service.play import Play
from bot.service.registry import Registry
from bot.service.shown import Shown
from bot.service.types import Outbox
from bot.table.deadlines import Notice
from bot.table.table import LOBBY, PLAYING, Table, TableError
from bot.view.render import Rendered, group_title, mention
from bot.view.render.hand import ABANDON_MINUTES
from storage import Database

log = logging.getLogger(__name__)

# Seconds a claimed deadline belongs to the worker that claimed it (`shared`): it fires it and
# stores the next one well within that; if it dies, another claims it once the lease is over.
DEADLINE_LEASE = 10.0


class Waits:
    """Deadlines that fire."""

    def __init__(
        self,
        db: Database,
        outbox: Outbox,
        registry: Registry,
        shown: Shown,
        deadlines: Deadlines,
        play: Play,
        closing: Closing,
    ) -> None:
        self.db = db
        self.out = outbox
        self.registry = registry
        self.shown = shown
        self.deadlines = deadlines
        self.play = play
        self.closing = closing

    async def timeout(self, table_id: int, token: str) -> None:
        """The table's timer fired (`bot.table.deadlines`): do what is due, then arm the next
        deadline. A timer whose token is no longer the table's does nothing. With other
        workers (`shared`) the token says nothing: the worker that claims the deadline in
        the database fires it, the others do nothing (`TableStore.claim_deadline`)."""
        now = self.deadlines.timing.now()
        if self.registry.shared and not await self.db.tables.claim_deadline(
            table_id, now, DEADLINE_LEASE
        ):
            return
        async with self.registry.lock(table_id):
            table = await self.registry.current(table_id)
            if table is None:
                return
            if not self.registry.shared and not self.deadlines.take_timer(table_id, token):
                return
            version = table.move_no
            due = table.pending.due(self.deadlines.timing.now())
            if "shown" in due:  # owed by a write (`SHOWN_GRACE`): the render below is it
                table.pending.at.pop("shown")
                due.remove("shown")
            if "timeout" in due:  # the turn is over: its mention and reminder are moot
                table.pending.at.pop("mention", None)
                table.pending.at.pop("remind", None)
            kind = due[0] if due else None
            try:
                if kind == "expire":
                    await self._expire_lobby(table)
                elif kind == "cancel":
                    self.deadlines.end_request(table, "cancel_lapsed")
                    await self.deadlines.store_pending(table)
                elif kind == "timeout":
                    await self._time_out(table)
                elif kind == "next":
                    await self._auto_next(table)
                elif kind in ("mention", "remind"):
                    await self._nudge(table, kind)
                elif kind == "computer":
                    await self._take_over(table)
                elif kind == "abandon":
                    await self._abandon(table)
            except Exception:
                log.exception("table %s: the %s deadline failed", table_id, kind)
                if kind is not None:
                    table.pending.at.pop(kind, None)
            current = (
                await self.registry.current(table_id)
                if self.registry.shared
                else self.registry.by_id.get(table_id)
            )
            if current is None:
                return
            if self.registry.shared:
                # the claim moved the stored deadline on: store the real one (unless a write
                # since did), and show what a worker that died before showing it left
                if current.move_no == version:
                    if current.pending.at.get("shown", now) <= now:  # read again as stored
                        current.pending.at.pop("shown", None)
                    await self.deadlines.store_pending(current)
                self.shown.render(current, owed=True)
                self.deadlines.arm(current)
            elif not self.deadlines.timer_armed(table_id):
                self.deadlines.arm(current)

    async def _take_over(self, table: Table) -> None:
        """A computer's move is overdue (`shared`): the worker moving it died; this one takes
        the computer players' moves over."""
        table.pending.at["computer"] = self.deadlines.timing.now() + COMPUTER_GRACE
        if await self.deadlines.store_pending(table):
            self.play.settle(table)

    async def poll_deadlines(self, every: float) -> None:
        """With other workers: every `every` seconds, fire the deadlines that are due in
        the database, whichever worker set them (one of them may be gone)."""
        while True:
            await asyncio.sleep(every)
            try:
                due = await self.db.tables.due_tables(self.deadlines.timing.now())
            except Exception as exc:  # the database is away for a moment: next round
                log.warning("polling the deadlines failed: %s", exc)
                continue
            for table_id in due:
                self.registry.spawn(self.timeout(table_id, ""))

    async def _nudge(self, table: Table, kind: str) -> None:
        """A slow person: the group mentions them (once per turn), or they are reminded
        privately that the turn timer is about to run out. Stored before it is sent: a
        worker that dies in between loses the notice rather than sending it twice. Each
        notice is deleted once the turn is over (`Pending.notices`)."""
        table.pending.at.pop(kind, None)
        notice: tuple[int, str] | None = None
        key = self.deadlines.turn_key(table)
        if key is not None and key == table.pending.turn:
            s = table.seats[key[2]]
            if s.user_id is not None and not s.is_bot:
                left = table.pending.at.get("timeout")
                seconds = max(1, round(left - self.deadlines.timing.now())) if left else 0
                if kind == "mention":
                    who = mention(s.user_id, s.name)
                    text = (
                        t(table.lang, "turn_mention_timer", who_html=who, seconds=seconds)
                        if seconds
                        else t(table.lang, "turn_mention", who_html=who)
                    )
                    notice = (table.chat_id, text)
                elif seconds:
                    lang = s.lang or table.lang
                    text = t(
                        lang,
                        "turn_reminder",
                        group_html=group_title(table),
                        seconds=seconds,
                    )
                    notice = (s.user_id, text)
        if await self.deadlines.store_pending(table) and notice is not None and key is not None:
            self.registry.spawn(self._notice(table.table_id, *notice, key))

    async def _notice(self, table_id: int, chat_id: int, text: str, turn: list[int] | None) -> None:
        """Send a notice about the table (it notifies), and note it with the table so that
        it is deleted once it is no longer true: about `turn` (a turn key) until that turn is
        over, or (None) until the hand is."""
        message_id = await self.out.post(chat_id, Rendered(text, []))
        if message_id is None:
            return
        async with self.registry.lock(table_id):
            table = await self.registry.current(table_id)
            hand = table.hand if table is not None else None
            if table is None or hand is None or hand.is_terminal():
                self.out.delete_soon(chat_id, [message_id])  # over already
                return
            notice = Notice(chat_id, message_id, hand.hand_index, tuple(turn) if turn else None)
            if notice.moot(table.pending.turn, hand.hand_index):
                self.out.delete_soon(chat_id, [message_id])
                return
            table.pending.notices.append(notice)
            # another worker moved it on meanwhile
            if not await self.deadlines.store_pending(table):
                self.out.delete_soon(chat_id, [message_id])

    async def _time_out(self, table: Table) -> None:
        """The turn timer ran out: the computer (`normal`) plays this move for the person,
        and the group is told: the turn's mention becomes that notice (it stays until the
        hand is over). After TIMEOUTS_TO_AWAY in a row the computer keeps the seat."""
        table.pending.at.pop("timeout", None)
        key = self.deadlines.turn_key(table)
        if key is None or key != table.pending.turn or table.hand is None:
            return
        seat = key[2]
        s = table.seats[seat]
        if s.user_id is None or s.is_bot:
            return
        job = Job(DEFAULT_LEVEL, table.bot_seed(), table.hand.observation(seat))
        action = await self.play.thinker.choose(job)  # `normal`: quick, on the loop
        away = table.timed_out(seat)
        hand_index = table.hand.hand_index
        # the group's mention of this turn becomes the notice that the computer played it
        # (a notice until the hand is over); without one, the notice is a message of its own
        mentioned = next(
            (
                n
                for n in table.pending.notices
                if n.chat_id == table.chat_id and n.turn is not None and list(n.turn) == key
            ),
            None,
        )
        if mentioned is not None:
            table.pending.notices.remove(mentioned)
            table.pending.notices.append(Notice(table.chat_id, mentioned.message_id, hand_index))
        try:
            await self.play.move(table, seat, action, None)
        except TableError:
            return  # reloaded from the database: its deadlines are re-armed
        # a match that now waits for its people says so, not that a computer plays on
        said = "timeout_paused" if table.paused() else "timeout_away" if away else "timeout_notice"
        notice = t(table.lang, said, who=s.name, minutes=ABANDON_MINUTES)
        if table.hand is not None and not table.hand.is_terminal():  # (else: the hand's log)
            if mentioned is not None:
                content = Rendered(notice, [])
                self.registry.spawn(self.out.edit(table.chat_id, mentioned.message_id, content))
            else:
                self.registry.spawn(self._notice(table.table_id, table.chat_id, notice, None))
        self.play.settle(table)
        # they were not there: their hand message shows at once that the turn went by
        self.shown.forget_moment(table.table_id, seat)
        self.shown.render(table)

    async def _auto_next(self, table: Table) -> None:
        """The pause after a hand is over: the next hand starts by itself."""
        table.pending.at.pop("next", None)
        hand = table.hand
        if (
            table.status != PLAYING
            or hand is None
            or not hand.is_terminal()
            or table.pending.turn != [hand.hand_index, -1, -1]
        ):
            return
        kept = self.play.summaries(table)
        try:
            table.next_hand()
            await self.play.save(table, None)
        except TableError:
            return
        self.play.keep_summaries(table, kept)
        self.play.settle(table)
        self.shown.render(table)

    async def _abandon(self, table: Table) -> None:
        """The match waited for its people (`Table.paused`) and nobody came back: it closes
        as abandoned, with no ledger entry; each of them is told in private."""
        table.pending.at.pop("abandon", None)
        if table.paused():
            await self.closing.close(table, {"key": "abandoned"})

    async def _expire_lobby(self, table: Table) -> None:
        """Nobody started the lobby: it closes, with a message, and keeps no buttons."""
        table.pending.at.pop("expire", None)
        if table.status != LOBBY:
            return
        if await self.closing.close(table, {"key": "lobby_expired", "drop": "1"}):
            lang = table.lang
            notice = t(
                lang, "lobby_expired_notice", variant=variant_name(lang, table.options.variant)
            )
            self.registry.spawn(self.out.say(table.chat_id, notice))
