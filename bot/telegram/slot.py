"""One message's place in the outbox (`bot.telegram.outbox`): the newest content it must show,
what it shows now (a digest), how it is being sent, and the pace of the group's last edit.
Each message has exactly one `Slot` and at most one task sending it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from bot.service.types import TableRef
from bot.view.render import Rendered


class Later(Exception):
    """Another worker edited the group's message just now: this edit waits its turn."""


@dataclass
class Slot:
    """The group's table message (`user_id` None) or a person's hand message of a table."""

    table: TableRef  # the latest the service gave (a new table message: `_learned`)
    chat_id: int
    user_id: int | None  # None: the group's table message
    desired: Rendered | None = None
    sent: str | None = None  # digest of what the message shows
    message_id: int | None = None
    loaded: bool = False  # `sent` was read from the database for `message_id`
    urgent: bool = False
    routine: bool = False  # `desired` may wait `routine_interval` (see `show_table`)
    moment: str = ""  # the moment `desired` shows (see `show_table`)
    sending_moment: str = ""  # ... and the one being sent now
    # this process's last edit of a group's message (with other workers, the stored one
    # counts: `_last_edit`): when (epoch seconds), the group's pace then, the moment shown
    edited_at: float = 0.0
    edited_pace: float = 0.0
    shown_moment: str = ""
    # when the first change not yet on its way came (epoch seconds; None: none since)
    pending_since: float | None = None
    turn: str | None = None  # `desired` is for the person's turn, this one (`show_private`)
    settle: bool = False  # `desired` shows only if the message still shows a turn
    version: int = 0  # the table version `desired` was rendered from
    sending: int = 0  # ... and the one being sent now
    repost: bool = False  # the group's table message goes out anew at the bottom (`repost`)
    keep: Rendered | None = None  # the message shown stays, with this (`keep_private`)
    dropped: bool = False  # the group's table message was deleted (`drop_table`)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    resyncs: int = 0
