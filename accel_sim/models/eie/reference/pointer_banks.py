"""A PE's column pointers in two single-ported SRAM banks (brief: even / odd columns).

Pointer p_j sits in bank ``j % 2`` at address ``j // 2``, so p_j and p_j+1 always come from
different banks and are both read in the cycle the PE pops (a_j, j); column j's slice is
entries ``p_j .. p_j+1 - 1`` of the sparse-matrix SRAM.
"""
from __future__ import annotations

import numpy as np

BANKS = 2  # brief: even / odd


class PointerBanks:
    def __init__(self, col_ptr: np.ndarray):
        self.banks = tuple(np.asarray(col_ptr[b::BANKS], dtype=np.int64) for b in range(BANKS))
        self.reads = [0] * BANKS   # pointers read from each bank

    def _read(self, pointer: int) -> int:
        bank = pointer % BANKS
        self.reads[bank] += 1
        return int(self.banks[bank][pointer // BANKS])

    def slice_bounds(self, column: int) -> tuple[int, int]:
        """``(p_j, p_j+1)`` of column ``column``: one read in each bank."""
        return self._read(column), self._read(column + 1)
