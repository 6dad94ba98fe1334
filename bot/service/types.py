"""The service's shared types: who acts (`Person`), what a handler gets back (`Reply`, a
refusal by `refusal`, in the language of `reply_lang`), and what the service needs from outside:
Telegram's messages (`Outbox`, told where a table's messages are by a `TableRef`, never given
the `Table` itself), one timer per table (`Timers`), whether someone is a group admin
(`AdminCheck`, asked by `group_admin`).

The context variables of the service are the two below, and only those: `APPLYING_UPDATE`
(the webhook update being applied) and `REPLY_LANG` (the language of a reply that reaches one
person alone). Both say something about the update being handled that every write or reply on
its path needs, deep below the handler that knows it, and that no table or person carries:
passed as arguments they would run through nearly every method of the service. Everything
else is passed where it is used.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from bot.i18n import t
from bot.table.table import CANCELLED, FINISHED, Table, TableError
from bot.view.render import Keyboard, Rendered

# The webhook update being applied (webhook mode, `bot.telegram.webhook`): a change it makes
# marks it done in the same transaction, so a copy delivered again after a crash is never
# applied twice. None when polling (PTB's updater hands each update out once).
APPLYING_UPDATE: ContextVar[int | None] = ContextVar("applying_update", default=None)

# The language of the person an update comes from, when what the service answers reaches
# them alone (a tap's answer, a reply in their private chat): their /lang, else their Telegram
# language. Set by the handlers (`handlers.common.in_their_language`); None for a command in a
# group, whose reply everybody reads in the group's language.
REPLY_LANG: ContextVar[str | None] = ContextVar("reply_lang", default=None)


def reply_lang(lang: str) -> str:
    """The language of a reply to the person who acted: theirs when the reply reaches them
    alone (a tap's answer, a private chat: `REPLY_LANG`), else `lang` (a reply in the group,
    which everybody reads)."""
    return REPLY_LANG.get() or lang


@dataclass(frozen=True, slots=True)
class Person:
    user_id: int
    name: str
    lang: str | None = None  # from their Telegram language (it or en), None if unknown


@dataclass(frozen=True, slots=True)
class Reply:
    """What a handler sends back: a message (commands) or a callback answer (buttons)."""

    text: str
    keyboard: Keyboard | None = None
    alert: bool = False
    repost: int | None = None  # re-post this table's message below the reply (`repost`)
    key: str = ""  # the `bot.i18n` key of the outcome, for callers to compare (not `text`)
    # what a message with buttons shows, for the service to keep it true once sent
    # (`League.shown`: ("beer", epoch, version) or ("undo", entry))
    live: tuple[Any, ...] | None = None


def refusal(lang: str, exc: TableError) -> Reply:
    """The answer to an action refused (`exc`), in the language of the reply."""
    return Reply(
        t(reply_lang(lang), exc.key, **exc.kw),
        alert=exc.key.startswith("err_option"),
        key=exc.key,
    )


# Whether the person is an admin of the group: asked only when it matters (they are not the
# table's creator), since asking Telegram spends the group's call budget.
AdminCheck = Callable[[], Awaitable[bool]]


async def group_admin(is_admin: bool | AdminCheck) -> bool:
    """Whether the person is a group admin: said, or asked now."""
    return is_admin if isinstance(is_admin, bool) else await is_admin()


@dataclass(frozen=True, slots=True)
class TableRef:
    """What the outbox knows of a table (`Outbox`), as it was when the service asked: plain
    data, read from the `Table` by `of`, never the table itself. Each call brings a new one;
    the outbox keeps the latest. A new table message the outbox posts is told back to the
    service (`TelegramOutbox.on_table_message`), never written into a table."""

    table_id: int
    chat_id: int  # the group
    lang: str  # the group's language (the text of a message replaced by a new one)
    version: int  # `Table.move_no`: what the content given with it was rendered from
    ended: bool  # finished or cancelled: the outbox forgets the table once its last content is out
    pin: bool  # the group's table message is pinned, a new one too
    table_message_id: int | None  # the group's table message, as the service knows it

    @classmethod
    def of(cls, table: Table) -> TableRef:
        return cls(
            table_id=table.table_id,
            chat_id=table.chat_id,
            lang=table.lang,
            version=table.move_no,
            ended=table.status in (FINISHED, CANCELLED),
            pin=table.pin,
            table_message_id=table.table_message_id,
        )


class Outbox(Protocol):
    def show_table(
        self,
        table: TableRef,
        content: Rendered,
        *,
        urgent: bool = False,
        routine: bool = False,
        moment: str = "",
    ) -> None: ...

    def repost(self, table: TableRef, content: Rendered) -> None: ...

    async def pin(self, table: TableRef) -> None: ...

    def show_private(
        self,
        table: TableRef,
        user_id: int,
        content: Rendered,
        *,
        urgent: bool = False,
        turn: str | None = None,
        settle: bool = False,
    ) -> None: ...

    def sweep(self, table: TableRef) -> None: ...

    async def say(self, chat_id: int, text: str, keyboard: Keyboard | None = None) -> bool:
        """A new message; False only if the bot is stopping and it was not sent."""
        ...

    async def edit(self, chat_id: int, message_id: int, content: Rendered) -> None: ...

    def edit_soon(self, chat_id: int, message_id: int, content: Rendered) -> None: ...

    async def post(self, chat_id: int, content: Rendered) -> int | None: ...

    async def announce(
        self, chat_id: int, content: Rendered, *, silent: bool = False
    ) -> int | None: ...

    def delete_soon(self, chat_id: int, message_ids: list[int]) -> None: ...

    def keep_private(self, table: TableRef, user_id: int, content: Rendered) -> None: ...

    def drop_table(self, table: TableRef) -> None: ...

    async def clear_buttons(self, chat_id: int, message_id: int) -> None: ...

    async def preload(self, tables: list[TableRef]) -> None: ...

    def unblock(self, user_id: int) -> None: ...

    async def flush(self) -> None: ...


class Live(Protocol):
    """The Mini App's open pages (`bot.webapp.hub.LiveHub`): told of every render; says
    whether a person has a visible page of a table open (then their private chat is quiet
    for that table)."""

    def publish(self, table: Table) -> None: ...

    def visible(self, table_id: int, user_id: int) -> bool: ...


class Timers(Protocol):
    def start(self, table_id: int, seconds: float, token: str) -> None: ...

    def cancel(self, table_id: int) -> None: ...
