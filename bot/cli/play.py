"""`python -m bot play`: play a whole match in the terminal against computer players.

The human holds one seat (0 by default); every other seat is a computer player
(`bot.players.make_player`). Everything printed comes from the human seat's `Observation`
(through `bot.cli.render`) or from the finished hands' results, so no hidden card is shown.

    run_play("due", seed=7, options={}, lang="it")

At the human's turn the table and a numbered list of the legal choices are printed; the answer
is a number 1..k (or a card in notation, ``1D``); ``q`` or end of input quits.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Mapping

from bot.cli import render as R
from bot.cli.simulate import add_budget_argument, budget_error, cli_error
from bot.engine.match import Match
from bot.engine.observation import Observation
from bot.engine.options import VARIANTS, Options, OptionsError
from bot.engine.state import HandState
from bot.i18n import LANGS, plain, variant_name
from bot.players import DEFAULT_LEVEL, PLAYERS, Player, configure, make_player

InputFn = Callable[[str], str]
OutputFn = Callable[[str], None]

_QUIT_WORDS = frozenset({"q", "quit", "exit", "esci"})


class _Quit(Exception):
    """The human asked to stop (q, end of input or Ctrl-C)."""


def _msg(lang: str, key: str, **kw: object) -> str:
    return plain(lang, key, **kw)


def seat_names(n_players: int, human: int, lang: str = "it") -> list[str]:
    """``Tu`` for the human seat, ``Bot 1``, ``Bot 2``... for the others in seat order."""
    names: list[str] = []
    k = 0
    for s in range(n_players):
        if s == human:
            names.append(_msg(lang, "cli_you"))
        else:
            k += 1
            names.append(_msg(lang, "play_bot", n=k))
    return names


def _read(input_fn: InputFn, prompt: str) -> str:
    try:
        return input_fn(prompt)
    except (EOFError, KeyboardInterrupt):
        raise _Quit from None


def ask_choice(obs: Observation, lang: str, input_fn: InputFn, output_fn: OutputFn) -> int:
    """Ask the human for one of `obs.legal` until the answer is valid. Raises `_Quit`."""
    choices = R.legal_choices(obs, lang)
    k = len(choices)
    while True:
        raw = _read(input_fn, R.prompt_text(k, lang))
        text = raw.strip()
        if text.lower() in _QUIT_WORDS:
            raise _Quit
        if not text:
            output_fn(_msg(lang, "play_empty", k=k))
            continue
        try:
            n = int(text)
        except ValueError:
            card = _parse_card(text, obs)
            if card is not None:
                return card
            output_fn(_msg(lang, "play_nan", text=text, k=k))
            continue
        if not 1 <= n <= k:
            output_fn(_msg(lang, "play_range", n=n, k=k))
            continue
        return choices[n - 1][0]


def _parse_card(text: str, obs: Observation) -> int | None:
    """A card typed in notation (``1D``, ``TD``) when it is a legal play now."""
    try:
        card = obs.rules.deck.card(text)
    except ValueError:
        return None
    return card if card in obs.legal else None


def _play_hand(
    state: HandState,
    human: int,
    players: Mapping[int, Player],
    names: list[str],
    lang: str,
    input_fn: InputFn,
    output_fn: OutputFn,
) -> Observation:
    """Play one hand to its end; returns the human's final observation. Raises `_Quit`."""
    prev = state.observation(human)
    output_fn("")
    output_fn(R.render_hand_header(prev, names, lang))
    if prev.current != human:
        output_fn(R.render_table(prev, names, lang))
    fresh = prev.current == human  # the table comes right under the header
    while not state.is_terminal():
        seat = state.current
        if seat == human:
            obs = state.observation(human)
            if not fresh:
                output_fn("")
            fresh = False
            output_fn(R.render_table(obs, names, lang))
            output_fn(R.render_choices(obs, lang))
            action = ask_choice(obs, lang, input_fn, output_fn)
        else:
            action = players[seat].act(state.observation(seat))
        state.apply(action, seat)
        now = state.observation(human)
        for line in R.describe_events(prev, now, names, lang):
            output_fn(line)
        prev = now
    return prev


def run_play(
    variant: str,
    seed: int,
    options: dict[str, str],
    seat: int = 0,
    opponents: str = "simple",
    lang: str = "it",
    input_fn: InputFn = input,
    output_fn: OutputFn = print,
) -> int:
    """Play a full match in the terminal. Returns 0 when it ends or the human quits, 2 when the
    variant, options, seat, opponent type or language are not valid (the reason is printed)."""
    if lang not in LANGS:
        output_fn(f"Error: unknown language {lang!r}; use it or en")
        return 2
    try:
        opts = Options.parse(variant, options)
        n = opts.rules().n_players
        if not 0 <= seat < n:
            output_fn(_msg(lang, "play_bad_seat", seat=seat, last=n - 1))
            return 2
        players: dict[int, Player] = {
            s: make_player(opponents, seed=f"{seed}:{s}") for s in range(n) if s != seat
        }
    except (OptionsError, ValueError) as exc:
        output_fn(_msg(lang, "play_error", msg=exc))
        return 2
    names = seat_names(n, seat, lang)
    extra = ", ".join(f"{k}={v}" for k, v in sorted(options.items()))
    output_fn(
        _msg(
            lang,
            "play_intro",
            variant=variant_name(lang, opts.variant),
            seed=seed,
            players=opponents,
            opts=f" · {extra}" if extra else "",
        )
    )
    output_fn(_msg(lang, "play_intro_seat", name=names[seat], n=seat + 1))
    match = Match(opts, seed)
    open_league = match.open_league
    try:
        while not match.over:
            state = match.deal()
            final = _play_hand(state, seat, players, names, lang, input_fn, output_fn)
            record = match.record(state)
            output_fn(R.render_hand_result(final, record, names, lang))
            if not match.over:
                output_fn(R.render_match_status(match, names, lang))
            if open_league and _read(input_fn, _msg(lang, "play_continue")).strip().lower() in (
                _QUIT_WORDS
            ):
                raise _Quit
    except _Quit:
        output_fn("")
        output_fn(_msg(lang, "play_quit"))
        return 0
    output_fn("")
    output_fn(R.render_match_result(match, names, seat, lang))
    return 0


# ---------------------------------------------------------------------- argparse


def _parse_option(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    return key.strip(), value.strip()


def add_play_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``play``: a match in the terminal against computer players."""
    p = subparsers.add_parser(
        "play",
        help="play a match in the terminal against computer players",
        description="Play a match of Briscola in the terminal against computer players.",
    )
    p.add_argument("--variant", default="due", choices=VARIANTS, help="variant (default: due)")
    p.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    p.add_argument(
        "--option",
        dest="options",
        action="append",
        type=_parse_option,
        default=[],
        metavar="KEY=VALUE",
        help="table option, repeatable (e.g. --option deck=french --option match=single)",
    )
    p.add_argument(
        "--players",
        default=DEFAULT_LEVEL,
        choices=sorted(PLAYERS),
        help=f"computer opponent level (default: {DEFAULT_LEVEL}; easy, normal, hard)",
    )
    add_budget_argument(p)
    p.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default: 0)")
    p.add_argument("--lang", default="it", choices=LANGS, help="language (default: it)")
    web = p.add_argument_group(
        "the Mini App's page instead of the terminal (no Telegram, no token: localhost)"
    )
    web.add_argument(
        "--web",
        action="store_true",
        help="serve the Mini App's table on 127.0.0.1 (you sit at seat 0; the deal is random)",
    )
    web.add_argument("--port", type=int, default=8765, help="with --web: port (default: 8765)")
    web.add_argument(
        "--delay",
        type=float,
        default=0.6,
        help="with --web: seconds a computer waits before its move (default: 0.6)",
    )
    web.add_argument("--open", action="store_true", help="with --web: open it in the browser")
    p.set_defaults(func=main_play)


def main_play(args: argparse.Namespace) -> int:
    """A command line that cannot start a match (budget, options, seat) is refused with one
    line on stderr and exit status 2 before anything is printed on stdout."""
    budget = getattr(args, "budget", None)
    why = budget_error(budget)
    if why is not None:
        return cli_error("play", why)
    options: dict[str, str] = dict(args.options)
    if any(key.lower() == "variant" for key in options):
        return cli_error(
            "play", "--option variant=... is not allowed: choose the variant with --variant"
        )
    seat: int = getattr(args, "seat", 0)
    try:
        n = Options.parse(args.variant, options).rules().n_players
    except OptionsError as exc:
        return cli_error("play", exc)
    if not 0 <= seat < n:
        return cli_error("play", f"--seat must be between 0 and {n - 1} in {args.variant}")
    if budget is not None:
        configure(budget=budget)
    if getattr(args, "web", False):
        return _main_web(args, options, seat)
    seed: int = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    return run_play(
        args.variant,
        seed,
        options,
        seat=seat,
        opponents=args.players,
        lang=args.lang,
        input_fn=lambda prompt: input(prompt),  # looked up at call time
    )


def _main_web(args: argparse.Namespace, options: dict[str, str], seat: int) -> int:
    """`--web`: the Mini App's page on localhost (`bot.cli.web`)."""
    from bot.cli.web import WebGame, run_web

    if seat != 0:
        return cli_error("play", "--web seats you at seat 0: leave --seat out")
    if args.seed is not None:
        return cli_error("play", "--web deals at random: leave --seed out")
    if not 0 <= args.port <= 65535 or not 0 <= args.delay <= 60:
        return cli_error("play", "--port is 0..65535 (0: any free port), --delay 0..60 seconds")
    game = WebGame(
        variant=args.variant,
        options=options,
        level=args.players,
        lang=args.lang,
        port=args.port,
        delay=args.delay,
        open_browser=args.open,
    )
    return run_web(game)
