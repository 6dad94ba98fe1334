"""Scripted people: users and groups, what they write and tap, and the answers they get."""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Iterable

from bench.rig.telegram.html import bot_command_entities
from bench.rig.telegram.model import (
    ButtonNotFound,
    CallbackAnswer,
    ChatRef,
    FakeButton,
    FakeChat,
    FakeMessage,
    FakeUser,
    _CallbackQuery,
)
from bench.rig.telegram.observe import _Observed


class _People(_Observed):
    """Scripted people: they write, tap buttons and read the answers."""

    # ---------------------------------------------------------------- scripted people

    def user(
        self,
        id: int,
        first_name: str,
        username: str | None = None,
        last_name: str | None = None,
        *,
        language_code: str | None = "it",
    ) -> FakeUser:
        """Register a person; their private chat has ``chat_id == id``."""
        if id <= 0:
            raise ValueError("user ids are positive")
        user = FakeUser(id, first_name, username, last_name, language_code)
        with self._lock:
            self._users[id] = user
            self._chats[id] = FakeChat(id=id, type="private", user=user)
        return user

    def group(
        self,
        chat_id: int,
        title: str,
        admins: Iterable[FakeUser] = (),
        *,
        owner: FakeUser | None = None,
        members: Iterable[FakeUser] = (),
        username: str | None = None,
        bot_is_admin: bool = False,
        bot_is_member: bool = True,
    ) -> FakeChat:
        """A supergroup the bot is in (``chat_id`` negative, e.g. -1001234567890)."""
        if chat_id >= 0:
            raise ValueError("group chat ids are negative")
        chat = FakeChat(
            id=chat_id,
            type="supergroup",
            title=title,
            username=username,
            owner_id=owner.id if owner else None,
            admin_ids={a.id for a in admins},
            member_ids={m.id for m in members},
            bot_is_admin=bot_is_admin,
            bot_is_member=bot_is_member,  # False: the bot is added later (`add_bot_to`)
        )
        with self._lock:
            for person in [*([owner] if owner else []), *admins, *members]:
                self._users.setdefault(person.id, person)
            self._chats[chat_id] = chat
        return chat

    def set_admins(self, chat: ChatRef, admins: Iterable[FakeUser]) -> None:
        with self._lock:
            group = self._chats[self._chat_id(chat)]
            group.admin_ids = {a.id for a in admins}

    def add_bot_to(self, chat: ChatRef, by: FakeUser, *, as_admin: bool = False) -> None:
        """``by`` adds the bot to the group ``chat``: Telegram sends the bot a my_chat_member
        update (its status from "left" to "member", or "administrator") and the group gets
        the service message "``by`` added the bot" (a message update: bots see service
        messages even with privacy mode on)."""
        with self._lock:
            group = self._chat_for(chat)
            if group.type == "private":
                raise ValueError("bots are added to groups")
            old = self._member_api(group, self.bot_id)
            group.bot_is_member = True
            group.bot_is_admin = as_admin
            group.member_ids.add(by.id)
            self._users.setdefault(by.id, by)
            new = self._member_api(group, self.bot_id)
            payload = {
                "chat": group.to_api(),
                "from": by.to_api(),
                "date": int(time.time()),
                "old_chat_member": old,
                "new_chat_member": new,
            }
            note = self._service_message(
                group, "new_chat_members", from_user=by.to_api(), from_bot=False
            )
            data = self._message_api(note)
            data.pop("text", None)
            data["new_chat_members"] = [self._bot_user()]
            data["new_chat_member"] = self._bot_user()
            data["new_chat_participant"] = self._bot_user()
        self._enqueue("my_chat_member", payload)
        self._enqueue("message", data)

    def pinned(self, chat: ChatRef) -> list[int]:
        """The chat's pinned message ids, the newest last."""
        with self._lock:
            return list(self._chat_for(chat).pinned)

    def set_bot_admin(
        self, chat: ChatRef, is_admin: bool = True, *, by: FakeUser | None = None
    ) -> None:
        """Promote (or demote) the bot. With ``by`` (who did it), the bot gets the
        my_chat_member update Telegram sends when its rights change."""
        with self._lock:
            group = self._chats[self._chat_id(chat)]
            old = self._member_api(group, self.bot_id)
            group.bot_is_admin = is_admin
            new = self._member_api(group, self.bot_id)
            payload = {
                "chat": group.to_api(),
                "from": by.to_api() if by is not None else {},
                "date": int(time.time()),
                "old_chat_member": old,
                "new_chat_member": new,
            }
        if by is not None and old != new and group.bot_is_member:
            self._enqueue("my_chat_member", payload)

    def block_bot(self, user: FakeUser) -> None:
        """The user blocks the bot: sends to them fail with 403 until they write again."""
        with self._lock:
            self._blocked.add(user.id)

    def has_started(self, user: FakeUser) -> bool:
        with self._lock:
            return user.id in self._started

    async def send_text(
        self,
        user: FakeUser,
        chat: ChatRef,
        text: str,
        *,
        reply_to: FakeMessage | int | None = None,
    ) -> FakeMessage:
        """``user`` writes ``text`` in ``chat`` (a group, or the user for their private chat).

        ``/cmd@bot args`` gets its bot_command entity. A private message (the first one is
        /start in real clients) marks the user as having started the bot and unblocks it.
        In groups the user becomes a member; with privacy mode the bot only gets an update
        for commands and replies to its messages (unless it is admin).
        """
        with self._lock:
            if user.id not in self._users:
                self._users[user.id] = user
                self._chats.setdefault(user.id, FakeChat(id=user.id, type="private", user=user))
            target = self._chat_for(chat)
            if target.type == "private":
                if target.id != user.id:
                    raise ValueError(f"user {user.id} cannot write in the private chat {target.id}")
                self._started.add(user.id)
                self._blocked.discard(user.id)
            else:
                target.member_ids.add(user.id)
            reply_id = reply_to.message_id if isinstance(reply_to, FakeMessage) else reply_to
            if reply_id is not None and (target.id, reply_id) not in self._by_id:
                raise LookupError(f"no message {reply_id} in chat {target.id} to reply to")
            message = self._new_message(
                target,
                from_user=user.to_api(),
                from_bot=False,
                text=text,
                raw_text=text,
                parse_mode=None,
                entities=bot_command_entities(text),
                reply_to=reply_id,
            )
            message.seen_by_bot = self._bot_sees(target, message)
            if message.seen_by_bot:
                update = self._enqueue("message", self._message_api(message))
                if update is not None and text.startswith("/"):
                    self._command_updates.append((target.id, update))
            return copy.deepcopy(message)

    def _bot_sees(self, chat: FakeChat, message: FakeMessage) -> bool:
        if chat.type == "private" or not self.privacy_mode or chat.bot_is_admin:
            return True
        if message.reply_to_message_id is not None:
            replied = self._by_id.get((chat.id, message.reply_to_message_id))
            if replied is not None and replied.from_bot:
                return True
        first = message.entities[0] if message.entities else None
        if first is not None and first["type"] == "bot_command" and first["offset"] == 0:
            command = message.text.encode("utf-16-le")[: first["length"] * 2].decode("utf-16-le")
            _, _, addressee = command.partition("@")
            return not addressee or addressee.lower() == self.bot_username.lower()
        return False

    async def press(
        self, user: FakeUser, target: FakeMessage | FakeButton, callback_data: str | None = None
    ) -> str:
        """``user`` presses an inline button; returns the callback_query id.

        ``target`` is a message (then ``callback_data`` names the button) or a
        :class:`FakeButton`. The button must be on the message's *current* keyboard, else
        :class:`ButtonNotFound`.
        """
        if isinstance(target, FakeButton):
            data = callback_data if callback_data is not None else target.callback_data
        else:
            data = callback_data
        if data is None:
            raise ValueError("which button? give callback_data")
        with self._lock:
            message = self._by_id.get((target.chat_id, target.message_id))
            if message is None or message.deleted:
                raise ButtonNotFound(
                    f"message {target.message_id} in chat {target.chat_id} does not exist"
                )
            if data not in [b.callback_data for b in message.buttons]:
                raise ButtonNotFound(
                    f"no button with callback_data={data!r} on message {message.message_id} "
                    f"in chat {message.chat_id}; current keyboard: "
                    f"{[(b.text, b.callback_data) for b in message.buttons]}"
                )
            return self._callback_query(user, message.chat_id, message.message_id, data)

    async def press_raw(self, user: FakeUser, chat: ChatRef, message_id: int, data: str) -> str:
        """A forged callback query (any data, any message id: a tampered client)."""
        with self._lock:
            return self._callback_query(user, self._chat_id(chat), message_id, data)

    def _callback_query(self, user: FakeUser, chat_id: int, message_id: int, data: str) -> str:
        chat = self._chat_for(chat_id)
        if chat.type == "private" and chat.id != user.id:
            raise ValueError(f"user {user.id} cannot press buttons in private chat {chat.id}")
        if chat.type != "private":
            chat.member_ids.add(user.id)
        self._users.setdefault(user.id, user)
        message = self._by_id.get((chat_id, message_id))
        if message is not None and not message.deleted:
            message_api = self._message_api(message)
        else:  # InaccessibleMessage
            message_api = {"chat": chat.to_api(), "message_id": message_id, "date": 0}
        query_id = str(next(self._query_ids))
        query = self._queries[query_id] = _CallbackQuery(
            id=query_id,
            user_id=user.id,
            chat_id=chat_id,
            message_id=message_id,
            data=data,
            created_at=self._clock(),
        )
        query.update = self._enqueue(
            "callback_query",
            {
                "id": query_id,
                "from": user.to_api(),
                "message": message_api,
                "chat_instance": str(abs(chat_id) * 7919 % 10**18),
                "data": data,
            },
        )
        return query_id

    async def answer_for(
        self, callback_query_id: str, timeout: float = 10.0, *, settle: float = 0.0
    ) -> CallbackAnswer:
        """What the bot's answerCallbackQuery said; waits for it up to ``timeout`` seconds.

        Raises AssertionError if the bot answered (tried to) more than once, also when that
        happens within ``settle`` seconds after the first answer.
        """
        with self._lock:
            if callback_query_id not in self._queries:
                raise KeyError(f"unknown callback query {callback_query_id}")
        query = self._queries[callback_query_id]
        await self.wait_for(
            lambda: query.attempts > 0,
            timeout,
            message=f"callback query {callback_query_id} was never answered",
        )
        if settle:
            await asyncio.sleep(settle)
        with self._lock:
            if query.attempts > 1:
                raise AssertionError(
                    f"callback query {callback_query_id} was answered {query.attempts} times"
                )
            if not query.answers:
                raise AssertionError(f"answering callback query {callback_query_id} failed")
            return query.answers[0]

    def answer_attempts(self, callback_query_id: str) -> int:
        with self._lock:
            return self._queries[callback_query_id].attempts

    def answers_to(self, callback_query_id: str) -> list[CallbackAnswer]:
        """The accepted answers to a callback query so far (none or one), without waiting.

        KeyError for an id :meth:`press`/:meth:`press_raw` never returned.
        """
        with self._lock:
            return list(self._queries[callback_query_id].answers)
