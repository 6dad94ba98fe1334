"""Configuration from the environment and `.env` (pydantic-settings)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr
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
    log_level: str = "INFO"
    # Telegram's limits (bot.telegram.rate_limiter); tests against the stand-in server may
    # raise them.
    rate_per_second: int = Field(default=30, ge=1)
    group_rate_per_minute: int = Field(default=20, ge=1)
    private_rate_per_second: int = Field(default=1, ge=1)
    # seconds between two edits of a group's table message: 15 a minute at most, so that of
    # Telegram's 20 a minute per group some are left for answers and notices
    group_edit_interval: float = 4.0
    bot_move_delay: float = 0.0  # seconds a computer player waits before moving
    # every wait of bot.table.deadlines (turn timer, mention, next hand, lobby expiry, cancel
    # request) is multiplied by this: tests shorten them; the values are at 1
    timer_scale: float = Field(default=1.0, gt=0.0, le=100.0)
    # seconds the `hard` computer player thinks per move (it stops earlier when sure)
    hard_budget: float = Field(default=0.2, gt=0.0, le=10.0)
    # worker processes for the `hard` player's search (unset: one per core but one; 0: threads)
    computer_workers: int | None = Field(default=None, ge=0, le=64)


NO_TOKEN_HELP = """\
BOT_TOKEN is not set, so the bot cannot log in to Telegram.

1. In Telegram, open @BotFather, send /newbot and follow the steps; it replies with a token.
2. Put it in a file named .env next to where you run the bot (see .env.example):
       BOT_TOKEN=123456:ABC...
   or export BOT_TOKEN in the environment.
3. Run `python -m bot` again.
"""
