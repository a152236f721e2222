"""The size of every column slice of EIE's storage format, vectorised over the whole matrix.

:func:`slice_stats`: per (column, PE) the entries of EIE's interleaved relative-index CSC
(non-zeros + padding entries, exactly as :class:`~accel_sim.foundations.compress.formats.eie.EIEInterleavedCSC`
stores them), the local row of the first and last entry, and each slice's start offset in the
PE's sparse-matrix SRAM (its column pointer). The fast path counts from these without encoding
the entries themselves.

Orientation: EIE's W is ``outputs x inputs``; a GEMM layer's weights are ``(k, n)`` =
``inputs x outputs``, so column j of W is row j of the layer's weight array.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.foundations.compiled import compiled_loop


@dataclass(frozen=True, eq=False)
class SliceStats:
    """Per column j of W (row of the ``(k, n)`` weights) and PE p, arrays of shape ``(k, n_pes)``."""

    entries: np.ndarray      # entries stored for the slice (non-zeros + padding)
    nonzeros: np.ndarray     # non-zeros of the slice
    first_row: np.ndarray    # local row of the slice's first entry (-1 if empty)
    last_row: np.ndarray     # local row of its last entry (-1 if empty)
    pointer: np.ndarray      # p_j: offset of the slice in the PE's entry list

    @property
    def entries_per_pe(self) -> np.ndarray:
        return self.entries.sum(axis=0)


CHUNK_CELLS = 1 << 21  # mask cells per pass: a chunk's arrays stay in cache (columns are independent)


def count_dtype(k: int, n: int) -> np.dtype:
    """The integer type of the ``(k, n_pes)`` arrays of a ``(k, n)`` mask: int32 when every count fits it, else
    int64. A slice holds at most one entry per local row (a padding entry stands on a zero's row), so a PE's
    pointer stays below ``k * n`` and every row below ``n``. Half the bytes of int64: at 256 PEs the arrays of
    VGG-16's fc6 are 6.4 M cells each, and writing fresh pages costs more than counting into them."""
    return np.dtype(np.int32) if k * n < np.iinfo(np.int32).max else np.dtype(np.int64)


def slice_stats(nonzero: np.ndarray, n_pes: int, max_run: int) -> SliceStats:
    """Entries of every (column, PE) slice of EIE's format for a ``(k, n)`` non-zero mask.

    Output row i is local row ``i // n_pes`` of PE ``i % n_pes``. A non-zero whose gap g to the
    previous one (or the slice start) exceeds ``max_run`` costs ``g // (max_run + 1)`` padding
    entries before it (the rule of :mod:`accel_sim.foundations.compress.formats._zero_runs`). Columns of W
    (rows of the mask) are counted a chunk at a time, then the pointers run over all of them.
    """
    k, n = nonzero.shape
    rows = max(1, CHUNK_CELLS // max(n, 1))
    parts = [_slice_counts(nonzero[lo:lo + rows], n_pes, max_run) for lo in range(0, k, rows)] or \
        [_slice_counts(nonzero, n_pes, max_run)]
    dtype = count_dtype(k, n)
    entries, nonzeros, first_row, last_row = (np.concatenate(arrays).astype(dtype, copy=False)
                                              for arrays in zip(*parts))
    pointer = np.zeros((k, n_pes), dtype=dtype)
    np.cumsum(entries[:-1], axis=0, out=pointer[1:])
    return SliceStats(entries, nonzeros, first_row, last_row, pointer)


def slice_stats_of_positions(index: np.ndarray, shape: tuple[int, int], n_pes: int, max_run: int) -> SliceStats:
    """:func:`slice_stats` of the ``(k, n)`` mask whose true entries are at the flat positions ``index``
    (ascending: the operands' ``weight_nonzeros``). With numba, one compiled pass over the positions
    (:func:`position_counts`: no full-size mask, several times faster); without it, the mask is built and
    counted in numpy. Both give the same arrays (tests run both)."""
    kernel = _compiled()
    if kernel is None:
        mask = np.zeros(shape, dtype=bool)
        mask.reshape(-1)[index] = True
        return slice_stats(mask, n_pes, max_run)
    k, n = shape
    entries, nonzeros, first_row, last_row, pointer = np.empty((5, k, n_pes), dtype=count_dtype(k, n))
    kernel(np.asarray(index, dtype=np.int64), n, n_pes, max_run, entries, nonzeros, first_row, last_row, pointer)
    return SliceStats(entries, nonzeros, first_row, last_row, pointer)


def position_counts(index: np.ndarray, n: int, n_pes: int, max_run: int, entries: np.ndarray, nonzeros: np.ndarray,
                    first_row: np.ndarray, last_row: np.ndarray, pointer: np.ndarray) -> None:
    """The ``(k, n_pes)`` arrays of :func:`slice_stats`, written column of W by column (every row of every
    array), from the ascending flat positions ``index`` of a ``(k, n)`` mask: within a (column, PE) slice
    the local rows come in ascending order, so ``last_row`` holds the previous entry's row (-1 before the
    first) and the first entry's row is the smallest: ``first_row`` keeps a minimum, without a branch on
    whether the entry is the slice's first (unpredictable when slices hold few entries). The loop numba
    compiles (plain Python too: slow, the tests run it on small masks)."""
    k = entries.shape[0]
    shift = -1   # log2(n_pes) when n_pes is a power of two: shifts instead of divisions
    if n_pes & (n_pes - 1) == 0:
        shift = 0
        while (1 << shift) < n_pes:
            shift += 1
    run_shift = -1   # log2(max_run + 1) likewise (the gap before an entry is >= 0: // is >> then)
    if (max_run + 1) & max_run == 0:
        run_shift = 0
        while (1 << run_shift) < max_run + 1:
            run_shift += 1
    none = max_run + 1   # above any first row (a padding entry first sits on row max_run): an empty slice
    t = 0
    for j in range(k):
        for p in range(n_pes):
            entries[j, p] = 0
            nonzeros[j, p] = 0
            first_row[j, p] = none
            last_row[j, p] = -1
            pointer[j, p] = 0 if j == 0 else pointer[j - 1, p] + entries[j - 1, p]
        row_start = j * n
        while t < index.size and index[t] < row_start + n:
            i = index[t] - row_start
            t += 1
            if shift >= 0:
                p, r = i & (n_pes - 1), i >> shift
            else:
                p, r = i % n_pes, i // n_pes
            previous = last_row[j, p]
            first_row[j, p] = min(first_row[j, p], min(r, max_run))   # a padding entry first sits on row max_run
            gap = r - previous - 1
            entries[j, p] += (gap >> run_shift if run_shift >= 0 else gap // (max_run + 1)) + 1
            nonzeros[j, p] += 1
            last_row[j, p] = r
        for p in range(n_pes):
            if first_row[j, p] == none:
                first_row[j, p] = -1


def _compiled():
    """:func:`position_counts` compiled by numba (:func:`compiled_loop`), or None when numba is not installed."""
    return compiled_loop(position_counts)


def _slice_counts(nonzero: np.ndarray, n_pes: int, max_run: int) -> tuple[np.ndarray, ...]:
    """(entries, non-zeros, first row, last row) of every (column, PE) slice, each ``(k, n_pes)``."""
    k, n = nonzero.shape
    local_rows = -(-n // n_pes)
    if local_rows * n_pes == n:
        padded = np.asarray(nonzero, dtype=bool)
    else:
        padded = np.zeros((k, local_rows * n_pes), dtype=bool)
        padded[:, :n] = nonzero
    # (column, PE, local row) order: a contiguous copy, then one flat scan.
    flat = np.flatnonzero(np.ascontiguousarray(padded.reshape(k, local_rows, n_pes).transpose(0, 2, 1)))
    segment, row = np.divmod(flat, local_rows)
    first = np.ones(segment.size, dtype=bool)
    first[1:] = segment[1:] != segment[:-1]
    previous = np.empty_like(row)
    previous[1:] = row[:-1]
    previous[first] = -1
    cost = (row - previous - 1) // (max_run + 1) + 1
    size = k * n_pes
    entries = np.bincount(segment, weights=cost, minlength=size).astype(np.int64).reshape(k, n_pes)
    nonzeros = np.bincount(segment, minlength=size).astype(np.int64).reshape(k, n_pes)
    first_row = np.full(size, -1, dtype=np.int64)
    last_row = np.full(size, -1, dtype=np.int64)
    first_row[segment[first]] = np.minimum(row[first], max_run)  # a padding entry first sits on row max_run
    last = np.ones(segment.size, dtype=bool)
    last[:-1] = first[1:]
    last_row[segment[last]] = row[last]
    return entries, nonzeros, first_row.reshape(k, n_pes), last_row.reshape(k, n_pes)
