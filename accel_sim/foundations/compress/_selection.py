"""Deterministic top-k selection: highest score first, ties to the lower index.

Both functions give the same answer as a stable sort on the negated scores, in linear
time (a 37.7 M-element AlexNet fc6 weight is pruned in well under a second).
"""
from __future__ import annotations

import numpy as np


def keep_top(scores: np.ndarray, keep: int) -> np.ndarray:
    """Boolean mask of the ``keep`` highest entries of a 1-D array."""
    mask = np.zeros(scores.size, dtype=bool)
    if keep <= 0:
        return mask
    if keep >= scores.size:
        mask[:] = True
        return mask
    threshold = np.partition(scores, scores.size - keep)[scores.size - keep]
    above = scores > threshold
    mask |= above
    mask[np.flatnonzero(scores == threshold)[: keep - int(above.sum())]] = True
    return mask


def rank_in_groups(scores: np.ndarray) -> np.ndarray:
    """Rank of each entry inside its group (the last axis): 0 for the highest score.

    Entries ahead of entry i are those with a higher score, or an equal score at a lower
    position. One pass per group position, so meant for short groups (N:M's M).
    """
    length = scores.shape[-1]
    positions = np.arange(length)
    rank = np.zeros(scores.shape, dtype=np.int64 if length > np.iinfo(np.uint8).max else np.uint8)
    for j in range(length):
        other = scores[..., j : j + 1]
        rank += (other > scores) | ((other == scores) & (j < positions))
    return rank
