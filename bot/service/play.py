"""The play: a person's move (`act`), the next hand, the bids' second screen, and what follows
every change (`_save` writes it, the ledger with it when a hand ends; `_settle` starts the
computer players' task and the table's timer). The computer players think without the
table's lock (`_play_computers`).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

from bot.i18n import t
from bot.players import DEFAULT_LEVEL
from bot.players.thinker import Job
from bot.service.core import ServiceCore
from bot.service.types import APPLYING_UPDATE, Person, Reply
from bot.table.ledger import hand_key, match_key
from bot.table.stats import play_record
from bot.table.table import CANCELLED, FINISHED, PLAYING, Table, TableError
from storage import LedgerRecord, Move, StaleMove

log = logging.getLogger(__name__)


class Play(ServiceCore):
    """Moves, written before they are shown; the computer players."""

    async def act(
        self,
        person: Person,
        table_id: int,
        hand_index: int,
        stamp: int,
        action: int,
        ply: int | None = None,
    ) -> Reply:
        """A person's move (a DM button, or a Mini App tap, which names the `ply` it was
        made on: `Table.check_action`)."""
        table = await self._known(table_id)
        if table is None:
            row = await self.db.get_table(table_id)
            lang = (row.lang if row else None) or self.default_lang
            return Reply(t(lang, "err_hand_over"))
        async with self._lock(table_id):
            # With other workers, a write may find the table moved on since it was read:
            # it is read again and the tap checked once more against what it is now.
            for attempt in range(2 if self.shared else 1):
                table = await self._current(table_id)
                if table is None:
                    return Reply(t(self.default_lang, "err_hand_over"))
                lang = self._lang_for(table, person.user_id)
                try:
                    seat = table.check_action(person.user_id, hand_index, stamp, action, ply)
                    table.seats[seat].timeouts = 0  # they act: the timeouts in a row restart
                    await self._move(table, seat, action, person.user_id)
                except TableError as exc:
                    if exc.key == "err_busy" and attempt == 0 and self.shared:
                        continue
                    return self._err(lang, exc)
                break
            self._settle(table)
            self._render(table)
        return Reply(t(lang, "ok_played"), key="ok_played")

    async def _known(self, table_id: int) -> Table | None:
        """A first look before the table's lock: from memory, else (with other workers)
        from the database. Under the lock, `_current` says what the table is now."""
        table = self.tables.get(table_id)
        if table is None and self.shared:
            table = await self._current(table_id)
        return table

    async def next_hand(self, person: Person, table_id: int, hand_index: int) -> Reply:
        if await self._known(table_id) is None:
            return Reply(t(self.default_lang, "err_hand_over"))
        async with self._lock(table_id):
            # Two taps at once on two workers: the loser of the write reads the table again
            # and finds the next hand dealt, which is what it asked for (a tap after the
            # hand was dealt, by a tap or by the timer, is a stale button as before).
            for attempt in range(2 if self.shared else 1):
                table = await self._current(table_id)
                if table is None:
                    return Reply(t(self.default_lang, "err_hand_over"))
                lang = table.lang
                if table.seat_of(person.user_id) is None:
                    return Reply(t(lang, "err_not_your_table"))
                if attempt and table.hand is not None and table.hand.hand_index == hand_index + 1:
                    return Reply(t(lang, "ok_played"), key="ok_played")
                if table.hand is None or table.hand.hand_index != hand_index:
                    return Reply(t(lang, "err_stale"))
                try:
                    table.next_hand()
                    await self._save(table, None)
                except TableError as exc:
                    if exc.key == "err_busy" and attempt == 0 and self.shared:
                        continue
                    return self._err(lang, exc)
                break
            assert table is not None
            self._settle(table)
            self._render(table)
        return Reply(t(lang, "ok_played"), key="ok_played")

    async def bid_page(
        self, person: Person, table_id: int, hand_index: int, stamp: int, page: int
    ) -> Reply:
        """The points bids' second screen (every legal value, `page` 1) or back to the
        first; only on one's own turn, and only in that person's hand message."""
        table = await self._current(table_id)
        if table is None:
            return Reply(t(self.default_lang, "err_hand_over"))
        async with self._lock(table_id):
            table = await self._current(table_id)
            if table is None:
                return Reply(t(self.default_lang, "err_hand_over"))
            lang = self._lang_for(table, person.user_id)
            seat = table.seat_of(person.user_id)
            hand = table.hand
            if seat is None:
                return Reply(t(lang, "err_not_your_table"))
            if table.status != PLAYING or hand is None or hand.is_terminal():
                return Reply(t(lang, "err_hand_over"))
            if hand.hand_index != hand_index:
                return Reply(t(lang, "err_hand_over"))
            if hand.current != seat:
                return Reply(t(lang, "err_not_your_turn"))
            if stamp != table.turn_start() or page not in (0, 1):
                return Reply(t(lang, "err_stale"))
            if page:
                self._bid_pages[(table_id, seat)] = (table.move_no, stamp)
            else:
                self._bid_pages.pop((table_id, seat), None)
            self._render(table)  # only this person's message changes
        return Reply("")

    async def _move(self, table: Table, seat: int, action: int, user_id: int | None) -> None:
        assert table.hand is not None
        table.apply(seat, action)
        await self._save(
            table, Move(table.hand.hand_index, seat, action, user_id), urgent=user_id is not None
        )

    async def _save(self, table: Table, move: Move | None, *, urgent: bool = True) -> None:
        """Persist the table after a change; a finished hand writes the ledger, and its
        record for the stats (`bot.table.stats.play_record`), in the same transaction. On
        any failure the table is reloaded from the database and the error is raised as a
        TableError (the action is refused, nothing is half-written)."""
        ledger = record = None
        if table.hand is not None and table.hand.is_terminal() and move is not None:
            deltas = table.finish_hand()
            now = datetime.now(UTC)
            record = play_record(table, now)  # stats (bot.table.stats): with the ledger
            if deltas:
                key = (
                    hand_key(table.table_id, table.hand.hand_index)
                    if table.options.rules().chiamata
                    else match_key(table.table_id)
                )
                # §10.5: a computer never appears in the ledger (`Table.counted_deltas`)
                names = {s.user_id: s.name for s in table.seats if s.user_id is not None}
                ledger = LedgerRecord(
                    chat_id=table.chat_id,
                    hand_key=key,
                    table_id=table.table_id,
                    variant=table.options.variant,
                    deltas=deltas,
                    names={k: names[k] for k in deltas},
                    finished_at=now,
                )
        self._plan(table)  # the deadlines this state sets, stored with it
        try:
            table.move_no = await self.db.save_move(
                table.table_id,
                table.move_no,
                match_json=table.match_json(),
                hand_json=table.hand_json(),
                status=table.status,
                move=move,
                ledger=ledger,
                urgent=urgent,  # a person waits for the answer to their tap
                seats_json=table.seats_json(),
                timers_json=table.pending.to_json(),
                record=record,
                update_id=APPLYING_UPDATE.get(),
            )
        except StaleMove:
            log.warning("table %s: stale write, reloading", table.table_id)
            await self._reload(table.table_id)
            raise TableError("err_busy") from None
        except Exception:
            log.exception("table %s: write failed, reloading", table.table_id)
            await self._reload(table.table_id)
            raise TableError("err_busy") from None

    def _settle(self, table: Table) -> None:
        """After a change, under the table's lock: computer players to move get their task,
        the table's next deadline its timer, a closed table is let go."""
        tid = table.table_id
        if table.bot_to_act() is not None:
            task = self._computers.get(tid)
            if task is None or task.done():
                self._computers[tid] = asyncio.create_task(
                    self._play_computers(tid), name=f"computers:{tid}"
                )
        self._arm(table)
        if table.status in (FINISHED, CANCELLED):
            self._end_request(table, "cancel_moot")
            self.tables.pop(tid, None)
            self._table_closed(table)  # a tournament's match: the next one (tournament.py)

    def _table_closed(self, table: Table) -> None:
        """A table finished or was cancelled; `bot/service/tournament.py` overrides this."""

    async def _play_computers(self, table_id: int) -> None:
        """Computer players move until a person must act or the hand ends. Each decision is
        taken without the lock (a tap on this table is answered meanwhile) from the seat's
        observation, and applied only if the table is still where it was."""
        me = asyncio.current_task()
        try:
            while True:
                async with self._lock(table_id):
                    table = await self._current(table_id)
                    seat = table.bot_to_act() if table is not None else None
                    if table is None or seat is None or table.hand is None:
                        if self._computers.get(table_id) is me:
                            del self._computers[table_id]
                        return
                    version = table.move_no
                    level = table.seats[seat].level or DEFAULT_LEVEL
                    job = Job(level, table.bot_seed(), table.hand.observation(seat))
                if self.bot_delay:
                    await asyncio.sleep(self.bot_delay)
                try:
                    action = await self.thinker.choose(job)
                except Exception:
                    log.exception("table %s: the %s player failed; playing normal", table_id, level)
                    action = await self.thinker.choose(
                        Job(DEFAULT_LEVEL, job.seed, job.observation)
                    )
                async with self._lock(table_id):
                    table = await self._current(table_id)
                    if table is None or table.move_no != version:
                        continue  # something else happened meanwhile: look again
                    try:
                        await self._move(table, seat, action, None)
                    except TableError:
                        continue  # reloaded from the database: look again
                    self._settle(table)
                    self._render(table)
        finally:
            if self._computers.get(table_id) is me:
                del self._computers[table_id]
