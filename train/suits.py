"""The fits' augmentation (`train.fit`): one position seen with the three suits other than
the briscola in another order, every array that names a card following (no PyTorch here)."""

from __future__ import annotations

import numpy as np


def shuffle_suits(rows: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Rows whose first 40 places are per canonical card, with the three suits other than the
    briscola shuffled (one order per row); and per row the map old canonical id -> new, for
    the other arrays that follow it (`moved`, `renamed`)."""
    m = rows.shape[0]
    perm = np.argsort(rng.random((m, 3)), axis=1) + 1  # new suit for old suits 1..3
    new_of = np.tile(np.arange(40), (m, 1))
    for old in range(3):
        for r in range(10):
            new_of[:, (old + 1) * 10 + r] = perm[:, old] * 10 + r
    return moved(rows, new_of), new_of


def moved(a: np.ndarray, new_of: np.ndarray) -> np.ndarray:
    """`a` (a row per position) with its first 40 places, one per canonical card, where
    `new_of` puts each card."""
    out = a.copy()
    out[np.arange(len(a))[:, None], new_of] = a[:, :40]
    return out


def renamed(ids: np.ndarray, new_of: np.ndarray) -> np.ndarray:
    """Canonical card ids (one row per position, or one id) under `new_of`; 40 or more
    (no card) stay as they are."""
    ar = np.arange(len(ids))
    ar = ar[:, None] if ids.ndim == 2 else ar
    return np.where(ids < 40, new_of[ar, np.minimum(ids, 39)], ids)
