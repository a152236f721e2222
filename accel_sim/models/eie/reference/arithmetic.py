"""A PE's arithmetic unit: codebook lookup, address accumulator, multiply-accumulate, bypass.

Brief: each entry's 4-bit v indexes the 16-entry shared-weight codebook (16-bit fixed point);
the address accumulator turns the relative index z into the local row (it adds z + 1, starting
from -1 at each slice); weight x a_j is added to accumulator b_row. When an entry hits the same
accumulator as the PE's previous entry, the bypass forwards the sum (no accumulator read).
Padding entries (v = 0) go through the unit like any entry (the codebook's 0). The
accumulators sum exactly (int64): the result is checked against a numpy functional model.
"""
from __future__ import annotations

import numpy as np


class ArithmeticUnit:
    def __init__(self, codebook: np.ndarray, local_rows: int):
        self.codebook = np.asarray(codebook, dtype=np.int64)
        self.accumulators = np.zeros(local_rows, dtype=np.int64)
        self.last_row = -1           # row of the previous entry of this vector
        self.entries = 0             # entries processed (each a lookup and a MAC)
        self.padding = 0             # entries with v = 0
        self.bypasses = 0            # entries on the previous entry's accumulator

    def start_vector(self) -> None:
        self.accumulators[:] = 0
        self.last_row = -1

    def run_slice(self, codes: np.ndarray, rel_index: np.ndarray, activation: int) -> np.ndarray:
        """Process one slice's entries for activation code ``activation``; returns their local rows."""
        rows = np.cumsum(rel_index + 1) - 1
        if rows.size:
            self.accumulators[rows] += self.codebook[codes] * activation   # rows of one slice are distinct
            sequence = np.concatenate(([self.last_row], rows))
            self.bypasses += int(np.count_nonzero(sequence[1:] == sequence[:-1]))
            self.last_row = int(rows[-1])
            self.entries += int(rows.size)
            self.padding += int(np.count_nonzero(codes == 0))
        return rows
