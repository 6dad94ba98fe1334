"""`python -m bot export`: a group's ledger (RULES.md §10) as JSON or CSV on stdout."""

from __future__ import annotations

import argparse
import asyncio
import json

from bot.cli.simulate import cli_error, write_stdout
from bot.table.ledger import export_csv, export_json

# SQLite and PostgreSQL (BIGINT) store integers in 64 bits: a chat id or an epoch beyond
# cannot be in the database
_SQLITE_MAX = 2**63 - 1


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
        help="sqlite:///file.db or postgresql://... (default: the DATABASE_URL setting)",
    )
    p.set_defaults(func=main_export)


def _parse_chat(text: str) -> int | None:
    text = text.strip()
    body = text[1:] if text[:1] in "+-" else text
    if not body.isascii() or not body.isdigit() or len(body) > 19:
        return None
    chat_id = int(text)
    return chat_id if -_SQLITE_MAX - 1 <= chat_id <= _SQLITE_MAX else None


async def _export(url: str, chat_id: int, fmt: str, epoch: int | None) -> tuple[int, str]:
    from storage import Database
    from storage.db import describe_url, driver_errors

    try:
        db = await Database.open(url, create=False)
    except (FileNotFoundError, ValueError) as exc:
        return 2, str(exc)
    except driver_errors() as exc:  # not a database, unreadable, locked, refused...
        return 2, f"cannot read the database {describe_url(url)}: {exc}"
    try:
        async with db:
            if await db.people.get_chat(chat_id) is None:
                return 2, f"chat {chat_id} is not in the database {db.path}"
            balances = await db.ledger.balances(chat_id, epoch)
            hands = await db.ledger.ledger_hands(chat_id, epoch)
    except driver_errors() as exc:
        return 2, f"cannot read the database {describe_url(url)}: {exc}"
    if fmt == "csv":
        return 0, export_csv(hands)
    return 0, json.dumps(export_json(chat_id, balances, hands), indent=2, ensure_ascii=False)


def main_export(args: argparse.Namespace) -> int:
    chat_id = _parse_chat(args.chat)
    if chat_id is None:
        return cli_error(
            "export",
            "--chat wants a Telegram chat id (an integer such as -1001234567890), "
            f"got {args.chat!r}",
        )
    if args.epoch is not None and not 0 <= args.epoch <= _SQLITE_MAX:
        return cli_error(
            "export",
            f"--epoch must be a league epoch, 0 (the first) to {_SQLITE_MAX}, got {args.epoch}",
        )
    url: str | None = args.database
    if url is None:
        from bot.config import Settings

        url = Settings().database_url
    code, text = asyncio.run(_export(url, chat_id, args.format, args.epoch))
    if code != 0:
        return cli_error("export", text)
    return write_stdout("export", text)
