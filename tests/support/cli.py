"""What `python -m bot play` and `python -m bot simulate` refuse alike: both read the
variant and its options, and a hard player's `--budget` (`bot.cli.simulate.budget_error`)."""

from __future__ import annotations

REFUSED_BY_BOTH: list[tuple[list[str], str]] = [
    (["--option", "variant=chiamata"], "choose the variant with --variant"),
    (["--variant", "sei", "--option", "teams=none"], "sei is played in pairs or threes (§5.4)"),
    (["--option", "colour=red"], "colour: unknown option"),
    (["--budget", "0"], "--budget must be more than 0 and at most 10 seconds"),
    (["--budget", "10.5"], "got 10.5"),
    (["--budget", "inf"], "got inf"),
]
