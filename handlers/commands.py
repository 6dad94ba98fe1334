"""Command handlers. Each one parses its arguments and calls the table service."""

from __future__ import annotations

import logging

from telegram import Chat, ChatMember, Update, User
from telegram.error import TelegramError
from telegram.ext import CommandHandler

from bot.i18n import t
from bot.service import Reply
from bot.telegram.context import BotContext
from handlers.common import (
    Handler,
    admin_check,
    bot_admin_check,
    is_group,
    person,
    send,
    send_admin_call,
    with_chat,
    with_sender,
)

log = logging.getLogger(__name__)


def _args(context: BotContext) -> list[str]:
    return list(context.args or [])


def _first(context: BotContext) -> str | None:
    """The command's first argument, if any."""
    return context.args[0] if context.args else None


@with_sender
async def cmd_start(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    people = context.service.people
    if is_group(chat):
        await send(update, await people.help(chat.id))
        return
    await send(update, await people.private_start(person(user), _first(context) or ""))


@with_sender
async def cmd_new(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    new = context.service.lobby.new_table(chat.id, person(user), _first(context), is_group(chat))
    await send(update, await new, context)  # /new during a game: the table is re-posted below


@with_sender
async def cmd_join(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    # at a running table the answer goes to the person's private chat when it can
    # (`Lobby._join_running`): the group's messages are counted (20 a minute)
    await send(update, await context.service.lobby.join(chat.id, person(user), command=True))


@with_sender
async def cmd_leave(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    await send(update, await context.service.lobby.leave(chat.id, person(user)))


@with_chat
async def cmd_addbot(update: Update, context: BotContext, chat: Chat) -> None:
    level, svc = _first(context), context.service
    await send(
        update, await (svc.lobby.add_bot(chat.id, level) if level else svc.lobby.add_bot(chat.id))
    )


@with_sender
async def cmd_go(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    await send_admin_call(update, context, chat, user, context.service.settings.start)


@with_sender
async def cmd_cancel(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    admin = admin_check(context, chat, user)
    reply = await context.service.closing.cancel(
        chat.id, person(user), is_admin=admin, by_command=True
    )
    await send(update, reply)


@with_sender
async def cmd_settings(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    """/settings shows the panel; /settings key=value ... sets settings, all or nothing."""
    svc = context.service
    args = _args(context)
    if not args:
        admin = admin_check(context, chat, user)
        await send(
            update, await svc.settings.show_settings(chat.id, person=person(user), is_admin=admin)
        )
        return
    pairs = []
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep or not key.strip() or not value.strip():
            lang = await svc.langs.chat(chat.id)
            await send(update, Reply(t(lang, "err_settings_usage")))
            return
        pairs.append((key.strip().lower(), value.strip().lower()))
    reply = await svc.settings.set_options(
        chat.id,
        person(user),
        pairs,
        is_admin=admin_check(context, chat, user),
        panel=False,
        bot_admin=bot_admin_check(context, chat),
    )
    await send(update, reply)


@with_chat
async def cmd_table(update: Update, context: BotContext, chat: Chat) -> None:
    """/table: the group's table message again at the bottom of the chat."""
    await send(update, await context.service.lobby.repost(chat.id))


@with_chat
async def cmd_unknown(update: Update, context: BotContext, chat: Chat) -> None:
    """A command the bot does not know (registered after every known one)."""
    message = update.effective_message
    if message is None or not message.text:
        return
    command = message.text.split()[0]
    name, _, addressee = command.partition("@")
    me = context.bot.username or ""
    if addressee and addressee.lower() != me.lower():
        return  # another bot's command
    reply = await context.service.people.unknown_command(
        chat.id, name, is_group=is_group(chat), addressed=bool(addressee)
    )
    await send(update, reply)


@with_chat
async def cmd_rules(update: Update, context: BotContext, chat: Chat) -> None:
    await send(update, await context.service.people.rules(chat.id, _first(context) or ""))


@with_chat
async def cmd_help(update: Update, context: BotContext, chat: Chat) -> None:
    await send(update, await context.service.people.help(chat.id))


@with_sender
async def cmd_lang(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    is_admin = admin_check(context, chat, user)
    lang = _first(context) or ""
    await send(
        update,
        await context.service.people.set_lang(
            chat.id, person(user), lang, is_group(chat), is_admin=is_admin
        ),
    )


@with_sender
async def on_private_text(update: Update, context: BotContext, chat: Chat, user: User) -> None:
    """Words typed in the private chat: an answer that says what the chat is for."""
    await send(update, await context.service.people.private_text(chat.id, person(user)))


async def on_my_chat_member(update: Update, context: BotContext) -> None:
    """The bot's own membership changed: when it was added to a group, it greets once."""
    change = update.my_chat_member
    if change is None or not is_group(change.chat):
        return
    was = change.old_chat_member.status
    now = change.new_chat_member.status
    admins = context.admins
    admins.remember(change.chat.id, context.bot.id, now == ChatMember.ADMINISTRATOR)
    joined = (ChatMember.MEMBER, ChatMember.ADMINISTRATOR, ChatMember.OWNER)
    if now in joined and was not in joined:  # not a promotion of a bot already there
        reply = await context.service.people.greet(change.chat.id)
        try:
            await context.bot.send_message(change.chat.id, reply.text)
        except TelegramError as exc:
            log.warning("greeting %s failed: %s", change.chat.id, exc)


COMMANDS: dict[str, Handler] = {
    "start": cmd_start,
    "new": cmd_new,
    "join": cmd_join,
    "leave": cmd_leave,
    "addbot": cmd_addbot,
    "go": cmd_go,
    "cancel": cmd_cancel,
    "settings": cmd_settings,
    "rules": cmd_rules,
    "help": cmd_help,
    "lang": cmd_lang,
    "table": cmd_table,
}


def handlers() -> list[CommandHandler[BotContext, None]]:
    """The table's commands, and /start, /help, /rules, /lang."""
    return [CommandHandler(name, callback) for name, callback in COMMANDS.items()]
