"""What the tests and the benches both run the bot with: the stand-in Telegram Bot API
(`telegram`, with Telegram's limits in `stand_in`), the bot as a process (`bot_process`, its
idle probe `bot_probe`), scripted people (`people`, reading cards with `cards`), the Mini App
in a browser (`browser`) or served in the process (`page_rig`), and the storage backends,
PostgreSQL's server among them (`backends`). Both `tests/` and `bench/` use it, and it takes
nothing from `tests/` (`tests/test_layers.py` checks that no module of `bench/` does);
helpers only the tests need stay in `tests/support/`."""
