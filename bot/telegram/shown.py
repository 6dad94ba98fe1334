"""What a message shows, as noted in the database: a digest of its content, marked for a
person's turn; and what a message is known to show from those notes, even after a crash.

The outbox compares these strings, not the content itself: equal, the message is left as it
is; different, it is edited (or, for a new turn, sent anew). A restarted bot reads the notes
back (`known`) and so edits only what changed."""

from __future__ import annotations

import hashlib

from bot.view.render import Rendered
from storage.models import Shown

TURN_MARK = "t:"  # prefix of the noted digest of a private message sent for the person's turn
UNSURE = "?"  # ends what is known of a turn message whose last edit was not confirmed


def turn_mark(noted: str) -> str:
    """The mark of a digest noted for a person's turn (`TURN_MARK`, the turn's key, `|`), or
    ""."""
    if not noted.startswith(TURN_MARK) or "|" not in noted:
        return ""
    return noted[: noted.index("|") + 1]


def known(shown: Shown | None) -> str | None:
    """What a message is known to show, from its notes: the digest; None if nothing is
    known. When an edit was noted and not confirmed (a crash in between), the message shows
    the old content or the new one; if both are of the same turn (an edit within a turn keeps
    its mark), that turn's mark and `UNSURE`: the next render of that turn edits the message
    (the mark says it is of the turn; `UNSURE` never equals a digest) instead of sending a
    second one."""
    if shown is None:
        return None
    if shown.editing is None:
        return shown.digest
    mark = turn_mark(shown.digest)
    return mark + UNSURE if mark and mark == turn_mark(shown.editing) else None


def digest(content: Rendered) -> str:
    """A short stable fingerprint of a message's text and buttons."""
    return hashlib.blake2b(repr(content.key()).encode(), digest_size=10).hexdigest()
