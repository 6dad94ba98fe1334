"""Button taps. The data names the table and the action; the actor is always the tapping user.
Every query is answered exactly once, whatever happens, and promptly: the service stores the
action and returns (computer players move afterwards), and nothing here waits on a call that
spends a group's budget for longer than the admin cache's short timeout."""

from __future__ import annotations

import logging
import re

from telegram import Update
from telegram.ext import ContextTypes

from bot.admins import AdminUnknown
from bot.i18n import t
from bot.players import DEFAULT_LEVEL, LEVELS
from bot.service import Reply
from handlers.common import admin_check, bot_admin_check, is_group, person, send_to, service

log = logging.getLogger(__name__)


async def on_callback(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    if query is None:
        return
    reply = Reply(t("it", "err_bad_data"), alert=False)
    try:
        reply = await _dispatch(update, context)
    except AdminUnknown:  # Telegram is slow to say who the admins are: the next tap knows
        reply = Reply(t(service(context).default_lang, "err_busy"))
    except Exception:
        log.exception("callback %r failed", query.data)
        reply = Reply(t("it", "err_busy"))
    finally:
        try:
            await query.answer(reply.text[:200] or None, show_alert=reply.alert)
        except Exception as exc:  # an expired query cannot be answered; nothing else to do
            log.info("answering a callback failed: %s", exc)
    # A reply with buttons (the deep link to the private chat) cannot ride on the answer:
    # it goes to the chat as a message.
    if reply.keyboard and query.message is not None:
        await send_to(context, query.message.chat.id, reply)
    if reply.repost is not None and query.message is not None:  # a /new picker came late
        await service(context).repost(query.message.chat.id, reply.repost)


_INT = re.compile(r"-?[0-9]{1,15}")


def _ints(parts: list[str]) -> list[int] | None:
    """The numbers of the callback data, or None if one is not a (sane) integer."""
    if not all(_INT.fullmatch(p) for p in parts):
        return None
    return [int(p) for p in parts]


async def _dispatch(update: Update, context: ContextTypes.DEFAULT_TYPE) -> Reply:
    query = update.callback_query
    assert query is not None
    user = query.from_user
    svc = service(context)
    data = query.data or ""
    parts = data.split(":")
    kind = parts[0]
    chat = query.message.chat if query.message is not None else None
    bad = Reply(t(svc.default_lang, "err_bad_data"))
    who = person(user)
    if kind == "a" and len(parts) == 5:
        nums = _ints(parts[1:])
        if nums is None:
            return bad
        table_id, hand_index, stamp, action = nums
        return await svc.act(who, table_id, hand_index, stamp, action)
    if kind == "n" and len(parts) == 3:
        nums = _ints(parts[1:])
        if nums is None:
            return bad
        return await svc.next_hand(who, nums[0], nums[1])
    if kind == "m" and len(parts) == 5:  # points bids: the screen with every value
        nums = _ints(parts[1:])
        if nums is None:
            return bad
        return await svc.bid_page(who, *nums)
    if kind == "b" and len(parts) == 2:  # "Riprendo il posto" (issue 11 §3)
        nums = _ints(parts[1:])
        if nums is None:
            return bad
        return await svc.resume(who, nums[0])
    if chat is None:
        return bad
    if kind == "c" and len(parts) == 3 and parts[2] in ("y", "n"):  # cancel consent
        ids = _ints(parts[1:2])
        if ids is None:
            return bad
        return await svc.cancel_vote(chat.id, who, ids[0], parts[2] == "y")
    if kind == "v" and len(parts) == 2:
        picker = query.message.message_id if query.message is not None else None
        return await svc.new_table(chat.id, who, parts[1], is_group(chat), picker_message_id=picker)
    if kind == "l" and len(parts) == 4 and parts[2] == "bot":
        ids = _ints(parts[1:2])
        if ids is None or parts[3] not in LEVELS:
            return bad
        return await svc.add_bot(chat.id, parts[3], ids[0])
    if kind == "l" and len(parts) == 3:
        ids = _ints(parts[1:2])
        if ids is None:
            return bad
        table_id, op = ids[0], parts[2]
        if op == "join":
            return await svc.join(chat.id, who, table_id)
        if op == "leave":
            return await svc.leave(chat.id, who, table_id)
        if op == "bot":
            return await svc.add_bot(chat.id, DEFAULT_LEVEL, table_id)
        if op == "settings":
            return await svc.show_settings(chat.id, table_id)
        if op == "back":
            return await svc.back_to_lobby(chat.id, table_id)
        if op in ("go", "fill", "cancel"):
            admin = admin_check(context, chat, user)
            if op == "cancel":
                return await svc.cancel(chat.id, who, is_admin=admin, table_id=table_id)
            return await svc.start(
                chat.id, who, is_admin=admin, fill=op == "fill", table_id=table_id
            )
        return bad
    if kind == "s" and len(parts) == 4:
        ids = _ints(parts[1:2])
        if ids is None:
            return bad
        admin = admin_check(context, chat, user)
        return await svc.set_option(
            chat.id,
            who,
            parts[2],
            parts[3],
            ids[0],
            is_admin=admin,
            bot_admin=bot_admin_check(context, chat),
        )
    if kind == "o" and len(parts) == 3:  # the settings panel: one setting's screen
        ids = _ints(parts[1:2])
        if ids is None:
            return bad
        return await svc.show_option(chat.id, ids[0], parts[2])
    if kind == "r" and len(parts) == 2:  # a rematch: same seats, same settings
        ids = _ints(parts[1:])
        if ids is None:
            return bad
        return await svc.rematch(chat.id, who, ids[0])
    return bad
