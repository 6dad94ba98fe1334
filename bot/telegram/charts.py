"""Pictures for the chat (issue 14): a season's balances over time (/score chart) and a
person's rating over time (/stats chart), drawn with matplotlib into PNG bytes.

Only the object-oriented API (a `Figure` of its own, the Agg canvas), never pyplot's global
state, so drawing is safe in a worker thread: the service calls these through
`asyncio.to_thread`, and a picture never blocks the other tables. Texts come in already
translated (plain text: matplotlib does not read HTML).
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Final

import matplotlib

matplotlib.use("Agg")

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

# A name's emoji has no glyph in the bundled font: drawn as a box, not worth a warning each time.
warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font", category=UserWarning)

SIZE: Final = (8.0, 4.5)  # inches: 800 x 450 pixels at DPI, a phone's width
DPI: Final = 100
MAX_LINES: Final = 12  # the people with the largest balances, when more played


def _text(text: str) -> str:
    """A name or title as it is: a "$" would start matplotlib's mathtext."""
    return text.replace("$", r"\$")


def _png(fig: Figure) -> bytes:
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()


def balance_chart(
    series: Mapping[str, Sequence[int]], title: str, x_label: str, y_label: str
) -> bytes:
    """One line per person: their balance after each ledger entry (entry 1, 2, ...), every
    line as long as the longest (a person who joined later starts at 0)."""
    fig = Figure(figsize=SIZE, layout="constrained")
    ax = fig.add_subplot()
    kept = sorted(series.items(), key=lambda kv: (-abs(kv[1][-1]) if kv[1] else 0, kv[0]))
    for name, values in sorted(kept[:MAX_LINES]):
        xs = list(range(len(values) + 1))
        ax.step(xs, [0, *values], where="post", label=_text(name), linewidth=2)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(_text(title))
    ax.set_xlabel(_text(x_label))
    ax.set_ylabel(_text(y_label))
    ax.grid(True, alpha=0.3)
    if series:
        ax.legend(loc="best", fontsize="small")
    return _png(fig)


def rating_chart(
    series: Mapping[str, Sequence[tuple[datetime, float]]],
    title: str,
    x_label: str,
    y_label: str,
    start: float = 0.0,
) -> bytes:
    """One line per family: the rating (ordinal) after each rated game, by game number,
    from a newcomer's `start` (game 0)."""
    fig = Figure(figsize=SIZE, layout="constrained")
    ax = fig.add_subplot()
    for label, points in series.items():
        xs = list(range(len(points) + 1))
        ys = [start, *(p[1] for p in points)]
        ax.plot(xs, ys, marker="o", markersize=3, label=_text(label), linewidth=2)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(_text(title))
    ax.set_xlabel(_text(x_label))
    ax.set_ylabel(_text(y_label))
    ax.grid(True, alpha=0.3)
    if series:
        ax.legend(loc="best", fontsize="small")
    return _png(fig)
