"""Run-length coding of fmaps on their way to and from DRAM (Chen et al., JSSC 2017, Sec. IV-B, Fig. 8).

A stream of values becomes (run, level) pairs: ``run`` zeros (at most ``max_run``), then the value
``level``. A longer run of zeros is cut: a pair (max_run, 0) stands for ``max_run + 1`` zeros. Zeros
at the end of the stream are closed the same way (a last pair whose level is 0). ``pairs_per_word``
pairs fill one DRAM word; every stream starts a new word. Each stream here is one ifmap or ofmap
plane's rows of one strip.
"""
from __future__ import annotations

import numpy as np


def rlc_pairs(nonzero: np.ndarray, max_run: int) -> np.ndarray:
    """Pairs coding each row of ``nonzero`` (streams x length, True where the value is not zero)."""
    streams, length = nonzero.shape
    rows, cols = np.nonzero(nonzero)
    span = max_run + 1
    pairs = np.bincount(rows, minlength=streams).astype(np.int64)
    first = np.ones(rows.size, dtype=bool)
    first[1:] = rows[1:] != rows[:-1]
    previous = np.empty(cols.size, dtype=np.int64)
    previous[first] = -1
    previous[~first] = cols[:-1][~first[1:]]
    gaps = cols - previous - 1
    pairs += np.bincount(rows, weights=gaps // span, minlength=streams).astype(np.int64)
    last = np.full(streams, -1, dtype=np.int64)
    last[rows] = cols
    pairs += -(-(length - 1 - last) // span)
    return pairs


def rlc_words(nonzero: np.ndarray, max_run: int, pairs_per_word: int) -> np.ndarray:
    """DRAM words coding each row of ``nonzero``."""
    return -(-rlc_pairs(nonzero, max_run) // pairs_per_word)
