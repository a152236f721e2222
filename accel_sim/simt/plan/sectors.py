"""Coalescing (pure numpy): how many 32-byte sectors a warp's accesses touch."""
from __future__ import annotations

import numpy as np


def span_sectors(start: np.ndarray, nbytes: np.ndarray, sector: int) -> np.ndarray:
    """Sectors covering each contiguous byte range ``[start, start + nbytes)`` (0 for an empty range)."""
    start = np.asarray(start, dtype=np.int64)
    nbytes = np.asarray(nbytes, dtype=np.int64)
    end = start + np.maximum(nbytes, 1) - 1
    return np.where(nbytes > 0, end // sector - start // sector + 1, 0)


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (a sort and a neighbour compare: faster than hashing large keys)."""
    ordered = np.sort(np.asarray(values, dtype=np.int64), kind="stable")
    if ordered.size == 0:
        return ordered
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def distinct_per_group(group: np.ndarray, key: np.ndarray, groups: int) -> np.ndarray:
    """Distinct ``key`` values inside each group ``0 .. groups-1`` (a warp instruction's distinct sectors,
    a CTA's distinct dense-operand rows)."""
    group = np.asarray(group, dtype=np.int64)
    key = np.asarray(key, dtype=np.int64)
    if group.size == 0:
        return np.zeros(groups, dtype=np.int64)
    pairs = sorted_unique(group * (int(key.max()) + 1) + key)
    return np.bincount(pairs // (int(key.max()) + 1), minlength=groups).astype(np.int64)
