"""Configuration from the environment and `.env` (pydantic-settings)."""

from __future__ import annotations

import hashlib
import ipaddress
import re
from typing import Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    # an empty variable (COMPUTER_WORKERS= in .env) means "not set": the default applies
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", env_ignore_empty=True
    )

    bot_token: SecretStr | None = None
    telegram_base_url: str = "https://api.telegram.org/bot"
    database_url: str = "sqlite:///briscola.db"
    default_language: Literal["it", "en"] = "it"
    # the groups' clock: the times in /export, /undo and the like (an IANA zone name)
    timezone: str = "Europe/Rome"
    log_level: str = "INFO"
    # Telegram's limits (bot.telegram.rate_limiter); tests against the stand-in server may
    # raise them.
    rate_per_second: int = Field(default=30, ge=1)
    group_rate_per_minute: int = Field(default=20, ge=1)
    private_rate_per_second: int = Field(default=1, ge=1)
    # seconds between two edits of a group's table message: 15 a minute at most, so that of
    # Telegram's 20 a minute per group some are left for answers and notices
    group_edit_interval: float = 4.0
    # seconds a routine change (a bid, the call, a card, a trick taken) waits before the
    # group's table message shows it, with the moves made meanwhile (issue 50.4: at most
    # 10 s); a hand's start or end waits only `group_edit_interval` (bench.bot_load)
    group_routine_interval: float = Field(default=9.0, ge=0.0)
    bot_move_delay: float = 0.0  # seconds a computer player waits before moving
    # every wait of bot.table.deadlines (turn timer, mention, next hand, lobby expiry, cancel
    # request) is multiplied by this: tests shorten them; the values are at 1
    timer_scale: float = Field(default=1.0, gt=0.0, le=100.0)
    # seconds the `hard` computer player thinks per move (it stops earlier when sure)
    hard_budget: float = Field(default=0.2, gt=0.0, le=10.0)
    # worker processes for the `hard` player's search (unset: one per core but one; 0: threads)
    computer_workers: int | None = Field(default=None, ge=0, le=64)
    # Webhook mode (instead of polling): the public HTTPS address Telegram posts updates to
    # (a proxy in front forwards it to this process), the local address and port to listen
    # on, and the secret Telegram sends back in a header with every update (unset: one
    # derived from BOT_TOKEN, the same in every process of the bot).
    webhook_url: str | None = None
    webhook_secret: SecretStr | None = None
    webhook_listen: str = "0.0.0.0"
    port: int = Field(default=8080, ge=1, le=65535)
    # Prometheus's /metrics (docs/operating.md, "Metrics"): served by the HTTP server on PORT
    # whenever it runs (webhook mode, the Mini App), and by a server of its own on
    # METRICS_LISTEN:METRICS_PORT when that is set (0 or unset: none), for polling, which
    # has no other.
    metrics_port: int = Field(default=0, ge=0, le=65535)
    # The reverse proxies in front of PORT (docs/operating.md): addresses or networks, comma
    # separated ("127.0.0.1,10.0.0.0/8"). A request from one of them counts, for the Mini
    # App's session limit, against the client address it forwards in X-Forwarded-For; any
    # other request against its own address. Empty: nobody's forwarding is believed.
    trusted_proxies: str = ""

    def trusted_proxy_networks(self) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
        return [
            ipaddress.ip_network(part.strip(), strict=False)
            for part in self.trusted_proxies.split(",")
            if part.strip()
        ]

    metrics_listen: str = "127.0.0.1"
    # How many worker processes of this bot share its database (webhook mode on PostgreSQL,
    # docs/operating.md, "Several workers"): each takes this share of Telegram's 30 calls a
    # second, which are the bot's as a whole (a group's 20 a minute are claimed call by call
    # through the database, `bot.telegram.rate_limiter`).
    workers: int = Field(default=1, ge=1, le=64)
    # The Mini App (docs/operating.md, "The Mini App"): the public https:// address that
    # reaches PORT (the page is PUBLIC_URL/app/), and the short name it was given with BotFather's
    # /newapp, for the direct link on the group's table message. Without PUBLIC_URL the bot
    # serves no page and shows no Mini App button.
    public_url: str | None = None
    miniapp_short_name: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_]{3,30}$")

    @field_validator("webhook_url", "public_url")
    @classmethod
    def _https(cls, url: str | None) -> str | None:
        if url is not None and (urlsplit(url).scheme != "https" or not urlsplit(url).netloc):
            raise ValueError("Telegram posts to an https:// address only")
        return url

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: str) -> str:
        for part in value.split(","):
            if part.strip():
                try:
                    ipaddress.ip_network(part.strip(), strict=False)
                except ValueError:
                    raise ValueError(f"not an address or a network: {part.strip()!r}") from None
        return value

    @field_validator("timezone")
    @classmethod
    def _zone(cls, name: str) -> str:
        try:
            ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"not a time zone: {name!r} (e.g. Europe/Rome)") from None
        return name

    @field_validator("webhook_secret")
    @classmethod
    def _secret_chars(cls, secret: SecretStr | None) -> SecretStr | None:
        if secret is not None and not re.fullmatch(
            r"[A-Za-z0-9_-]{1,256}", secret.get_secret_value()
        ):
            raise ValueError("1 to 256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule)")
        return secret

    def miniapp_url(self) -> str | None:
        """The Mini App's page (for BotFather's /newapp), when there is a PUBLIC_URL."""
        return None if self.public_url is None else self.public_url.rstrip("/") + "/app/"

    def webhook_path(self) -> str:
        """The path of WEBHOOK_URL, which this process serves ("/" when it has none)."""
        return urlsplit(self.webhook_url or "").path or "/"

    def secret_token(self) -> str:
        """WEBHOOK_SECRET, or one derived from the token (64 hex characters)."""
        if self.webhook_secret is not None:
            return self.webhook_secret.get_secret_value()
        token = self.bot_token.get_secret_value() if self.bot_token else ""
        return hashlib.sha256(b"briscola webhook " + token.encode()).hexdigest()


NO_TOKEN_HELP = """\
BOT_TOKEN is not set, so the bot cannot log in to Telegram.

1. In Telegram, open @BotFather, send /newbot and follow the steps; it replies with a token.
2. Put it in a file named .env next to where you run the bot (see .env.example):
       BOT_TOKEN=123456:ABC...
   or export BOT_TOKEN in the environment.
3. Run `python -m bot` again.
"""
