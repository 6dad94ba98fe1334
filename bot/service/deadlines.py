"""The deadlines a table's state sets (`Deadlines`): `plan`, stored with every write; `arm`,
one timer per table; the notices they make moot, deleted; a request to cancel settled. What
the timer does when it fires is in `waits.py`.
"""

from __future__ import annotations

import logging
import secrets

from bot.i18n import t
from bot.service.core import COMPUTER_GRACE, SHOWN_GRACE
from bot.service.registry import Registry
from bot.service.types import Outbox, Timers
from bot.table.deadlines import TURN_KINDS, Notice, Timing
from bot.table.table import LOBBY, PLAYING, Table
from bot.view.render import Rendered
from storage import Database

log = logging.getLogger(__name__)


class Deadlines:
    """The table's deadlines and its one timer."""

    def __init__(
        self,
        db: Database,
        outbox: Outbox,
        timers: Timers,
        registry: Registry,
        *,
        bot_delay: float = 0.0,
        timing: Timing | None = None,
    ) -> None:
        self.db = db
        self.out = outbox
        self.timers = timers
        self.registry = registry  # the table read again, a notice sent (`spawn`)
        self.timing = timing if timing is not None else Timing()
        self.bot_delay = bot_delay  # seconds a computer waits before its move (`Play`)
        self.shared = registry.shared  # with other workers
        self._timer_tokens: dict[int, str] = {}
        # notices no longer true (`Pending.notices`), to delete once the write is stored
        self._moot: dict[int, list[Notice]] = {}

    async def store_pending(self, table: Table) -> bool:
        """Write the deadlines alone (a mention sent, a request to cancel). With other
        workers, only onto the version they were set for: False (and the table read again)
        if another worker wrote it meanwhile, with deadlines of its own."""
        try:
            stored = await self.db.tables.set_timers(
                table.table_id,
                table.pending.to_json(),
                expected_move_no=table.move_no if self.shared else None,
            )
        except Exception:  # at worst a notice is sent twice after a restart
            log.exception("table %s: storing the deadlines failed", table.table_id)
            return False
        if not stored and self.shared:
            await self.registry.reload(table.table_id)
        return stored

    def plan(self, table: Table, *, activity: bool = False) -> None:
        """Set the table's deadlines for its state now (under its lock, before the state is
        written, so they are stored with it). A person's turn keeps the deadlines it began
        with whatever else is written meanwhile; `activity`: a change in the lobby, which
        starts its expiry again. With other workers, what the write must show is owed
        (`SHOWN_GRACE`)."""
        self._plan_deadlines(table, activity=activity)
        if self.shared and table.status in (LOBBY, PLAYING):
            table.pending.at["shown"] = self.timing.now() + SHOWN_GRACE

    def _plan_deadlines(self, table: Table, *, activity: bool) -> None:
        p = table.pending
        now = self.timing.now()
        hand = table.hand
        if table.status == LOBBY:
            p.turn, p.cancel = None, None
            p.at = {k: v for k, v in p.at.items() if k == "expire"}
            if activity or "expire" not in p.at:
                p.at["expire"] = self.timing.lobby_expiry(now)
            return
        if table.status != PLAYING or hand is None:  # closed: nothing to wait for
            p.at.clear()
            p.turn = None
            self._drop_moot(table)
            return
        p.at.pop("expire", None)
        if table.paused():  # nobody but computers to play: the match waits for its people
            for k in (*TURN_KINDS, "computer", "next"):
                p.at.pop(k, None)
            p.turn = None
            p.at.setdefault("abandon", self.timing.abandon(now))
            self._drop_moot(table)
            return
        p.at.pop("abandon", None)
        if hand.is_terminal():  # the pause before the next hand
            p.at.pop("computer", None)
            key = [hand.hand_index, -1, -1]
            if p.turn != key:
                for k in TURN_KINDS:
                    p.at.pop(k, None)
                p.turn = key
                if table.timer:
                    p.at["next"] = self.timing.next_hand(now)
            self._drop_moot(table)
            return
        p.at.pop("next", None)
        p.at.pop("computer", None)
        seat = hand.current
        if table.seats[seat].user_id is None or table.bot_to_act() is not None:
            for k in TURN_KINDS:  # a computer plays (or a forced card): nobody is waited for
                p.at.pop(k, None)
            p.turn = None
            if self.shared:  # ... but another worker takes over if this one dies
                p.at["computer"] = now + COMPUTER_GRACE + 2 * self.bot_delay
            self._drop_moot(table)
            return
        key = [hand.hand_index, len(hand.actions), seat]
        if p.turn != key:
            for k in TURN_KINDS:
                p.at.pop(k, None)
            p.turn = key
            p.at.update(self.timing.turn_deadlines(table.timer, now))
        self._drop_moot(table)

    def _drop_moot(self, table: Table) -> None:
        """The table's notices that are no longer true at its state now leave its deadlines
        (stored with them) and are deleted once the write is (`_delete_moot`)."""
        hand = table.hand
        live = (
            hand.hand_index
            if table.status == PLAYING and hand is not None and not hand.is_terminal()
            else None
        )
        moot = table.pending.moot_notices(live)
        if moot:
            self._moot.setdefault(table.table_id, []).extend(moot)

    def _delete_moot(self, table_id: int) -> None:
        """Delete the notices `_drop_moot` took out: one call per chat (`deleteMessages`)."""
        moot = self._moot.pop(table_id, [])
        chats: dict[int, list[int]] = {}
        for n in moot:
            chats.setdefault(n.chat_id, []).append(n.message_id)
        for chat_id, ids in chats.items():
            self.out.delete_soon(chat_id, ids)

    def arm(self, table: Table) -> None:
        """One timer per table, for its earliest deadline (at once if it has passed); the
        notices its state made moot go."""
        tid = table.table_id
        self._delete_moot(tid)
        self.timers.cancel(tid)
        self._timer_tokens.pop(tid, None)
        if table.status not in (LOBBY, PLAYING):
            return
        first = table.pending.earliest()
        if first is None:
            return
        token = secrets.token_hex(4)
        self._timer_tokens[tid] = token
        self.timers.start(tid, max(0.0, first[1] - self.timing.now()), token)

    def take_timer(self, table_id: int, token: str) -> bool:
        """The table's timer fired with `token`: whether it is the one armed last (it is
        then no longer armed)."""
        if self._timer_tokens.get(table_id) != token:
            return False
        del self._timer_tokens[table_id]
        return True

    def timer_armed(self, table_id: int) -> bool:
        return table_id in self._timer_tokens

    def turn_key(self, table: Table) -> list[int] | None:
        hand = table.hand
        if table.status != PLAYING or hand is None or hand.is_terminal():
            return None
        return [hand.hand_index, len(hand.actions), hand.current]

    def end_request(self, table: Table, key: str, **kw: str) -> None:
        """A request to cancel is settled: its message says how, and loses its buttons."""
        request = table.pending.cancel
        if request is None:
            return
        table.pending.cancel = None
        table.pending.at.pop("cancel", None)
        if request.message_id is not None:
            content = Rendered(t(table.lang, key, **kw), [])
            self.registry.spawn(self.out.edit(table.chat_id, request.message_id, content))
