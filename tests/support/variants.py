"""Every variant with its defaults and with the settings that change its play (`COMBOS`), for
the simulation and player tests."""

from __future__ import annotations

from bot.engine import VARIANTS

COMBOS: list[tuple[str, dict[str, str]]] = [(v, {}) for v in VARIANTS] + [
    ("due", {"retrump": "true"}),
    ("due", {"deck": "french", "southern": "true"}),
    ("quattro", {"signals": "true"}),
    ("sei", {"teams": "threes"}),
    ("sei", {"signals": "true"}),
    ("chiamata", {"overbid": "false"}),
    ("chiamata", {"deck": "french", "southern": "true"}),
    ("chiamata", {"carichi": "true"}),
    ("chiamata", {"auction": "points"}),
    ("chiamata", {"lead": "caller", "cappotto": "all_tricks"}),
    ("chiamata4", {"auction": "points"}),
    ("chiamata", {"auction_start": "dealer_left"}),  # §7.2
    ("chiamata", {"first_must_call": "true"}),  # §7.2
    ("chiamata", {"two_caller_raises": "false"}),  # §7.3
    ("chiamata", {"carichi": "true", "carichi_mode": "continues"}),  # §7.8
    ("chiamata4", {"auction_start": "dealer_left", "first_must_call": "true"}),
    ("briskula32", {"players": "3"}),
    ("briskula32", {"players": "4", "teams": "pairs"}),
    ("doppia", {"players": "4", "teams": "pairs"}),
    ("doppia", {"players": "4"}),
]
