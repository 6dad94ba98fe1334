"""The Bot API methods, answered as Telegram answers them."""

from __future__ import annotations

import copy
import json
import re
import time
from typing import Any

from bench.rig.telegram.html import _trim, parse_html
from bench.rig.telegram.model import (
    _COMMAND_RE,
    ALL_UPDATE_TYPES,
    CANT_INITIATE,
    DELETE_MAX_AGE,
    INLINE_BUTTON_ACTIONS,
    MAX_CALLBACK_ANSWER_LENGTH,
    MAX_CALLBACK_DATA_BYTES,
    MAX_CAPTION_LENGTH,
    MAX_INLINE_BUTTONS,
    MAX_MESSAGE_LENGTH,
    NOT_MODIFIED,
    QUERY_TOO_OLD,
    CallbackAnswer,
    EntityParseError,
    FakeChat,
    FakeFile,
    FakeMessage,
    Handler,
    JSONDict,
    _bad,
    _copy_json,
    _forbidden,
    _Upload,
)
from bench.rig.telegram.server import _Server


class _BotApi(_Server):
    """The Bot API methods the bot calls."""

    def _methods(self) -> dict[str, Handler]:
        handlers: dict[str, Handler] = {
            "getMe": self._get_me,
            "logOut": self._true,
            "close": self._true,
            "deleteWebhook": self._delete_webhook,
            "setWebhook": self._set_webhook,
            "getWebhookInfo": self._get_webhook_info,
            "sendMessage": self._send_message,
            "sendDocument": self._send_document,
            "sendPhoto": self._send_photo,
            "editMessageText": self._edit_message_text,
            "editMessageReplyMarkup": self._edit_message_reply_markup,
            "deleteMessage": self._delete_message,
            "deleteMessages": self._delete_messages,
            "answerCallbackQuery": self._answer_callback_query,
            "getChat": self._get_chat,
            "getChatMember": self._get_chat_member,
            "getChatAdministrators": self._get_chat_administrators,
            "getChatMemberCount": self._get_chat_member_count,
            "setMyCommands": self._set_my_commands,
            "getMyCommands": self._get_my_commands,
            "deleteMyCommands": self._delete_my_commands,
            "sendChatAction": self._send_chat_action,
            "pinChatMessage": self._pin_chat_message,
            "unpinChatMessage": self._unpin_chat_message,
        }
        for name in ("setMyDescription", "setMyShortDescription", "setMyName", "setChatMenuButton"):
            handlers[name] = self._setting_handler(name)
        return handlers

    # ---------------------------------------------------------------- method handlers

    def _bot_user(self) -> JSONDict:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_first_name,
            "username": self.bot_username,
        }

    def _get_me(self, params: JSONDict) -> JSONDict:
        return {
            **self._bot_user(),
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def _true(self, params: JSONDict) -> bool:
        return True

    def _delete_webhook(self, params: JSONDict) -> bool:
        self._webhook_deleted_description = (
            "Webhook was deleted" if self._webhook_url else "Webhook is already deleted"
        )
        self._webhook_url = self._webhook_secret = ""
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    def _set_webhook(self, params: JSONDict) -> bool:
        url = str(params.get("url") or "")
        if url and not url.startswith("https://"):
            raise _bad("bad webhook: An HTTPS URL must be provided for webhook")
        secret = str(params.get("secret_token") or "")
        if secret and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret):
            raise _bad("bad webhook: secret token contains unallowed characters")
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list) and allowed:
            self._allowed_updates = frozenset(str(a) for a in allowed) & ALL_UPDATE_TYPES
        self._webhook_url, self._webhook_secret = url, secret
        if params.get("drop_pending_updates"):
            self._updates.clear()
        self._deliver_soon()
        return True

    def _get_webhook_info(self, params: JSONDict) -> JSONDict:
        return {
            "url": self._webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }

    def _check_can_write(self, chat: FakeChat) -> None:
        if chat.type == "private":
            if chat.id in self._blocked:
                raise _forbidden("bot was blocked by the user")
            if chat.id not in self._started:
                raise _forbidden(CANT_INITIATE)
        elif not chat.bot_is_member:
            raise _forbidden(f"bot was kicked from the {chat.type} chat")

    def _format_text(self, params: JSONDict) -> tuple[str, str, str | None, list[JSONDict]]:
        """(plain text, raw text, parse_mode, entities) or the Bot API's 400."""
        raw = params.get("text")
        if raw is None or str(raw) == "":
            raise _bad("message text is empty")
        raw = str(raw)
        parse_mode = params.get("parse_mode") or None
        explicit = params.get("entities")
        if explicit is not None:
            if not isinstance(explicit, list):
                raise _bad("can't parse entities JSON object")
            text, entities = raw, [dict(e) for e in explicit if isinstance(e, dict)]
            parse_mode = None
        elif parse_mode is None:
            text, entities = raw, []
        elif str(parse_mode).lower() == "html":
            try:
                text, entities = parse_html(raw, strict_ampersand=self.strict_html_ampersand)
            except EntityParseError as err:
                raise _bad(f"can't parse entities: {err}") from None
        elif str(parse_mode).lower() in ("markdown", "markdownv2"):
            text, entities = raw, []  # not validated by this fake
        else:
            raise _bad("unsupported parse_mode")
        text, entities = _trim(text, entities)
        entities = [m for e in entities if (m := self._mention(e)) is not None]
        if not text:
            raise _bad("message text is empty")
        if len(text) > MAX_MESSAGE_LENGTH:
            raise _bad("message is too long")
        return text, raw, parse_mode, entities

    def _mention(self, entity: JSONDict) -> JSONDict | None:
        """An inline link to tg://user?id=<id> mentions that user: Telegram turns it into a
        "text_mention" entity carrying the user (and notifies them). Only a user Telegram
        lets the bot mention becomes one (this fake: one it knows); otherwise the link is
        dropped and the text stays plain."""
        url = entity.get("url") or ""
        if entity.get("type") != "text_link" or not url.startswith("tg://user?id="):
            return entity
        user_id = url.removeprefix("tg://user?id=")
        user = self._users.get(int(user_id)) if user_id.isdigit() else None
        if user is None:
            return None
        return {
            "type": "text_mention",
            "offset": entity["offset"],
            "length": entity["length"],
            "user": user.to_api(),
        }

    @staticmethod
    def _validate_markup(markup: Any) -> JSONDict | None:
        """Validate reply_markup; returns it (inline or not) or None."""
        if markup is None:
            return None
        if not isinstance(markup, dict):
            raise _bad("can't parse reply keyboard markup JSON object")
        if "inline_keyboard" not in markup:
            return markup
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise _bad(
                'can\'t parse inline keyboard button: Field "inline_keyboard" of the '
                "InlineKeyboardMarkup must be an Array of Arrays"
            )
        if sum(len(row) for row in rows) > MAX_INLINE_BUTTONS:
            raise _bad("reply markup is too long")
        for row in rows:
            for button in row:
                if not isinstance(button, dict):
                    raise _bad(
                        "can't parse inline keyboard button: InlineKeyboardButton must be an Object"
                    )
                if not isinstance(button.get("text"), str):
                    raise _bad('can\'t parse inline keyboard button: Field "text" must be a String')
                actions = [a for a in INLINE_BUTTON_ACTIONS if a in button]
                if not actions:
                    raise _bad(
                        "can't parse inline keyboard button: "
                        "Text buttons are unallowed in the inline keyboard"
                    )
                if "callback_data" in button:
                    data = button["callback_data"]
                    size = len(str(data).encode("utf-8"))
                    if not isinstance(data, str) or not 1 <= size <= MAX_CALLBACK_DATA_BYTES:
                        raise _bad("BUTTON_DATA_INVALID")
                if "url" in button:
                    url = str(button["url"])
                    if not re.match(r"(https?|tg)://\S+", url):
                        raise _bad("BUTTON_URL_INVALID")
        return markup

    def _new_message(
        self,
        chat: FakeChat,
        *,
        from_user: JSONDict,
        from_bot: bool,
        text: str,
        raw_text: str,
        parse_mode: str | None,
        entities: list[JSONDict],
        markup: JSONDict | None = None,
        reply_to: int | None = None,
    ) -> FakeMessage:
        message_id = self._next_message_id.get(chat.id, 1)
        self._next_message_id[chat.id] = message_id + 1
        inline = markup if markup is not None and "inline_keyboard" in markup else None
        message = FakeMessage(
            chat_id=chat.id,
            message_id=message_id,
            date=int(time.time()),
            from_user=from_user,
            from_bot=from_bot,
            text=text,
            raw_text=raw_text,
            parse_mode=parse_mode,
            entities=entities,
            reply_markup=_copy_json(inline),
            other_markup=None if inline is not None else _copy_json(markup),
            reply_to_message_id=reply_to,
            versions=[text],
        )
        self._messages.setdefault(chat.id, []).append(message)
        self._by_id[(chat.id, message_id)] = message
        return message

    def _service_message(
        self,
        chat: FakeChat,
        service: str,
        *,
        from_user: JSONDict,
        from_bot: bool,
        reply_to: int | None = None,
    ) -> FakeMessage:
        """A service message (a pin, a member added): no text of its own."""
        note = self._new_message(
            chat,
            from_user=from_user,
            from_bot=from_bot,
            text="",
            raw_text="",
            parse_mode=None,
            entities=[],
            reply_to=reply_to,
        )
        note.service = service
        return note

    def _message_api(self, message: FakeMessage, *, with_reply: bool = True) -> JSONDict:
        data: JSONDict = {
            "message_id": message.message_id,
            "from": _copy_json(message.from_user),
            "chat": self._chats[message.chat_id].to_api(),
            "date": message.date,
        }
        if message.edit_date is not None:
            data["edit_date"] = message.edit_date
        if with_reply and message.reply_to_message_id is not None:
            replied = self._by_id.get((message.chat_id, message.reply_to_message_id))
            if replied is not None and not replied.deleted:
                data["reply_to_message"] = self._message_api(replied, with_reply=False)
        if message.document is not None or message.photo is not None:
            if message.document is not None:
                data["document"] = self._file_api(message.document)
            if message.photo is not None:
                size = {**self._file_api(message.photo), "width": 640, "height": 480}
                del size["file_name"]
                data["photo"] = [size]
            if message.text:
                data["caption"] = message.text
            if message.entities:
                data["caption_entities"] = _copy_json(message.entities)
        else:
            data["text"] = message.text
            if message.entities:
                data["entities"] = _copy_json(message.entities)
        if message.reply_markup is not None:
            data["reply_markup"] = _copy_json(message.reply_markup)
        return data

    def _reply_target(self, chat: FakeChat, params: JSONDict) -> int | None:
        reply = params.get("reply_parameters")
        message_id: Any = None
        allow_missing = bool(params.get("allow_sending_without_reply"))
        if isinstance(reply, dict):
            message_id = reply.get("message_id")
            allow_missing = allow_missing or bool(reply.get("allow_sending_without_reply"))
        elif params.get("reply_to_message_id") is not None:
            message_id = params["reply_to_message_id"]
        if message_id is None:
            return None
        target = self._by_id.get((chat.id, int(message_id)))
        if target is None or target.deleted:
            if allow_missing:
                return None
            raise _bad("message to be replied not found")
        return int(message_id)

    def _send_message(self, params: JSONDict) -> JSONDict:
        chat = self._chat_from_param(params.get("chat_id"))
        text, raw, parse_mode, entities = self._format_text(params)
        markup = self._validate_markup(params.get("reply_markup"))
        self._check_can_write(chat)
        message = self._bot_message(chat, params, text, raw, parse_mode, entities, markup)
        return self._message_api(message)

    def _bot_message(
        self,
        chat: FakeChat,
        params: JSONDict,
        text: str,
        raw: str,
        parse_mode: str | None,
        entities: list[JSONDict],
        markup: JSONDict | None,
    ) -> FakeMessage:
        """A message the bot sends to `chat` (sendMessage, sendDocument, sendPhoto), a reply
        where `params` ask for one."""
        reply_to = self._reply_target(chat, params)
        return self._new_message(
            chat,
            from_user=self._bot_user(),
            from_bot=True,
            text=text,
            raw_text=raw,
            parse_mode=parse_mode,
            entities=entities,
            markup=markup,
            reply_to=reply_to,
        )

    @staticmethod
    def _file_api(file: FakeFile) -> JSONDict:
        data: JSONDict = {
            "file_id": file.file_id,
            "file_unique_id": file.file_unique_id,
            "file_name": file.filename,
            "file_size": len(file.data),
        }
        if file.mime_type:
            data["mime_type"] = file.mime_type
        return data

    def _upload(self, params: JSONDict, field_name: str) -> FakeFile:
        """The file of sendDocument/sendPhoto: a multipart upload or a known file_id."""
        value = params.get(field_name)
        if isinstance(value, _Upload):
            unique = f"U{len(self._files) + 1:06d}"
            name = str(value["filename"])
            mime = "image/png" if name.lower().endswith(".png") else None
            if name.lower().endswith((".csv", ".txt")):
                mime = "text/csv" if name.lower().endswith(".csv") else "text/plain"
            elif name.lower().endswith(".json"):
                mime = "application/json"
            file = FakeFile(f"F{field_name}{unique}", unique, name, value.data, mime)
            self._files[file.file_id] = file
            return file
        if isinstance(value, str) and value in self._files:
            return self._files[value]
        if value is None or value == "":
            raise _bad(f"there is no {field_name} in the request")
        raise _bad("wrong file identifier/HTTP URL specified")

    def _send_file(self, params: JSONDict, field_name: str) -> JSONDict:
        chat = self._chat_from_param(params.get("chat_id"))
        caption = params.get("caption")
        entities: list[JSONDict] = []
        text, raw, parse_mode = "", "", None
        if caption is not None and str(caption) != "":
            text, raw, parse_mode, entities = self._format_text({**params, "text": caption})
            if len(text) > MAX_CAPTION_LENGTH:
                raise _bad("message caption is too long")
        markup = self._validate_markup(params.get("reply_markup"))
        self._check_can_write(chat)
        file = self._upload(params, field_name)
        message = self._bot_message(chat, params, text, raw, parse_mode, entities, markup)
        if field_name == "photo":
            message.photo = file
        else:
            message.document = file
        return self._message_api(message)

    def _send_document(self, params: JSONDict) -> JSONDict:
        return self._send_file(params, "document")

    def _send_photo(self, params: JSONDict) -> JSONDict:
        return self._send_file(params, "photo")

    def _message_to_edit(self, params: JSONDict, *, what: str = "edit") -> FakeMessage:
        if params.get("inline_message_id"):
            raise _bad("MESSAGE_ID_INVALID")
        chat = self._chat_from_param(params.get("chat_id"))
        message_id = params.get("message_id")
        if message_id is None:
            raise _bad("message identifier is not specified")
        message = self._by_id.get((chat.id, int(message_id)))
        if message is None or message.deleted:
            raise _bad(f"message to {what} not found")
        return message

    def _apply_edit(
        self,
        message: FakeMessage,
        text: str,
        raw: str,
        parse_mode: str | None,
        entities: list[JSONDict],
        markup: JSONDict | None,
    ) -> JSONDict:
        if markup is not None and "inline_keyboard" not in markup:
            raise _bad("inline keyboard expected")
        if (
            text == message.text
            and entities == message.entities
            and (markup or None) == message.reply_markup
        ):
            raise _bad(NOT_MODIFIED)
        if text != message.text:
            message.versions.append(text)
        message.text, message.raw_text, message.parse_mode = text, raw, parse_mode
        message.entities = entities
        message.reply_markup = _copy_json(markup)
        message.edit_date = int(time.time())
        message.edited += 1
        return self._message_api(message)

    def _edit_message_text(self, params: JSONDict) -> JSONDict:
        message = self._message_to_edit(params)
        text, raw, parse_mode, entities = self._format_text(params)
        markup = self._validate_markup(params.get("reply_markup"))
        if not message.from_bot:
            raise _bad("message can't be edited")
        if message.document is not None or message.photo is not None:
            raise _bad("there is no text in the message to edit")
        # Without reply_markup, Telegram removes the message's inline keyboard.
        return self._apply_edit(message, text, raw, parse_mode, entities, markup)

    def _edit_message_reply_markup(self, params: JSONDict) -> JSONDict:
        message = self._message_to_edit(params)
        markup = self._validate_markup(params.get("reply_markup"))
        if not message.from_bot:
            raise _bad("message can't be edited")
        return self._apply_edit(
            message, message.text, message.raw_text, message.parse_mode, message.entities, markup
        )

    def _delete_message(self, params: JSONDict) -> bool:
        message = self._message_to_edit(params, what="delete")
        refusal = self._why_not_deleted(message)
        if refusal:
            raise _bad(refusal)
        self._remove(message)
        return True

    def _delete_messages(self, params: JSONDict) -> bool:
        """Bot API deleteMessages: 1-100 ids of one chat; those that cannot be found, or
        cannot be deleted (deleteMessage's limits), are skipped."""
        chat = self._chat_from_param(params.get("chat_id"))
        ids = params.get("message_ids")
        if not isinstance(ids, list) or not ids:
            raise _bad("message identifiers are not specified")
        if len(ids) > 100:
            raise _bad("too many message identifiers specified")
        if not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
            raise _bad("message identifiers must be integers")
        for message_id in ids:
            message = self._by_id.get((chat.id, message_id))
            if message is not None and not message.deleted and not self._why_not_deleted(message):
                self._remove(message)
        return True

    def _why_not_deleted(self, message: FakeMessage) -> str | None:
        chat = self._chats[message.chat_id]
        if not message.from_bot and chat.type != "private" and not chat.bot_is_admin:
            return "message can't be deleted"
        # Bot API: "a message can only be deleted if it was sent less than 48 hours ago"
        if time.time() - message.date >= DELETE_MAX_AGE:
            return "message can't be deleted for everyone"
        return None

    def _remove(self, message: FakeMessage) -> None:
        chat = self._chats[message.chat_id]
        message.deleted = True
        if message.message_id in chat.pinned:  # a deleted message is no longer pinned
            chat.pinned.remove(message.message_id)

    def _answer_callback_query(self, params: JSONDict) -> bool:
        query = self._queries.get(str(params.get("callback_query_id") or ""))
        if query is None:
            raise _bad(QUERY_TOO_OLD)
        query.attempts += 1
        expired = (
            self.callback_query_ttl is not None
            and self._clock() - query.created_at > self.callback_query_ttl
        )
        if query.answers or expired:
            raise _bad(QUERY_TOO_OLD)
        text = params.get("text")
        if text is not None and len(str(text)) > MAX_CALLBACK_ANSWER_LENGTH:
            raise _bad("MESSAGE_TOO_LONG")
        cache_time = params.get("cache_time")
        query.answers.append(
            CallbackAnswer(
                text=None if text is None else str(text),
                show_alert=bool(params.get("show_alert")),
                url=params.get("url"),
                cache_time=None if cache_time is None else int(cache_time),
            )
        )
        query.answered_at = self._arrival
        return True

    def _get_chat(self, params: JSONDict) -> JSONDict:
        chat = self._chat_from_param(params.get("chat_id"))
        return {
            **chat.to_api(),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }

    def _member_api(self, chat: FakeChat, user_id: int) -> JSONDict:
        if user_id == self.bot_id:
            user = self._bot_user()
            if chat.type != "private" and chat.bot_is_admin:
                return self._admin_api(user)
            return {"status": "member" if chat.bot_is_member else "left", "user": user}
        fake_user = self._users.get(user_id)
        if fake_user is None:
            raise _bad("user not found")
        user = fake_user.to_api()
        if chat.type == "private":
            status = "member" if user_id == chat.id else "left"
            return {"status": status, "user": user}
        if user_id == chat.owner_id:
            return {"status": "creator", "user": user, "is_anonymous": False}
        if user_id in chat.admin_ids:
            return self._admin_api(user)
        if user_id in chat.member_ids:
            return {"status": "member", "user": user}
        return {"status": "left", "user": user}

    @staticmethod
    def _admin_api(user: JSONDict) -> JSONDict:
        return {
            "status": "administrator",
            "user": user,
            "can_be_edited": False,
            "is_anonymous": False,
            "can_manage_chat": True,
            "can_delete_messages": True,
            "can_manage_video_chats": True,
            "can_restrict_members": True,
            "can_promote_members": False,
            "can_change_info": True,
            "can_invite_users": True,
            "can_post_stories": False,
            "can_edit_stories": False,
            "can_delete_stories": False,
            "can_pin_messages": True,
            "can_manage_topics": False,
        }

    def _get_chat_member(self, params: JSONDict) -> JSONDict:
        chat = self._chat_from_param(params.get("chat_id"))
        user_id = params.get("user_id")
        if user_id is None:
            raise _bad("user_id is empty")
        return self._member_api(chat, int(user_id))

    def _get_chat_administrators(self, params: JSONDict) -> list[JSONDict]:
        chat = self._chat_from_param(params.get("chat_id"))
        if chat.type == "private":
            raise _bad("there are no administrators in the private chat")
        ids = ([chat.owner_id] if chat.owner_id is not None else []) + sorted(chat.admin_ids)
        admins = [self._member_api(chat, uid) for uid in dict.fromkeys(ids)]
        if chat.bot_is_admin:
            admins.append(self._admin_api(self._bot_user()))
        return admins

    def _get_chat_member_count(self, params: JSONDict) -> int:
        chat = self._chat_from_param(params.get("chat_id"))
        if chat.type == "private":
            return 2
        humans = chat.member_ids | chat.admin_ids
        if chat.owner_id is not None:
            humans = humans | {chat.owner_id}
        return len(humans) + (1 if chat.bot_is_member else 0)

    @staticmethod
    def _scope_key(params: JSONDict) -> tuple[str, str]:
        scope = params.get("scope") or {"type": "default"}
        if not isinstance(scope, dict) or "type" not in scope:
            raise _bad("can't parse BotCommandScope JSON object")
        return json.dumps(scope, sort_keys=True), str(params.get("language_code") or "")

    def _set_my_commands(self, params: JSONDict) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list):
            raise _bad("can't parse commands JSON object")
        cleaned: list[JSONDict] = []
        for command in commands:
            if not isinstance(command, dict) or not _COMMAND_RE.fullmatch(
                str(command.get("command", ""))
            ):
                raise _bad("BOT_COMMAND_INVALID")
            description = str(command.get("description", ""))
            if not 1 <= len(description) <= 256:
                raise _bad("BOT_COMMAND_DESCRIPTION_INVALID")
            cleaned.append({"command": command["command"], "description": description})
        self._commands[self._scope_key(params)] = cleaned
        return True

    def _get_my_commands(self, params: JSONDict) -> list[JSONDict]:
        return copy.deepcopy(self._commands.get(self._scope_key(params), []))

    def _delete_my_commands(self, params: JSONDict) -> bool:
        self._commands.pop(self._scope_key(params), None)
        return True

    def _pin_chat_message(self, params: JSONDict) -> bool:
        """pinChatMessage: in a group only an admin with can_pin_messages (this fake's admin
        bot has it) may pin; the group then shows a service message from the bot, which
        notifies nobody with disable_notification."""
        chat = self._chat_from_param(params.get("chat_id"))
        if params.get("message_id") is None:
            raise _bad("message identifier is not specified")
        if chat.type != "private" and not chat.bot_is_admin:
            raise _bad("not enough rights to manage pinned messages in the chat")
        message = self._by_id.get((chat.id, int(params["message_id"])))
        if message is None or message.deleted:
            raise _bad("message to pin not found")
        if message.message_id in chat.pinned:
            chat.pinned.remove(message.message_id)
        chat.pinned.append(message.message_id)
        if chat.type != "private":
            self._service_message(
                chat,
                "pinned_message",
                from_user=self._bot_user(),
                from_bot=True,
                reply_to=message.message_id,
            )
        return True

    def _unpin_chat_message(self, params: JSONDict) -> bool:
        chat = self._chat_from_param(params.get("chat_id"))
        if chat.type != "private" and not chat.bot_is_admin:
            raise _bad("not enough rights to manage pinned messages in the chat")
        message_id = params.get("message_id")
        if message_id is None:
            if chat.pinned:
                chat.pinned.pop()
        elif int(message_id) in chat.pinned:
            chat.pinned.remove(int(message_id))
        else:
            raise _bad("message to unpin not found")
        return True

    def _send_chat_action(self, params: JSONDict) -> bool:
        chat = self._chat_from_param(params.get("chat_id"))
        self._check_can_write(chat)
        return True

    def _setting_handler(self, method: str) -> Handler:
        def store(params: JSONDict) -> bool:
            self._settings[method] = params
            return True

        return store
