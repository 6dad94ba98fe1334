"""A table's life, pure: lobby, seats, settings, deals (`table`), the ledger (§10), hand
records, deadlines. No I/O and no Telegram."""
