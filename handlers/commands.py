"""Command handlers. Each one parses its arguments and calls the table service."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from telegram import Update
from telegram.ext import ContextTypes

from bot.service import Reply
from handlers.common import admin_check, is_group, person, send, service

Handler = Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]


def _args(context: ContextTypes.DEFAULT_TYPE) -> list[str]:
    return list(context.args or [])


async def cmd_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    svc = service(context)
    if is_group(chat):
        await send(update, await svc.help(chat.id))
        return
    args = _args(context)
    await send(update, await svc.private_start(person(user), args[0] if args else ""))


async def cmd_new(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    args = _args(context)
    await send(
        update,
        await service(context).new_table(
            chat.id, person(user), args[0] if args else None, is_group(chat)
        ),
    )


async def cmd_join(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    await send(update, await service(context).join(chat.id, person(user)))


async def cmd_leave(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    await send(update, await service(context).leave(chat.id, person(user)))


async def cmd_addbot(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    args = _args(context)
    svc = service(context)
    await send(update, await (svc.add_bot(chat.id, args[0]) if args else svc.add_bot(chat.id)))


async def cmd_go(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    admin = admin_check(context, chat, user)
    await send(update, await service(context).start(chat.id, person(user), is_admin=admin))


async def cmd_cancel(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    admin = admin_check(context, chat, user)
    await send(update, await service(context).cancel(chat.id, person(user), is_admin=admin))


async def cmd_settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/settings shows the buttons; /settings key=value ... sets options directly."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    svc = service(context)
    args = _args(context)
    if not args:
        await send(update, await svc.show_settings(chat.id))
        return
    admin = admin_check(context, chat, user)
    reply = Reply("")
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep or not key:
            lang = await svc.chat_lang(chat.id)
            from bot.i18n import t

            reply = Reply(t(lang, "err_bad_args", usage="/settings match=best3 overbid=false"))
            break
        reply = await svc.set_option(
            chat.id,
            person(user),
            key.strip().lower(),
            value.strip().lower(),
            is_admin=admin,
            panel=False,
        )
        if reply.alert:
            break
    await send(update, reply)


async def cmd_score(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    if update.effective_chat is None:
        return
    await send(update, await service(context).score(update.effective_chat.id))


async def cmd_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    if update.effective_chat is None:
        return
    await send(update, await service(context).rules(update.effective_chat.id))


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    if update.effective_chat is None:
        return
    await send(update, await service(context).help(update.effective_chat.id))


async def cmd_lang(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    args = _args(context)
    await send(
        update,
        await service(context).set_lang(
            chat.id, person(user), args[0] if args else "", is_group(chat)
        ),
    )


COMMAND_HANDLERS: dict[str, Handler] = {
    "start": cmd_start,
    "new": cmd_new,
    "join": cmd_join,
    "leave": cmd_leave,
    "addbot": cmd_addbot,
    "go": cmd_go,
    "cancel": cmd_cancel,
    "settings": cmd_settings,
    "score": cmd_score,
    "rules": cmd_rules,
    "help": cmd_help,
    "lang": cmd_lang,
}
