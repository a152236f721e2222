"""The sparse-matrix SRAM on the fast path: line reads of each processed column slice.

A read returns ``spmat_sram_width`` bits = ``entries_per_read`` entries (brief: 64 bits, 8
entries). A slice reads every line its entries span; no line is kept from one slice to the next.
"""
from __future__ import annotations

import numpy as np


def spmat_line_reads(pointer: np.ndarray, entries: np.ndarray, entries_per_read: int) -> np.ndarray:
    """SRAM reads to stream each slice starting at entry ``pointer`` with ``entries`` entries."""
    last = pointer + entries - 1
    return np.where(entries > 0, last // entries_per_read - pointer // entries_per_read + 1, 0)
