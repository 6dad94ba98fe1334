"""What every message is made of: `Button`, `Keyboard`, `Rendered`; escaping (`esc`), a
mention, how people are named (a seat in the group, shortened in private, the group in a
private title), numbers with their sign and unit, and the hand's number as people count it
(with a fixed number of hands, §7.13: "3 of 5")."""

from __future__ import annotations

import html
import unicodedata
from dataclasses import dataclass

from bot.i18n import level_name, plain, t, tn
from bot.table.table import Table


@dataclass(frozen=True, slots=True)
class Button:
    text: str
    data: str | None = None
    url: str | None = None


Keyboard = list[list[Button]]


@dataclass(frozen=True, slots=True)
class Rendered:
    text: str
    keyboard: Keyboard

    def key(self) -> tuple[str, tuple[tuple[tuple[str, str | None, str | None], ...], ...]]:
        """Equality key: two renders with the same key need no edit."""
        return self.text, tuple(
            tuple((b.text, b.data, b.url) for b in row) for row in self.keyboard
        )


def esc(text: str) -> str:
    return html.escape(text, quote=False)


def mention(user_id: int, name: str) -> str:
    """A mention that notifies the person (HTML; the name escaped)."""
    return f'<a href="tg://user?id={int(user_id)}">{esc(name)}</a>'


def signed(value: int) -> str:
    """A score or a ledger amount with its sign, the minus a real one: "+2", "−1", "0"."""
    return f"{value:+d}".replace("-", "−") if value else "0"


def points_text(lang: str, n: int, *, sign: bool = False) -> str:
    """A ledger amount with its unit (plain text): "10 punti", "+1 punto", "−3 punti"."""
    return tn(lang, "points_unit", abs(n), value=signed(n) if sign else str(n))


def beers_text(lang: str, points: int, beer: int) -> str:
    """`points` in whole beers of `beer` points each, what is left over in points (plain
    text): "2 birre", "2 birre e 5 punti"; "" below one beer (a fraction of a beer, "0,3
    birre", says nothing a person can buy: the points say it)."""
    whole, rest = divmod(abs(points), beer)
    if not whole:
        return ""
    beers = tn(lang, "beers_unit", whole, value=str(whole))
    if not rest:
        return beers
    return t(lang, "beers_and_points", beers=beers, points=points_text(lang, rest))


def seat_name(table: Table, seat: int, lang: str) -> str:
    """How a seat is called (plain text: escape it where it goes): a person by their name, a
    computer player by its first name and its level in `lang`, "🤖 Ada (difficile)". A table
    stored when seats kept their whole name ("🤖 Ada (difficile)") shows it as it is."""
    s = table.seats[seat]
    if s.user_id is not None or s.level is None or s.name.startswith("🤖"):
        return s.name
    return f"🤖 {s.name} ({level_name(lang, s.level)})"


def _names(table: Table, lang: str) -> list[str]:
    return [seat_name(table, seat, lang) for seat in range(len(table.seats))]


PRIVATE_NAME_MAX = 16  # characters of a name in the hand message (the group shows it whole)


WORD_MAX = 24  # a name's first word longer than this is cut all the same


TITLE_MAX = 28  # characters of the group's name in a private message's title


def short_name(name: str, limit: int = PRIVATE_NAME_MAX) -> str:
    """`name` shortened for the compact hand message (plain text, not escaped): whole words
    up to `limit` characters ("Maria Grazia Cutrone" → "Maria Grazia"), never a word cut in
    the middle; only a first word longer than `WORD_MAX` is cut, with "…", and never inside
    an emoji sequence (a flag, a joined or modified emoji)."""
    name = name.strip()
    if len(name) <= limit:
        return name
    words = name.split()
    kept = words[0]
    for word in words[1:]:
        if len(kept) + 1 + len(word) > limit:
            break
        kept += " " + word
    if len(kept) <= max(limit, WORD_MAX):
        return kept
    cut = WORD_MAX - 1
    while cut > 1 and _continues(kept, cut):
        cut -= 1
    return kept[:cut].rstrip() + "…"


def _continues(text: str, i: int) -> bool:
    """Whether text[i] belongs to the same symbol as text[i - 1]."""
    c, p = text[i], text[i - 1]
    if "\u200d" in (c, p) or unicodedata.category(c) in ("Mn", "Me"):
        return True  # a joiner, a combining mark or a variation selector
    if "\U0001f3fb" <= c <= "\U0001f3ff":  # a skin tone
        return True
    ri = "\U0001f1e6" <= c <= "\U0001f1ff"
    if ri:  # a flag is two regional indicators: cut only between pairs
        k = i
        while k > 0 and "\U0001f1e6" <= text[k - 1] <= "\U0001f1ff":
            k -= 1
        return (i - k) % 2 == 1
    return False


def seat_short(table: Table, seat: int, lang: str) -> str:
    """A seat as the compact messages name it (plain text): a person by `short_name`, a
    computer player by its first name alone, "🤖 Ada" (the group's table says its level)."""
    s = table.seats[seat]
    if s.user_id is None and s.level is not None and not s.name.startswith("🤖"):
        return f"🤖 {s.name}"
    return short_name(s.name)


def group_title(table: Table) -> str:
    """The group the table is played in, as its private messages name it (HTML, escaped):
    the group's name in whole words, or "#<table>" for a table stored without it."""
    if table.title:
        return esc(short_name(table.title, TITLE_MAX))
    return f"#{table.table_id}"


def hand_number(table: Table) -> int:
    """The hand's number as people count it: a void hand (§4.4) and its replay share one."""
    hand = table.hand
    assert hand is not None
    counted = table.match.counted_hands() if table.match else 0
    records = table.match.records if table.match else []
    done = (
        hand.is_terminal()
        and bool(records)
        and records[-1].hand_index == hand.hand_index
        and not (records[-1].void or records[-1].redeal)
    )
    return counted if done else counted + 1


def hand_label(table: Table, lang: str) -> str:
    """The hand's number as the titles give it (plain text): "3"; with a fixed number of hands
    (§7.13) "3 di 5", and past them, while the highest scores are equal, "6 (spareggio)"."""
    n = hand_number(table)
    fixed = table.options.rules().hands
    if not fixed:
        return str(n)
    if n <= fixed:
        return plain(lang, "hand_of", k=n, n=fixed)
    return plain(lang, "hand_extra", k=n)


def closed_text(table: Table, lang: str) -> str:
    """Why a cancelled table closed: who cancelled it, or that the lobby expired."""
    closed = table.closed or {}
    key = closed.get("key", "cancelled")
    return t(lang, key, who=closed.get("who", ""))
