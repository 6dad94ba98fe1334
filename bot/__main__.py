"""Entry point: `python -m bot` runs the bot; subcommands simulate, play and export."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    from bot.cli_export import add_export_parser
    from bot.cli_play import add_play_parser
    from bot.cli_simulate import add_simulate_parser

    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Briscola bot. Without a subcommand, runs the Telegram bot.",
    )
    sub = parser.add_subparsers(dest="command")
    add_simulate_parser(sub)
    add_play_parser(sub)
    add_export_parser(sub)
    return parser


def run_bot() -> int:
    from bot.config import NO_TOKEN_HELP, Settings

    settings = Settings()
    if settings.bot_token is None or not settings.bot_token.get_secret_value().strip():
        print(NO_TOKEN_HELP, file=sys.stderr)
        return 2
    from bot.app import run

    return run(settings)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command is None:
        return run_bot()
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
