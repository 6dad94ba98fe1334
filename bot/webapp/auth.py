"""Who is at the Mini App: Telegram's `initData` checked on the server, then a short-lived
signed token for the session; and which table they may look at.

`initData` is the query string Telegram hands the page (user, auth_date, hash, ...). It is
genuine when its `hash` is HMAC-SHA256, keyed with HMAC-SHA256("WebAppData", bot token), of
the data-check string: every received field but `hash`, as received (URL-decoded), sorted by
name, `name=value` joined by newlines. An initData signed more than an hour ago opens no new
session (`MAX_AUTH_AGE`), so a copied one soon stops working. The token then names the user
for an hour; it is signed with a key derived from the bot token, so every worker of the bot
accepts it, also after a restart. A page renews its token with the token itself
(`Tokens.renew`), up to a day after Telegram signed the initData it began with.

A table is opened by the link on its group's message, `startapp=t<id>_<key>`: the key is an
HMAC of the table id under a secret derived from the bot token (`TableKeys`), 132 bits that
cannot be guessed from the id, which counts from 1. A request for a table needs its key or a
seat at it. Session creation is rate limited (`RateLimit`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode

from bot.i18n import lang_of

MAX_AUTH_AGE = 3600.0  # seconds an initData opens a new session after Telegram signed it
MAX_SESSION_AGE = 24 * 3600.0  # seconds a session may be renewed after its initData was signed
TOKEN_LIFETIME = 3600.0  # seconds a session token is good for (the page asks for another)
TABLE_KEY_CHARS = 22  # base64url characters of a table's key (132 bits)
FUTURE_SKEW = 300.0  # an auth_date this far ahead of our clock is still believed


class AuthError(Exception):
    """Refused: `reason` says why (for the log; the page gets a plain refusal)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Viewer:
    """The person behind a session."""

    user_id: int
    name: str
    lang: str | None  # "it" or "en" from their Telegram language, None if neither
    start_param: str = ""
    auth_date: int = field(default=0, compare=False)  # when Telegram signed the initData


def _secret_key(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def sign_init_data(fields: dict[str, str], bot_token: str) -> str:
    """`fields` as Telegram would send them, hash included (the tests' stand-in for
    Telegram; the check below is what matters)."""
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()) if k != "hash")
    digest = hmac.new(_secret_key(bot_token), check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})


def check_init_data(
    raw: str, bot_token: str, now: float | None = None, max_age: float = MAX_AUTH_AGE
) -> Viewer:
    """The viewer `raw` (the page's `Telegram.WebApp.initData`) vouches for, or AuthError."""
    if not raw or len(raw) > 8192:
        raise AuthError("no initData")
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise AuthError("initData is not a query string") from None
    fields: dict[str, str] = {}
    for key, value in pairs:
        if key in fields:
            raise AuthError(f"field {key!r} given twice")
        fields[key] = value
    given = fields.pop("hash", "")
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    expected = hmac.new(_secret_key(bot_token), check.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise AuthError("bad hash")
    now = time.time() if now is None else now
    try:
        auth_date = int(fields["auth_date"])
    except (KeyError, ValueError):
        raise AuthError("no auth_date") from None
    if now - auth_date > max_age or auth_date - now > FUTURE_SKEW:
        raise AuthError("stale auth_date")
    try:
        user = json.loads(fields["user"])
        user_id = int(user["id"])
    except (KeyError, ValueError, TypeError):
        raise AuthError("no user") from None
    name = " ".join(
        str(user.get(k) or "").strip() for k in ("first_name", "last_name") if user.get(k)
    )
    return Viewer(
        user_id=user_id,
        name=name or str(user.get("username") or user_id),
        lang=lang_of(user.get("language_code")),
        start_param=fields.get("start_param", ""),
        auth_date=auth_date,
    )


class Tokens:
    """Session tokens: `<payload>.<signature>`, base64url JSON signed with HMAC-SHA256."""

    def __init__(self, bot_token: str, lifetime: float = TOKEN_LIFETIME) -> None:
        self._key = hashlib.sha256(b"briscola miniapp session " + bot_token.encode()).digest()
        self.lifetime = lifetime

    def _sign(self, payload: bytes) -> str:
        mac = hmac.new(self._key, payload, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

    def issue(self, viewer: Viewer, now: float | None = None) -> tuple[str, int]:
        """A token for `viewer`, and when it expires (unix seconds)."""
        now = time.time() if now is None else now
        expires = int(now + self.lifetime)
        body = {
            "u": viewer.user_id,
            "n": viewer.name,
            "l": viewer.lang,
            "e": expires,
            "a": viewer.auth_date or int(now),
        }
        payload = base64.urlsafe_b64encode(json.dumps(body).encode()).rstrip(b"=")
        return f"{payload.decode()}.{self._sign(payload)}", expires

    def check(self, token: str, now: float | None = None) -> Viewer:
        payload, _, signature = token.partition(".")
        if not payload or not hmac.compare_digest(
            signature.encode(), self._sign(payload.encode()).encode()
        ):
            raise AuthError("bad token")
        try:
            body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
            viewer = Viewer(int(body["u"]), str(body["n"]), body["l"], auth_date=int(body["a"]))
            expires = float(body["e"])
        except (ValueError, KeyError, TypeError):
            raise AuthError("bad token") from None
        if (time.time() if now is None else now) >= expires:
            raise AuthError("token expired")
        return viewer

    def renew(self, token: str, now: float | None = None) -> tuple[Viewer, str, int]:
        """A fresh token for the session `token` (still valid) names, as long as the
        session's initData was signed less than `MAX_SESSION_AGE` ago."""
        now = time.time() if now is None else now
        viewer = self.check(token, now)
        if now - viewer.auth_date > MAX_SESSION_AGE:
            raise AuthError("session too old")
        return (viewer, *self.issue(viewer, now))


class TableKeys:
    """The unguessable key of each table (`startapp=t<id>_<key>`), derived from the bot
    token: the same in every worker, and after a restart."""

    def __init__(self, bot_token: str) -> None:
        self._key = hashlib.sha256(b"briscola miniapp table " + bot_token.encode()).digest()

    def key(self, table_id: int) -> str:
        mac = hmac.new(self._key, str(table_id).encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).decode()[:TABLE_KEY_CHARS]

    def param(self, table_id: int) -> str:
        """The start parameter of the table's link (Telegram allows A-Z a-z 0-9 _ -)."""
        return f"t{table_id}_{self.key(table_id)}"

    def check(self, table_id: int, key: str) -> bool:
        return hmac.compare_digest(key.encode(), self.key(table_id).encode())


class RateLimit:
    """Token buckets by key: `burst` at once, then one more every `every` seconds. At most
    `keys` buckets are kept (the least recently used go first: a forgotten key starts full,
    which is what a new one gets anyway)."""

    def __init__(self, burst: int, every: float, keys: int = 10_000) -> None:
        self.burst = burst
        self.every = every
        self.keys = keys
        self._buckets: OrderedDict[object, tuple[float, float]] = OrderedDict()

    def take(self, key: object, now: float | None = None) -> float:
        """0 when `key` may go on now (one token taken), else the seconds until it may."""
        now = time.monotonic() if now is None else now
        tokens, then = self._buckets.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) / self.every)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) * self.every
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.keys:
            self._buckets.popitem(last=False)
        return wait
