"""`python -m bot export`: a group's ledger (RULES.md §10) as JSON or CSV on stdout."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from bot.ledger import export_csv, export_json


def add_export_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("export", help="print a group's ledger as JSON or CSV")
    p.add_argument("--chat", required=True, metavar="CHAT_ID", help="the group's Telegram chat id")
    p.add_argument("--format", choices=("json", "csv"), default="json")
    p.add_argument(
        "--epoch",
        type=int,
        default=None,
        help="league epoch to export (default: the current league)",
    )
    p.add_argument(
        "--database",
        metavar="URL",
        default=None,
        help="sqlite:///file.db (default: the DATABASE_URL setting)",
    )
    p.set_defaults(func=main_export)


def _parse_chat(text: str) -> int | None:
    text = text.strip()
    body = text[1:] if text[:1] in "+-" else text
    if not body.isascii() or not body.isdigit():
        return None
    return int(text)


async def _export(url: str, chat_id: int, fmt: str, epoch: int | None) -> tuple[int, str]:
    from storage import Database

    try:
        db = await Database.open(url, create=False)
    except (FileNotFoundError, ValueError) as exc:
        return 2, f"error: {exc}"
    async with db:
        if await db.get_chat(chat_id) is None:
            return 2, f"error: chat {chat_id} is not in the database {db.path}"
        balances = await db.balances(chat_id, epoch)
        hands = await db.ledger_hands(chat_id, epoch)
    if fmt == "csv":
        return 0, export_csv(hands)
    return 0, json.dumps(export_json(chat_id, balances, hands), indent=2, ensure_ascii=False)


def main_export(args: argparse.Namespace) -> int:
    chat_id = _parse_chat(args.chat)
    if chat_id is None:
        print(
            f"error: --chat wants a Telegram chat id (an integer such as -1001234567890), "
            f"got {args.chat!r}",
            file=sys.stderr,
        )
        return 2
    url: str | None = args.database
    if url is None:
        from bot.config import Settings

        url = Settings().database_url
    code, text = asyncio.run(_export(url, chat_id, args.format, args.epoch))
    if code != 0:
        print(text, file=sys.stderr)
        return code
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
