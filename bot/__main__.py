"""Entry point: `python -m bot` runs the bot; subcommands simulate, play, export and review."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    from bot.cli.export import add_export_parser
    from bot.cli.play import add_play_parser
    from bot.cli.review import add_review_parser
    from bot.cli.simulate import add_simulate_parser

    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Briscola bot. Without a subcommand, runs the Telegram bot.",
    )
    sub = parser.add_subparsers(dest="command")
    add_simulate_parser(sub)
    add_play_parser(sub)
    add_export_parser(sub)
    add_review_parser(sub)
    return parser


def run_bot() -> int:
    from pydantic import ValidationError

    from bot.config import NO_TOKEN_HELP, Settings

    try:
        settings = Settings()
    except ValidationError as exc:  # a bad value in the environment or .env: say which
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"]).upper()
            print(f"python -m bot: error: {where}: {err['msg']}", file=sys.stderr)
        return 2
    if settings.bot_token is None or not settings.bot_token.get_secret_value().strip():
        print(NO_TOKEN_HELP, file=sys.stderr)
        return 2
    from bot.app import run

    return run(settings)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the bot, or a subcommand. A refused command line exits 2 with one line on stderr
    (argparse's own errors exit 2 too), and a subcommand's output never ends in a traceback:
    a closed pipe is `_reader_gone`, any other write error one line on stderr and exit 2."""
    args = build_parser().parse_args(argv)
    if args.command is None:
        return run_bot()
    from bot.cli.simulate import cli_error, stdout_to_devnull

    try:
        result: int = args.func(args)
    except BrokenPipeError:
        return _reader_gone()
    try:
        sys.stdout.flush()  # fail here, where it can be reported, not at interpreter exit
    except BrokenPipeError:
        return _reader_gone()
    except OSError as exc:
        stdout_to_devnull()
        return cli_error(args.command, f"cannot write to standard output: {exc.strerror or exc}")
    return result


def _reader_gone() -> int:
    """The reader of stdout went away (`python -m bot simulate ... | head -1`): that is how a
    pipeline stops its producer, not an error. Stdout is pointed at /dev/null so that the
    interpreter's final flush does not raise BrokenPipeError again, and the exit status is 0,
    not 141 (128 + SIGPIPE, what a process killed by the signal reports), so that a script
    under `set -o pipefail` does not fail for having read only what it needed."""
    from bot.cli.simulate import stdout_to_devnull

    stdout_to_devnull()
    return 0


if __name__ == "__main__":
    sys.exit(main())
