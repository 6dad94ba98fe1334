"""The Telegram front: the Application (`app`), messages kept up to date (`outbox`), rendering
and button data, pacing (`rate_limiter`), admins, the typed context."""
