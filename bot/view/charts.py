"""Pictures for the chat: a season's balances over time (/score chart) and a
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
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

# A name's emoji has no glyph in the bundled font: drawn as a box, not worth a warning each time.
warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font", category=UserWarning)

SIZE: Final = (8.0, 4.5)  # inches: 800 x 450 pixels at DPI, a phone's width
DPI: Final = 100
MAX_LINES: Final = 12  # the people with the largest balances, when more played


def _text(text: str) -> str:
    """A name or title as it is: a "$" would start matplotlib's mathtext."""
    return text.replace("$", r"\$")


def _figure() -> Figure:
    """A figure of its own on the Agg canvas. matplotlib is imported here, in the drawing
    thread, when the first chart is drawn: its 0.6 s of imports stay out of the bot's start
    and off the event loop."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=SIZE, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _integer_ticks(ax: Axes, *, y: bool = False) -> None:
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if y:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()


def _label(ax: Axes, title: str, x_label: str, y_label: str, legend: bool) -> None:
    """The titles, the grid and (when there are lines) the legend."""
    ax.set_title(_text(title))
    ax.set_xlabel(_text(x_label))
    ax.set_ylabel(_text(y_label))
    ax.grid(True, alpha=0.3)
    if legend:
        ax.legend(loc="best", fontsize="small")


def _finish(fig: Figure, ax: Axes, title: str, x_label: str, y_label: str, legend: bool) -> bytes:
    """`_label`, then the picture as PNG."""
    _label(ax, title, x_label, y_label, legend)
    return _png(fig)


STYLES: Final = ("-", "--", "-.", ":")  # lines that run together stay told apart
MARKERS: Final = ("o", "s", "^", "D", "v", "P")


def signed(value: int) -> str:
    """A balance as a person reads it: "+2", "−1" (a real minus sign), "0"."""
    return f"{value:+d}".replace("-", "\u2212") if value else "0"


def balance_figure(
    series: Mapping[str, Sequence[int]], title: str, x_label: str, y_label: str
) -> Figure:
    """One line per person: their balance after each ledger entry (1, 2, ...), every line
    as long as the longest (a person who joined later starts at 0), every point where it is
    (issue 54.2: a chart of money is not nudged). Lines that run together stay told apart by
    their dash and marker (the earlier ones' markers larger, so the later ones show inside
    them), and the legend gives each name with its final balance."""
    fig = _figure()
    ax = fig.add_subplot()
    kept = sorted(series.items(), key=lambda kv: (-abs(kv[1][-1]) if kv[1] else 0, kv[0]))
    shown = sorted(kept[:MAX_LINES])
    for i, (name, values) in enumerate(shown):
        xs = list(range(len(values) + 1))
        ys = [0, *values]
        final = values[-1] if values else 0
        ax.step(
            xs,
            ys,
            where="post",
            label=_text(f"{name} ({signed(final)})"),
            linewidth=2,
            linestyle=STYLES[i % len(STYLES)],
            marker=MARKERS[i % len(MARKERS)],
            markersize=4 + 2 * (len(shown) - 1 - i),
        )
    ax.axhline(0, color="grey", linewidth=0.8)
    _integer_ticks(ax, y=True)
    _label(ax, title, x_label, y_label, legend=bool(series))
    return fig


def balance_chart(
    series: Mapping[str, Sequence[int]], title: str, x_label: str, y_label: str
) -> bytes:
    """`balance_figure` as a PNG."""
    return _png(balance_figure(series, title, x_label, y_label))


def rating_chart(
    series: Mapping[str, Sequence[tuple[datetime, float]]],
    title: str,
    x_label: str,
    y_label: str,
    start: float = 0.0,
) -> bytes:
    """One line per family: the rating (ordinal) after each rated game, by game number,
    from a newcomer's `start` (game 0)."""
    fig = _figure()
    ax = fig.add_subplot()
    for label, points in series.items():
        xs = list(range(len(points) + 1))
        ys = [start, *(p[1] for p in points)]
        ax.plot(xs, ys, marker="o", markersize=3, label=_text(label), linewidth=2)
    _integer_ticks(ax)
    return _finish(fig, ax, title, x_label, y_label, legend=bool(series))
