"""Coalescing (numpy, one loop compiled by numba when installed): how many 32-byte sectors a warp's accesses touch."""
from __future__ import annotations


import numpy as np

from accel_sim.foundations.compiled import compiled_loop


def span_sectors(start: np.ndarray, nbytes: np.ndarray, sector: int) -> np.ndarray:
    """Sectors covering each contiguous byte range ``[start, start + nbytes)`` (0 for an empty range)."""
    start = np.asarray(start, dtype=np.int64)
    nbytes = np.asarray(nbytes, dtype=np.int64)
    end = start + np.maximum(nbytes, 1) - 1
    if sector & (sector - 1) == 0:                                   # a power of two: a shift floors as // does
        shift = int(sector).bit_length() - 1
        return np.where(nbytes > 0, (end >> shift) - (start >> shift) + 1, 0)
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


def cta_sector_lists(cta: np.ndarray, first_byte: np.ndarray, nbytes: np.ndarray, sector: int,
                     ctas: int) -> tuple[np.ndarray, np.ndarray]:
    """Each CTA's distinct sectors of a list of byte ranges given CTA-major with rising addresses inside a
    CTA: ``(ptr, sectors)``, CTA c's sectors sorted in ``sectors[ptr[c]:ptr[c + 1]]`` (a sector two adjacent
    ranges share counted once). With numba one compiled pass over the ranges (:func:`listed_sectors`, each range's
    sectors found in the same pass; the sparse-kernel studies' largest plan cost), else numpy over every range's
    sectors expanded."""
    cta, first_byte = np.asarray(cta).ravel(), np.asarray(first_byte, dtype=np.int64).ravel()   # CTA numbers: integers
    kernel = _compiled()
    if kernel is not None:
        return kernel(cta.astype(np.int64, copy=False), first_byte, np.asarray(nbytes, dtype=np.int64).ravel(), sector,
                      ctas)
    counts = span_sectors(first_byte, np.asarray(nbytes, dtype=np.int64).ravel(), sector)
    offset = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    ids, owner = np.repeat(first_byte // sector, counts) + offset, np.repeat(cta, counts)
    keep = np.concatenate(([True], (ids[1:] != ids[:-1]) | (owner[1:] != owner[:-1])))[:ids.size]
    ids, owner = ids[keep], owner[keep]
    ptr = np.concatenate(([0], np.cumsum(np.bincount(owner, minlength=ctas)))).astype(np.int64)
    return ptr, ids


def listed_sectors(cta: np.ndarray, first_byte: np.ndarray, nbytes: np.ndarray, sector: int, ctas: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``(ptr, sectors)`` of the byte ranges ``[first_byte[i], first_byte[i] + nbytes[i])`` of CTAs ``cta[i]``
    (CTA-major), each the sectors :func:`span_sectors` counts from the one holding its first byte (none when empty),
    in order, a sector equal to the one listed just before it for the same CTA dropped (inside a range every sector
    differs from the one before: only a range's first may): the loop numba compiles (plain Python too). Two passes
    over the ranges: the sectors kept, then the list, written once."""
    kept = 0
    last, owner = -1, -1
    for i in range(cta.size):
        if nbytes[i] > 0:
            first = first_byte[i] // sector
            count = (first_byte[i] + nbytes[i] - 1) // sector - first + 1
            kept += count - (1 if kept > 0 and last == first and owner == cta[i] else 0)
            last, owner = first + count - 1, cta[i]
    ids = np.empty(kept, dtype=np.int64)
    ptr = np.zeros(ctas + 1, dtype=np.int64)
    kept = 0
    for i in range(cta.size):
        if nbytes[i] <= 0:
            continue
        first = first_byte[i] // sector
        count = (first_byte[i] + nbytes[i] - 1) // sector - first + 1
        skip = 1 if kept > 0 and ids[kept - 1] == first and owner == cta[i] else 0
        for j in range(skip, count):
            ids[kept] = first + j
            kept += 1
        ptr[cta[i] + 1] += count - skip
        owner = cta[i]
    for c in range(ctas):
        ptr[c + 1] += ptr[c]
    return ptr, ids


def _compiled():
    """:func:`listed_sectors` compiled by numba (:func:`compiled_loop`), or None when numba is not installed."""
    return compiled_loop(listed_sectors)
