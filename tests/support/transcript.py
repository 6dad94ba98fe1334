"""What a chat looks like on a phone at the end of an evening, as text (issue 38: "read a
phone-width transcript ... as the players would"): every message still there, oldest first,
its sender, whether it rang, its words wrapped to a phone's width and its buttons; and the
toasts a person saw. `write_transcript` puts it in tests/artifacts/ (ignored by git).

`italian_words` finds Italian in a text meant for an English speaker: words the Italian
catalogue uses and the English one never does."""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po

from bench.rig.telegram import FakeChat, FakeTelegram, FakeUser

ARTIFACTS = Path(__file__).parents[1] / "artifacts" / "evening"
PHONE_WIDTH = 36  # characters on a line of a phone's chat bubble (about, with emoji as two)
LOCALE = Path(__file__).parents[2] / "bot" / "i18n" / "locale"


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _wrap(line: str, width: int) -> list[str]:
    """`line` in pieces of at most `width` columns (emoji count two), cut between words."""
    if _width(line) <= width:
        return [line]
    out: list[str] = []
    current = ""
    for word in line.split(" "):
        candidate = f"{current} {word}" if current else word
        if _width(candidate) <= width or not current:
            current = candidate
        else:
            out.append(current)
            current = word
    out.append(current)
    return out


def transcript(
    fake: FakeTelegram, chat: FakeChat | FakeUser, title: str, *, width: int = PHONE_WIDTH
) -> str:
    """The chat as its members see it now: each message kept (deleted ones are gone), with
    "🔕" for a bot message that did not ring, "✏️N" for one edited N times, its buttons as
    [ … ] rows; for a private chat, the toasts its person saw at the end."""
    silent = fake.silent(chat)
    rule = "─" * width
    lines = [rule, title, rule]
    for m in fake.messages(chat):
        if m.from_bot:
            marks = " 🔕" if m.message_id in silent else " 🔔"
            if m.edited:
                marks += f" ✏️{m.edited}"
            head = f"🤖 bot{marks}"
        else:
            head = f"👤 {m.from_user.get('first_name', '?')}"
        lines.append(head)
        body = m.text if m.document is None else f"📎 {m.document.filename}: {m.text}"
        for raw in body.splitlines() or [""]:
            lines += ["  " + piece for piece in _wrap(raw, width - 2)]
        for row in m.keyboard:
            lines += ["  " + piece for piece in _wrap(" ".join(f"[{b}]" for b in row), width - 2)]
        lines.append("")
    if isinstance(chat, FakeUser):
        toasts = fake.toasts(chat)
        if toasts:
            lines += [rule, f"Toasts ({len(toasts)}):"]
            for text in dict.fromkeys(toasts):
                lines += ["  💬 " + piece for piece in _wrap(text, width - 5)]
    return "\n".join(lines) + "\n"


def write_transcript(name: str, *parts: str) -> Path:
    """Write the transcripts under tests/artifacts/evening/<name>.txt; returns the path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.txt"
    path.write_text("\n".join(parts), "utf-8")
    return path


def _words(text: str) -> set[str]:
    text = re.sub(r"\{[^}]*\}|<[^>]*>", " ", text)
    return {w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ]+(?:'[A-Za-zÀ-ÿ]+)?", text)}


@cache
def _italian_only() -> frozenset[str]:
    def catalogue_words(lang: str) -> set[str]:
        path = LOCALE / lang / "LC_MESSAGES" / "briscola.po"
        with path.open("rb") as f:
            catalog = read_po(f)
        words: set[str] = set()
        for message in catalog:
            value = message.string
            strings = [value] if isinstance(value, str) else list(value or ())
            for s in strings:
                words |= _words(s or "")
        return words

    it, en = catalogue_words("it"), catalogue_words("en")
    return frozenset(w for w in it - en if len(w) >= 4)


def italian_words(text: str, *, names: tuple[str, ...] = ()) -> set[str]:
    """The words of `text` (people's and groups' `names` left out) that only the Italian
    catalogue uses: Italian that reached an English reader."""
    for name in names:
        text = text.replace(name, " ")
    return _words(text) & _italian_only()
