"""Learned parts of the computer players: small networks trained from hands the
engine plays itself (`train/`), run here in plain numpy.

- `features`: what a network sees of a position, a hand or an observation (the one encoding,
  shared by the training scripts and the players);
- `nets`: the networks' weights (`weights/<name>.npz`, a few hundred KB, shipped for a part
  once it measures better than the player without it: none yet, README) and their forward
  pass, loaded on first use: importing the players imports neither numpy nor the weights,
  so the bot starts as fast as before (tests/test_learned.py checks it).
"""
