"""Training of the computer players' learned parts (issue 41), from hands the engine plays.

Each script makes its data in resumable chunks under `.cache/` (git-ignored), reproducible
from a seed, and writes the weights the players ship (`bot/players/learned/weights/`):

    python -m train.value_data --variant chiamata --chunks 0-19     # positions, outcomes
    python -m train.fit value                                       # the value network

Training needs PyTorch (`pip install -e '.[train]'`, the CPU build will do); the players
never import it.
"""
