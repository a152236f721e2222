"""A PE's sparse-matrix SRAM: its entries (v, z), read ``entries_per_read`` at a time.

Brief: 64-bit reads of 8-bit entries, 8 entries per read; the PE consumes one entry per cycle.
Streaming a column slice reads a new line whenever the next entry lies in a line not yet read
for this slice (no line is kept from one slice to the next).
"""
from __future__ import annotations

import numpy as np

from accel_sim.models.eie.plan.operands import PEStorage


class SparseMatrixSram:
    def __init__(self, storage: PEStorage, entries_per_read: int):
        self.codes = storage.codes
        self.rel_index = storage.rel_index
        self.entries_per_read = entries_per_read
        self.reads = 0   # lines read

    def read_slice(self, begin: int, end: int) -> tuple[np.ndarray, np.ndarray]:
        """The entries ``begin .. end - 1`` as ``(v, z)`` arrays, counting the lines streamed."""
        if end > begin:
            line = np.arange(begin, end) // self.entries_per_read
            self.reads += 1 + int(np.count_nonzero(line[1:] != line[:-1]))
        return self.codes[begin:end], self.rel_index[begin:end]
