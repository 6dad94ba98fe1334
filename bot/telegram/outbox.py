"""The Outbox on Telegram: coalesced message edits, and Telegram's answers handled as sent.

Each message (the group's table message, each hand message) has at most one pending send:
`show_*` stores the newest content and wakes the message's task, which sends the newest it
finds unless the message shows it already. The group message waits `group_interval` seconds
between sends (about 20 a minute in a group), longer when the group's room is short (the
rate limiter's `group_pace`: after a burst of replies, a pace that never waits for room);
an `urgent` change (the lobby became a game, the table was cancelled) goes at once.

The outbox is given plain data, never the service's `Table`: what to show (`Rendered`) and
where (`TableRef`: the table's id, group, version, whether it ended, its table message), a new
one with each call, the newest kept by the message's slot. What it learns that the service's
table must know, a new table message (posted anew, or by another worker), it tells through
`on_table_message`; a hand message refused, through `on_blocked`.

Every text is HTML (the `ExtBot`'s `Defaults`, set in `bot.app`).
Pacing and retries of single calls: `bot.telegram.rate_limiter`. A call that still fails
leaves the newest content to try again after `resync_after` seconds or at the next change.
What each message shows is noted (a digest, `bot.telegram.shown`, written in batches by
`bot.telegram.notes`), so a restarted bot edits only what changed.

- "message is not modified": counted as sent.
- "message to edit not found" / "message can't be edited": sent anew, the new id stored.
- Forbidden on a private message: reported once to `on_blocked` (the group is told); on the
  group message (the bot was removed): the table message is given up.

Your turn (`show_private(..., turn=key)`): an edit notifies nobody, so a person's turn comes
as a new message (the one it replaces goes with the hand's others at its end: `sweep`,
`bot.telegram.replaced`), unless the message already shows this turn (its digest carries
`TURN_MARK` and the turn's key): a second render, or a restarted bot, edits instead.

The service does not show every move to everyone (`bot.service.core`): a person's hand
message changes on their turn and at the moments that matter to all (a hand dealt, the call,
a hand's end); the group's table message shows a routine change (a bid, the call, a card,
a trick taken) once it is `routine_interval` s old, a hand's start or end at the group's pace.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

from telegram import Bot, Message
from telegram.error import BadRequest, Forbidden, TelegramError

from bot.service.types import TableRef
from bot.telegram.notes import Notes
from bot.telegram.oneoff import OneOff, markup
from bot.telegram.rate_limiter import Stopping
from bot.telegram.replaced import Sweeper, drop_replaced
from bot.telegram.shown import TURN_MARK, digest, known
from bot.telegram.slot import Later, Slot
from bot.telegram.stored import StoredMessages
from bot.view.render import Keyboard, Rendered
from storage import Database
from storage.models import MessageState

log = logging.getLogger(__name__)

RESYNC_AFTER = 30.0  # seconds before a message whose send failed is tried again
MAX_RESYNCS = 20  # a finished table's message is given up after this many
SHARED_HEADROOM = 0.1  # of the routine pause (`_too_soon`; 10.1 s behind, loaded, without)


class TelegramOutbox:
    def __init__(
        self,
        bot: Bot,
        db: Database,
        *,
        group_interval: float = 3.0,
        resync_after: float = RESYNC_AFTER,
        on_blocked: Callable[[int, int], Awaitable[None]] | None = None,
        on_table_message: Callable[[int, int], None] | None = None,
        notes: Notes | None = None,
        shared: bool = False,
        private_gap: float = 0.0,
        pace: Callable[[int], float] | None = None,
        room: Callable[[int], Awaitable[float]] | None = None,
        routine_interval: float = 0.0,
    ) -> None:
        self.bot = bot
        # how old a routine change (a bid, a card) gets before the group's message shows it
        # (`_too_soon`); a moment (a hand's start or end) waits only `group_interval`
        self.routine_interval = routine_interval
        self.pace = pace  # the wait the group's room left asks (`PacedRateLimiter.group_pace`)
        self.room = room  # other workers: room in a chat's window, waited before its lock
        # other workers send the same messages: each send holds the message's lock in the
        # database and starts from what is stored (`_send_shared`), and keeps `private_gap`
        # seconds after any worker's last call for a hand message (one a second per chat)
        self.shared = shared
        self.private_gap = private_gap
        self.db = db
        self.notes = notes if notes is not None else Notes(db)
        self.group_interval = group_interval
        self.resync_after = resync_after
        # a person's private chat refused their hand message: (table id, user id)
        self.on_blocked = on_blocked
        # a new table message (posted anew, or by another worker): (table id, message id),
        # for the service's table to know it (the outbox stores it, and writes no `Table`)
        self.on_table_message = on_table_message
        self.on_turn: Callable[[int], None] = lambda table_id: None  # a turn message went out
        self._slots: dict[tuple[int, int | None], Slot] = {}
        self._blocked: set[tuple[int, int]] = set()
        self._stored = StoredMessages(db)
        self._closing = False
        self._sweeper = Sweeper(
            bot,
            db,
            self.notes,
            shared=shared,
            shown=self._stored.hand,
            closing=lambda: self._closing,
            private_gap=private_gap,
        )
        self._oneoff = OneOff(bot, closing=lambda: self._closing)

    # ------------------------------------------------------------------ Outbox

    def show_table(
        self,
        table: TableRef,
        content: Rendered,
        *,
        urgent: bool = False,
        routine: bool = False,
        moment: str = "",
    ) -> None:
        """Show `content` as the group's table message. `routine`: a change the group may see
        a few seconds later (`routine_interval` after the last edit), folded into the next
        one that matters: a card within a trick, a bid. `moment`: what a change must show
        at once when it changes (the trick, the call): with other workers it is stored with
        the message, and a change is routine when the message shows its moment already,
        whichever worker showed it (`routine` is this worker's own view)."""
        self._put(table, table.chat_id, None, content, urgent, routine=routine, moment=moment)

    def show_private(
        self,
        table: TableRef,
        user_id: int,
        content: Rendered,
        *,
        urgent: bool = False,
        turn: str | None = None,
        settle: bool = False,
    ) -> None:
        """Show `content` as the person's hand message. `turn` (it is their turn; the key of
        that turn): unless the message shown is already of this turn, it goes out as a new
        message (which notifies), and the one it replaces is deleted with the others of the
        hand when the hand ends (`sweep`): one call per chat instead of one per turn.
        `settle` (their turn is over): the message is edited only if it still shows a turn,
        so that no message says "your turn" once the turn is gone (as stored: whichever
        worker or run sent it)."""
        self._put(table, user_id, user_id, content, urgent, turn=turn, settle=settle)

    def sweep(self, table: TableRef) -> None:
        """Delete the table's hand messages that newer turn messages replaced: one
        deleteMessages per chat, off the caller's path (the hand is over, or the table)."""
        self._sweeper.sweep(table.table_id)

    def repost(self, table: TableRef, content: Rendered) -> None:
        """Send the group's table message anew, at the bottom of the chat (/table): the new
        message id is stored, the old message deleted (or, if Telegram refuses, edited into
        a pointer to the new one, without buttons), so no two live copies exist. If the
        table is pinned (`TableRef.pin`), the new message is pinned."""
        self._put(table, table.chat_id, None, content, True)
        self._slots[(table.table_id, None)].repost = True  # no await since `_put`

    async def pin(self, table: TableRef) -> None:
        """Pin the table message (best effort: a refusal, e.g. the bot is no admin any
        more, is only logged)."""
        if table.table_message_id is not None:
            await self._oneoff.pin(table.chat_id, table.table_message_id)

    def unblock(self, user_id: int) -> None:
        self._blocked = {k for k in self._blocked if k[1] != user_id}

    def drop_table(self, table: TableRef) -> None:
        """The group's table message goes (a closed table whose closing another message
        announces: the reply to /cancel, the lobby's expiry): deleted, and no edit on its
        way brings it back."""
        slot = self._slots.get((table.table_id, None))
        if slot is None:
            slot = self._slots[(table.table_id, None)] = Slot(table, table.chat_id, None)
        slot.table = table
        slot.desired, slot.dropped = None, True
        if table.table_message_id is not None:
            self.delete_soon(table.chat_id, [table.table_message_id])

    def keep_private(self, table: TableRef, user_id: int, content: Rendered) -> None:
        """The person's hand message stays in their chat as it is, showing `content` (the
        hand's summary without its button, `bot.view.render.kept_summary`): the next
        `show_private` sends a new message below it instead of editing it."""
        key = (table.table_id, user_id)
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = Slot(table, user_id, user_id)
        slot.table = table
        slot.keep = content
        slot.wake.set()
        if slot.task is None or slot.task.done():
            slot.task = asyncio.create_task(self._run(slot), name=f"outbox:{key}")

    async def _keep(self, slot: Slot, content: Rendered) -> None:
        """`keep_private`: the message shown gets `content`, then is forgotten (here and in
        the database: a restarted bot, or another worker, sends the next one anew)."""
        tid, uid = slot.table.table_id, slot.user_id
        assert uid is not None
        if (tid, uid) in self._blocked:
            return
        if self.shared:
            async with self.db.tables.message_lock(tid, uid):
                state = await self.db.tables.message_state(tid, uid)
                shown = state.digest if state.unsure is None else known(state.unsure)
                await self._keep_message(slot, state.message_id, content, shown)
        else:
            message_id = await self._message_id(slot)
            await self._keep_message(slot, message_id, content, slot.sent)

    async def _keep_message(
        self, slot: Slot, message_id: int | None, content: Rendered, shown: str | None
    ) -> None:
        tid, uid = slot.table.table_id, slot.user_id
        assert uid is not None
        want = digest(content)
        if message_id is not None and shown != want:  # (a summary without buttons: as it is)
            # noted first, as any edit (a bot killed meanwhile knows what it may show)
            await self.notes.editing(slot.chat_id, message_id, want)
            try:
                await self.bot.edit_message_text(
                    content.text,
                    chat_id=slot.chat_id,
                    message_id=message_id,
                    reply_markup=markup(content.keyboard),
                )
            except TelegramError as exc:  # gone, or showing it already: it stays as it is
                log.info("keeping %s/%s: %s", slot.chat_id, message_id, exc)
            else:
                await self._noted(slot, message_id, want)
        slot.message_id, slot.sent, slot.loaded = None, None, False
        self._stored.drop_hand(tid, uid)
        await self.db.messages.forget_private_message(tid, uid)

    # one-off messages, which the outbox does not keep up to date: `bot.telegram.oneoff`

    async def say(self, chat_id: int, text: str, keyboard: Keyboard | None = None) -> bool:
        return await self._oneoff.say(chat_id, text, keyboard)

    async def edit(self, chat_id: int, message_id: int, content: Rendered) -> None:
        await self._oneoff.edit(chat_id, message_id, content)

    def edit_soon(self, chat_id: int, message_id: int, content: Rendered) -> None:
        self._oneoff.edit_soon(chat_id, message_id, content)

    async def post(self, chat_id: int, content: Rendered) -> int | None:
        return await self._oneoff.post(chat_id, content)

    async def announce(
        self, chat_id: int, content: Rendered, *, silent: bool = False
    ) -> int | None:
        return await self._oneoff.announce(chat_id, content, silent=silent)

    def delete_soon(self, chat_id: int, message_ids: list[int]) -> None:
        self._oneoff.delete_soon(chat_id, message_ids)

    async def clear_buttons(self, chat_id: int, message_id: int) -> None:
        await self._oneoff.clear_buttons(chat_id, message_id)

    def pending(self) -> int:
        """Messages with content still to send (and sweeps under way, notices still to
        delete)."""
        busy = sum(
            1
            for s in self._slots.values()
            if s.desired is not None or s.wake.is_set() or s.keep is not None
        )
        return busy + self._sweeper.pending() + int(self._oneoff.pending())

    async def flush(self, timeout: float = 10.0) -> None:
        """Wait until every pending send is done (shutdown, tests), at most `timeout` s."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline and self.pending():
            await asyncio.sleep(0.05)

    async def preload(self, tables: list[TableRef]) -> None:
        """Read at once what the messages of these tables show (start-up), instead of one
        query per message when each is first rendered. Not with other workers: each send
        reads its message as stored then (`_send_shared`)."""
        if self.shared:
            return
        await self._stored.preload(tables)

    async def close(self, timeout: float = 3.0) -> None:
        """Send what is pending for a few seconds, then stop: every action is stored, so a
        restarted bot shows whatever did not go out."""
        self._closing = True
        for slot in self._slots.values():  # no more pauses between group edits
            slot.urgent = True
            if slot.desired is not None:
                slot.wake.set()
        await self.flush(timeout)
        await self._oneoff.close(timeout)
        tasks = [s.task for s in self._slots.values() if s.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.notes.close()

    # ------------------------------------------------------------------ internals

    def _put(
        self,
        table: TableRef,
        chat_id: int,
        user_id: int | None,
        content: Rendered,
        urgent: bool,
        *,
        turn: str | None = None,
        routine: bool = False,
        moment: str = "",
        settle: bool = False,
    ) -> None:
        key = (table.table_id, user_id)
        slot = self._slots.get(key)
        if slot is None:
            slot = Slot(table, chat_id, user_id)
            self._slots[key] = slot
        slot.table = table
        if user_id is not None and (table.table_id, user_id) in self._blocked:
            return
        if slot.dropped:  # the table message was deleted: nothing shows it again
            return
        # a change that matters, still to show, keeps its haste when a routine one follows
        slot.routine = routine and (slot.desired is None or slot.routine)
        # a content that must show, still to send, keeps that when a settling one follows
        slot.settle = settle and (slot.desired is None or slot.settle)
        if slot.pending_since is None:
            slot.pending_since = time.time()
        slot.desired = content
        slot.moment = moment
        slot.version = table.version
        slot.turn = turn
        slot.urgent = slot.urgent or urgent
        slot.wake.set()
        if slot.task is None or slot.task.done():
            slot.task = asyncio.create_task(self._run(slot), name=f"outbox:{key}")

    async def _pause(self, slot: Slot, seconds: float) -> None:
        """Wait `seconds`, or less if an urgent change arrives."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while not slot.urgent and not self._closing and (left := end - loop.time()) > 0:
            slot.wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(slot.wake.wait(), left)
        slot.wake.set()

    async def _run(self, slot: Slot) -> None:
        while True:
            await slot.wake.wait()
            slot.wake.clear()
            if slot.keep is not None:
                keep, slot.keep = slot.keep, None
                try:
                    await self._keep(slot, keep)
                except Exception:
                    log.exception("outbox: keeping %s's message failed", slot.chat_id)
            if slot.user_id is None and slot.desired is not None:
                await self._edit_wait(slot)
            content, turn, settle = slot.desired, slot.turn, slot.settle
            if content is not None:
                slot.urgent = False
                slot.pending_since = None  # a change from now on waits its own time
                slot.sending, slot.sending_moment = slot.version, slot.moment
                try:
                    if self.shared:
                        sent = await self._send_shared(slot, content, turn, settle)
                    else:
                        sent = await self._send(slot, content, turn, settle)
                except Later:
                    slot.wake.set()  # back to `_edit_wait`, the newest content kept
                    continue
                except Stopping:  # SIGTERM: the next run shows it (what it shows is noted)
                    log.info("outbox: %s left for the next run", slot.chat_id)
                    continue
                except Exception as exc:
                    sent = False
                    if isinstance(exc, TelegramError) and not isinstance(exc, BadRequest):
                        # the rate limiter already tried again: keep the newest content and
                        # try once more later (or at the next change)
                        slot.resyncs += 1
                        if slot.resyncs <= MAX_RESYNCS or not slot.table.ended:
                            log.warning(
                                "outbox: %s not updated (%s); again in %.0f s",
                                slot.chat_id,
                                exc,
                                self.resync_after,
                            )
                            await self._pause(slot, self.resync_after)
                            continue
                    else:
                        log.exception("outbox: sending to %s failed", slot.chat_id)
                if sent:
                    slot.resyncs = 0
                if slot.desired is content:
                    slot.desired = None
                if slot.user_id is None and not self.shared:  # (shared: stored, `_noted`)
                    slot.edited_at = time.time()
                    slot.edited_pace = self.pace(slot.chat_id) if self.pace is not None else 0.0
                    if sent:
                        slot.shown_moment = slot.sending_moment
            if self._retire(slot):
                return

    async def _edit_wait(self, slot: Slot) -> None:
        """Before an edit of a group's message: wait `_too_soon` after its last edit
        (`_last_edit`: with other workers, by whichever worker), asked again whenever new
        content comes (a change that matters cuts a routine wait short; an urgent one, or
        shutting down, ends it). The group's pace is the one read at that edit: it spaces
        the edits from then on (`Window.spread`); read again later but still counted from
        the edit it would shorten each wait, using the room up early and leaving the table
        unedited until the oldest calls leave the group's window. (Each of three workers
        pacing only its own edits used the group's room up in 40 s and left the table
        unedited for 20 s.)"""
        while not slot.urgent and not self._closing:
            # read again after each wait: another worker may have edited it meanwhile
            state = await self._last_edit(slot)
            if state.version >= slot.version:
                return  # a newer state is shown already (the send will be moot)
            left = self._too_soon(slot, state)
            if left <= 0:
                return
            slot.wake.clear()  # new content may make what waits a moment (a shorter pause)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(slot.wake.wait(), left)

    async def _last_edit(self, slot: Slot) -> MessageState:
        """The group's message as last edited: as stored with other workers, else as this
        process edited it (its version unknown here: -1)."""
        if self.shared:
            return await self.db.tables.message_state(slot.table.table_id, None)
        return MessageState(
            slot.message_id,
            None,
            -1,
            sent_at=slot.edited_at,
            pace=slot.edited_pace,
            moment=slot.shown_moment,
        )

    def _too_soon(self, slot: Slot, state: MessageState) -> float:
        """Seconds until the group's message may be edited again (0: now): `group_interval`
        after its last edit (`_last_edit`), or the group's pace read then; longer while what
        waits is routine (its moment shown already; without a moment, the caller's `routine`)."""
        if not (self.group_interval or self.routine_interval) or self._closing:
            return 0.0
        until = state.sent_at + max(self.group_interval, state.pace)
        if slot.routine if not slot.moment else slot.moment == state.moment:
            # a routine change waits until it is `routine_interval` old, with the moves since
            # (issue 50.4); after a still spell, at the group's pace. Other workers (each knows
            # only its own changes' times): from the last edit, `SHARED_HEADROOM` of it sooner
            if self.shared:
                first = state.sent_at - SHARED_HEADROOM * self.routine_interval
            else:
                first = state.sent_at if slot.pending_since is None else slot.pending_since
            if first - state.sent_at < self.routine_interval:
                gap = max(state.pace, min(self.group_interval, 1.0))
                until = max(first + self.routine_interval, state.sent_at + gap)
        return max(0.0, until - time.time())

    def _retire(self, slot: Slot) -> bool:
        """Forget the slot of a finished or cancelled table once its last content is out
        (no await between the check and the removal: a concurrent `_put` either comes first,
        and the slot stays, or after, and starts a new slot)."""
        if slot.desired is not None or slot.wake.is_set() or slot.keep is not None:
            return False
        if not slot.table.ended:
            return False
        tid = slot.table.table_id
        self._slots.pop((tid, slot.user_id), None)
        if not any(key[0] == tid for key in self._slots) and not self._sweeper.holds(tid):
            self._sweeper.forget(tid)
            self._stored.forget(tid)
            self._blocked = {k for k in self._blocked if k[0] != tid}
        return True

    async def _message_id(self, slot: Slot) -> int | None:
        if slot.message_id is None:
            if slot.user_id is None:
                slot.message_id = slot.table.table_message_id
            else:
                ids = await self._stored.hands(slot.table.table_id)
                slot.message_id = ids.get(slot.user_id)
        if slot.message_id is not None and not slot.loaded:
            slot.loaded = True
            slot.sent = await self._stored.shows(slot.chat_id, slot.message_id)
        return slot.message_id

    async def _send_shared(
        self, slot: Slot, content: Rendered, turn: str | None, settle: bool = False
    ) -> bool:
        """`_send` with other workers sending for the same tables: under the message's lock
        (`TableStore.message_lock`, across workers), from the message as stored (its id, what
        it shows, the table version it shows), and only if that version is not newer than
        this content's: a worker that was slower to send never puts an older state over a
        newer one, and one that finds its content shown already sends nothing. Nor does an
        edit of the group's message that an open table's newer stored version makes old:
        that version's render shows it (its writer's, or whoever fires the "shown" deadline
        the write set, `bot.service.core.SHOWN_GRACE`), and an older state edited now would
        only push it a routine pause further back (a bid whose worker was killed at once,
        owed while another worker still held the bid before it: shown 40 s after it was
        stored, and only with the next move)."""
        tid, uid = slot.table.table_id, slot.user_id
        if self.room is not None and not settle:  # (a settle waits only if it sends)
            while (wait := await self.room(slot.chat_id)) > 0 and not self._closing:
                await asyncio.sleep(min(wait, 1.0))
        async with self.db.tables.message_lock(tid, uid):
            state = await self.db.tables.message_state(tid, uid)
            if state.version > slot.sending:
                return True  # a newer state of the table is shown: this one is moot
            if uid is None and not slot.urgent and state.open_version > slot.sending:
                return True  # ... or stored, and shown by that version's render
            if uid is None and not slot.urgent and self._too_soon(slot, state):
                raise Later  # two workers past `_edit_wait` at once: one edits
            shown = state.digest if state.unsure is None else known(state.unsure)
            if settle and not (state.message_id and (shown or "").startswith(TURN_MARK)):
                return True  # it shows no turn (any worker's): nothing to settle, nothing noted
            if uid is not None and self.private_gap > 0:
                wait = state.sent_at + self.private_gap - time.time()
                if wait > 0:  # another worker called into this chat just now
                    await asyncio.sleep(min(wait, self.private_gap))
            slot.message_id, slot.sent, slot.loaded = state.message_id, shown, True
            if uid is None:
                self._learned(slot, state.message_id)
            elif state.message_id is None:
                self._stored.drop_hand(tid, uid)
            else:
                self._stored.set_hand(tid, uid, state.message_id)
            sent = await self._send(slot, content, turn, settle)
            if sent and slot.message_id is not None and slot.sent is not None:
                await self._noted(slot, slot.message_id, slot.sent)
            return sent

    async def _noted(self, slot: Slot, message_id: int, shown: str) -> None:
        """The message shows `shown` now: noted in the next batch, or (`shared`) at once,
        with the table version it came from, before the message's lock is let go."""
        if self.shared:
            group = slot.user_id is None and self.pace is not None
            await self.db.tables.note_rendered(
                slot.table.table_id,
                slot.user_id,
                slot.sending,
                slot.chat_id,
                message_id,
                shown,
                time.time(),
                self.pace(slot.chat_id) if group and self.pace is not None else 0.0,
                slot.sending_moment if slot.user_id is None else "",
            )
        else:
            self.notes.shown(slot.chat_id, message_id, shown)

    async def _send(
        self, slot: Slot, content: Rendered, turn: str | None = None, settle: bool = False
    ) -> bool:
        """Send or edit the slot's message. True once Telegram shows `content`; False if it
        cannot (a person who has not started the bot, a group that removed the bot).
        `turn` (a private message for the person's turn, that turn's key): a new message
        replaces the one shown, unless that one is already of this turn; if the one replaced
        still shows an earlier turn (its buttons live), it is deleted at once. `settle`: the
        message is edited only if it shows a turn still (nothing to do otherwise)."""
        mid = await self._message_id(slot)
        if settle and (mid is None or not (slot.sent or "").startswith(TURN_MARK)):
            return True  # it shows no turn: what it shows stays true until the next moment
        want = digest(content)
        mark = None
        if turn is not None and slot.user_id is not None:
            mark = f"{TURN_MARK}{turn}|"
            want = mark + want
        moved: int | None = None
        if slot.repost and slot.user_id is None:  # /table: a new message at the bottom
            slot.repost = False
            moved, mid = mid, None
        if mid is not None and slot.sent == want:
            return True
        replaced: int | None = None
        live_turn = False
        if mark is not None and not (slot.sent or "").startswith(mark):
            replaced, mid = mid, None  # a fresh message notifies; an edit would not
            live_turn = (slot.sent or "").startswith(TURN_MARK)
        tid = slot.table.table_id
        counted = replaced is not None  # a sweep of the hand waits for this one (`sending`)
        if counted:
            self._sweeper.sending(tid)
        try:
            reply_markup = markup(content.keyboard)
            sent_new = False
            for _ in range(2):
                try:
                    if mid is None:
                        msg = await self.bot.send_message(
                            slot.chat_id,
                            content.text,
                            reply_markup=reply_markup,
                            # a group's table message and a hand that is not one's turn: silent
                            disable_notification=not want.startswith(TURN_MARK),
                        )
                        await self._remember(slot, msg, want)  # its digest written there
                        mid = msg.message_id
                        sent_new = True
                        if mark is not None:  # the metrics time it from the move (`on_turn`)
                            self.on_turn(tid)
                        if moved is not None and moved != mid:
                            # noted first: a bot restarted meanwhile edits the new one
                            slot.sent = want
                            await self._noted(slot, mid, want)
                            await drop_replaced(
                                self.bot, slot.table, slot.chat_id, slot.user_id, moved
                            )
                            moved = None
                        if replaced is not None and replaced != mid:
                            if live_turn:  # its buttons are for a turn gone by: it goes now
                                # (awaited here: with other workers, the chat's pace counts
                                # from this call, noted with the message after it)
                                await self._oneoff.delete_now(slot.chat_id, [replaced])
                            else:  # it says what happened: it goes with the hand's sweep
                                self._sweeper.replace(tid, slot.chat_id, replaced)
                            replaced = None
                    else:
                        await self.notes.editing(slot.chat_id, mid, want)
                        await self.bot.edit_message_text(
                            content.text,
                            chat_id=slot.chat_id,
                            message_id=mid,
                            reply_markup=reply_markup,
                        )
                except BadRequest as exc:
                    text = str(exc).lower()
                    if "not modified" not in text:
                        if "message to edit not found" in text or "message can't be edited" in text:
                            if slot.dropped:  # deleted on purpose (`drop_table`)
                                return True
                            mid = slot.message_id = None
                            continue
                        raise
                except Forbidden:
                    slot.desired = None
                    if slot.user_id is None:
                        log.warning("the bot may not write in group %s any more", slot.chat_id)
                        return False
                    self._blocked.add((slot.table.table_id, slot.user_id))
                    if self.on_blocked is not None:
                        await self.on_blocked(slot.table.table_id, slot.user_id)
                    return False
                slot.sent = want
                # shared: `_send_shared` notes it; a new message: `_remember` wrote it
                if mid is not None and not self.shared and not sent_new:
                    self.notes.shown(slot.chat_id, mid, want)
                return True
            return False
        finally:
            if counted:
                self._sweeper.sent(tid)

    async def _remember(self, slot: Slot, msg: Message, shown: str) -> None:
        """A new message shows the table (showing `shown`): what it shows is written before
        its id, at once (not with the next notes: a bot killed in between would edit it to
        what it shows, answered "not modified", or, for a turn message, send a second one)."""
        await self.db.messages.write_notes(shown=[(slot.chat_id, msg.message_id, shown)])
        slot.message_id = msg.message_id
        slot.loaded = True
        tid = slot.table.table_id
        if slot.user_id is None:
            self._learned(slot, msg.message_id)
            await self.db.tables.update_lobby(tid, table_message_id=msg.message_id)
            if slot.table.pin:  # a pinned table stays pinned in its new message
                await self._oneoff.pin(slot.chat_id, msg.message_id)
        else:
            self._stored.set_hand(tid, slot.user_id, msg.message_id)
            await self.db.messages.set_private_message(
                tid, slot.user_id, slot.chat_id, msg.message_id
            )

    def _learned(self, slot: Slot, message_id: int | None) -> None:
        """The group's table message is `message_id` (posted now, or as stored by whichever
        worker): the slot's own copy of the table says so, and a new one is told to the
        service (`on_table_message`), whose table says so too."""
        if message_id == slot.table.table_message_id:
            return
        slot.table = replace(slot.table, table_message_id=message_id)
        if message_id is not None and self.on_table_message is not None:
            self.on_table_message(slot.table.table_id, message_id)
