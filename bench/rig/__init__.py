"""What the tests and the benches both run the bot with: the stand-in Telegram Bot API
(`telegram`, with Telegram's limits in `stand_in`), the bot as a process (`bot_process`, its
idle probe `bot_probe`), scripted people (`people`, reading cards with `cards`), the Mini App
in a browser (`browser`) or served in the process (`page_rig`), and the PostgreSQL backend
(`backends`). `tests/` and `bench/` both import it; it imports nothing from `tests/`, and
helpers only the tests use stay in `tests/support/`."""
