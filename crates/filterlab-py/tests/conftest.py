"""Shared helpers: seeded keys and the binomial tolerance of the statistical tests."""

import math
import random


def keys(prefix: str, n: int, seed: int = 7):
    """`n` distinct e-mail-like keys, the same on every run."""
    rng = random.Random(seed)
    return [f"{prefix}{i}.{rng.getrandbits(32):08x}@example.com" for i in range(n)]


def binomial_upper(trials: int, p: float, z: float = 4.0) -> float:
    """The count of successes that `trials` Bernoulli(p) draws exceed with probability about
    that of a normal beyond `z` sigmas (z = 4: about 3e-5)."""
    return trials * p + z * math.sqrt(trials * p * (1 - p)) + 1


def binomial_within(count: int, trials: int, p: float, z: float = 4.0) -> bool:
    """Whether `count` successes of `trials` draws agree with rate `p` (two-sided)."""
    sigma = math.sqrt(trials * p * (1 - p))
    return abs(count - trials * p) <= z * sigma + 1
