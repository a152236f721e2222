"""Run-length coding of fmaps on their way to and from DRAM (Chen et al., JSSC 2017, Sec. IV-B, Fig. 8).

A stream of values becomes (run, level) pairs: ``run`` zeros (at most ``max_run``), then the value
``level``. A longer run of zeros is cut: a pair (max_run, 0) stands for ``max_run + 1`` zeros. Zeros
at the end of the stream are closed the same way (a last pair whose level is 0). ``pairs_per_word``
pairs fill one DRAM word; every stream starts a new word. Each stream here is one ifmap or ofmap
plane's rows of one strip.
"""
from __future__ import annotations

import functools

import numpy as np


def rlc_pairs(nonzero: np.ndarray, max_run: int) -> np.ndarray:
    """Pairs coding each row of ``nonzero`` (streams x length, True where the value is not zero). With numba,
    one compiled pass over the rows (:func:`stream_pairs`); without it, :func:`listed_pairs` lists the
    non-zeros in numpy. Both give the same counts (tests run both)."""
    kernel = _compiled()
    if kernel is None or nonzero.size == 0:
        return listed_pairs(nonzero, max_run)
    pairs = np.zeros(nonzero.shape[0], dtype=np.int64)
    kernel(np.ascontiguousarray(nonzero, dtype=bool), max_run, pairs)
    return pairs


def stream_pairs(nonzero: np.ndarray, max_run: int, pairs: np.ndarray) -> None:
    """:func:`rlc_pairs` of every row into ``pairs``: a non-zero after a gap of g zeros costs g // (max_run + 1)
    cut pairs and its own; the zeros after the last one close with ceil(tail / (max_run + 1)) pairs. The loop
    numba compiles (plain Python too: slow, the tests run it on small streams)."""
    span = max_run + 1
    streams, length = nonzero.shape
    for row in range(streams):
        count, previous = 0, -1
        for col in range(length):
            if nonzero[row, col]:
                count += (col - previous - 1) // span + 1
                previous = col
        pairs[row] = count + (length - 1 - previous + span - 1) // span


@functools.cache
def _compiled():
    """:func:`stream_pairs` compiled by numba (cached on disk), or None when numba is not installed."""
    try:
        from numba import njit
    except ImportError:   # pragma: no cover - depends on the environment
        return None
    return njit(cache=True, nogil=True)(stream_pairs)


def listed_pairs(nonzero: np.ndarray, max_run: int) -> np.ndarray:
    """:func:`rlc_pairs` in numpy: the non-zeros listed, their gaps counted per row."""
    streams, length = nonzero.shape
    span = max_run + 1
    flat = np.flatnonzero(nonzero)                   # row-major positions of the values
    rows = flat // length
    pairs = np.bincount(rows, minlength=streams).astype(np.int64)
    new_row = np.empty(flat.size, dtype=bool)        # the first value of its stream
    new_row[:1] = True
    np.not_equal(rows[1:], rows[:-1], out=new_row[1:])
    before = np.empty_like(flat)                     # the position before the value's run of zeros
    before[1:] = flat[:-1]
    before[new_row] = rows[new_row] * length - 1
    gaps = flat - before - 1
    long = gaps >= span
    if long.any():
        pairs += np.bincount(rows[long], weights=gaps[long] // span, minlength=streams).astype(np.int64)
    ends = np.empty(flat.size, dtype=bool)           # the last value of its stream
    ends[-1:] = True
    np.not_equal(rows[1:], rows[:-1], out=ends[:-1])
    last = np.full(streams, -1, dtype=np.int64)
    last[rows[ends]] = flat[ends] - rows[ends] * length
    pairs += -(-(length - 1 - last) // span)
    return pairs


def rlc_words(nonzero: np.ndarray, max_run: int, pairs_per_word: int) -> np.ndarray:
    """DRAM words coding each row of ``nonzero``."""
    return -(-rlc_pairs(nonzero, max_run) // pairs_per_word)
