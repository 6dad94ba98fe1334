"""The learned parts' networks: small multilayer perceptrons (ReLU between layers), their
weights shipped with the package (`weights/<name>.npz`, float16) and run in numpy.

A network is read on first use (`get`), once per process, never at import; a missing file
or one trained on other inputs (`features.VERSION`) makes `get` answer None, and the players
then decide as they did without it.
"""

from __future__ import annotations

import json
import threading
from importlib import resources
from typing import TYPE_CHECKING, Any

from bot.players.learned import features

if TYPE_CHECKING:
    import numpy as np


class Net:
    """A perceptron: `layers` of (weights in x out, bias), ReLU after each but the last."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any]) -> None:
        self.layers = layers
        self.meta = meta

    @property
    def inputs(self) -> int:
        return int(self.layers[0][0].shape[0])

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """The outputs (rows of `x` are inputs, float32)."""
        import numpy as np

        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < last:
                np.maximum(x, 0.0, out=x)
        return x


_nets: dict[str, Net | None] = {}
_lock = threading.Lock()


def read(name: str) -> Net | None:
    """The network `name` from the package's weights, or None (missing, or trained on
    another version of the inputs)."""
    import numpy as np
    from threadpoolctl import threadpool_limits

    # one BLAS thread in this process: the matrices are small (a few rows by a few hundred),
    # where more threads only wait on each other, and the search runs one process per core
    # (under load, 32 rows through a 429 x 256 layer took 7 ms with OpenBLAS's threads, 0.14
    # ms with one)
    threadpool_limits(1, user_api="blas")
    path = resources.files("bot.players.learned") / "weights" / f"{name}.npz"
    if not path.is_file():
        return None
    with path.open("rb") as fh, np.load(fh, allow_pickle=False) as data:
        meta = json.loads(bytes(data["meta"]).decode())
        if meta.get("version") != features.VERSION:
            return None
        layers = []
        for i in range(len([k for k in data.files if k.startswith("w")])):
            w = np.ascontiguousarray(data[f"w{i}"], dtype=np.float32)
            layers.append((w, data[f"b{i}"].astype(np.float32)))
    return Net(layers, meta)


def get(name: str) -> Net | None:
    """`read(name)`, once per process."""
    if name not in _nets:
        with _lock:
            if name not in _nets:
                _nets[name] = read(name)
    return _nets[name]


def loaded() -> list[str]:
    """The networks this process has read so far (for tests: nothing at import)."""
    return sorted(_nets)
