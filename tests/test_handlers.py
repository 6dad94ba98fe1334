"""How the handlers are put together. The guards (`handlers.common`): a handler runs only with
the chat (and the person) it needs, else nothing happens; a group's command in a private chat
gets the refusal, in the chat's language, and runs nothing (the updates and the chat are
stand-ins that record what the guard hands over and what is sent). The taps: each kind of
button data is routed by exactly one feature."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any, cast

from telegram import Chat, Update, User

from bot.i18n import t
from bot.telegram.context import BotContext
from bot.view import callback_data as cb
from handlers import callbacks, league, tournament
from handlers.common import group_only, with_chat, with_sender

GROUP, PRIVATE = Chat.SUPERGROUP, Chat.PRIVATE


class FakeChat:
    def __init__(self, kind: str, chat_id: int) -> None:
        self.type, self.id = kind, chat_id
        self.sent: list[str] = []

    async def send_message(self, text: str, **_: Any) -> None:
        self.sent.append(text)


class FakeLangs:
    async def chat(self, chat_id: int) -> str:
        return "en"


class FakeService:
    langs = FakeLangs()


def update(chat: FakeChat | None, user: object | None) -> Update:
    return cast(
        Update, SimpleNamespace(effective_chat=chat, effective_user=user, effective_message=None)
    )


CONTEXT = cast(BotContext, SimpleNamespace(service=FakeService()))
ANA = SimpleNamespace(id=7)


class Calls:
    def __init__(self) -> None:
        self.seen: list[tuple[object, ...]] = []

    async def in_chat(self, update: Update, context: BotContext, chat: Chat) -> None:
        self.seen.append((chat,))

    async def by_sender(self, update: Update, context: BotContext, chat: Chat, user: User) -> None:
        self.seen.append((chat, user))


async def test_with_chat_runs_the_handler_only_with_a_chat() -> None:
    calls, chat = Calls(), FakeChat(PRIVATE, 7)
    handler = with_chat(calls.in_chat)
    await handler(update(None, ANA), CONTEXT)
    assert calls.seen == []
    await handler(update(chat, None), CONTEXT)  # a channel's post: no person, a chat
    assert calls.seen == [(chat,)]


async def test_with_sender_needs_the_chat_and_the_person() -> None:
    calls, chat = Calls(), FakeChat(GROUP, -100)
    handler = with_sender(calls.by_sender)
    await handler(update(None, ANA), CONTEXT)
    await handler(update(chat, None), CONTEXT)
    assert calls.seen == [] and chat.sent == []
    await handler(update(chat, ANA), CONTEXT)
    assert calls.seen == [(chat, ANA)]


async def test_group_only_refuses_a_private_chat_and_runs_in_a_group() -> None:
    calls, private, group = Calls(), FakeChat(PRIVATE, 7), FakeChat(GROUP, -100)
    handler = group_only(calls.by_sender)
    await handler(update(private, ANA), CONTEXT)
    assert private.sent == [t("en", "err_group_only")] and calls.seen == []
    await handler(update(private, None), CONTEXT)  # no person: not even the refusal
    assert private.sent == [t("en", "err_group_only")]
    await handler(update(group, ANA), CONTEXT)
    assert calls.seen == [(group, ANA)] and group.sent == []


def test_each_kind_of_tap_is_routed_by_one_feature_and_kinds_are_the_features_own() -> None:
    """Every `CB_*` pattern has one route; and no two features share the data's first field
    (its kind), so the order in which `handlers.register` adds the features' taps cannot
    change which one answers."""
    features = {"table": callbacks.TAPS, "tournament": tournament.TAPS, "league": league.TAPS}
    routed = [pattern for taps in features.values() for pattern, _ in taps]
    patterns = [v for k, v in vars(cb).items() if k.startswith("CB_") and isinstance(v, re.Pattern)]
    assert sorted(p.pattern for p in routed) == sorted(p.pattern for p in patterns)
    kinds = {name: {p.pattern.split(":")[0] for p, _ in taps} for name, taps in features.items()}
    assert kinds["tournament"] == {"T"} and kinds["league"] == {"L"}
    assert not kinds["table"] & (kinds["tournament"] | kinds["league"])
