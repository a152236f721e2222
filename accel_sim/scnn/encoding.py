"""Storage of SCNN's zero-run blocks, counted for many blocks at once (vectorised).

One block (an activation tile of one channel, or one output-channel group of one channel's
weights) is stored as :class:`accel_sim.compress.SCNNZeroRun`: an entry count of
``bit_length(block size)`` bits, then one (value, 4-bit zeros-before) entry per non-zero
and one zero-valued placeholder entry per ``2**run_bits`` zeros of a longer run.
:func:`block_bits` gives the same totals as ``SCNNZeroRun.from_dense(block).storage(bits)``
for thousands of blocks without building them (tests check the two agree).
"""
from __future__ import annotations

import numpy as np


def block_entries(block_ids: np.ndarray, positions: np.ndarray, n_blocks: int, run_bits: int) -> np.ndarray:
    """Stored entries (values and placeholders) per block.

    ``block_ids`` / ``positions`` are the non-zeros, sorted by block then by linear
    position inside the block.
    """
    if block_ids.size == 0:
        return np.zeros(n_blocks, dtype=np.int64)
    first = np.ones(block_ids.size, dtype=bool)
    first[1:] = block_ids[1:] != block_ids[:-1]
    previous = np.where(first, -1, np.concatenate(([-1], positions[:-1])))
    placeholders = (positions - previous - 1) >> run_bits
    return np.bincount(block_ids, weights=1 + placeholders, minlength=n_blocks).astype(np.int64)


def count_field_bits(block_size: np.ndarray | int) -> np.ndarray:
    """Width of a block's entry-count field (as SCNNZeroRun's default)."""
    sizes = np.asarray(block_size, dtype=np.int64)
    return np.where(sizes > 0, np.floor(np.log2(np.maximum(sizes, 1))).astype(np.int64) + 1, 0)


def block_bits(entries: np.ndarray, block_sizes: np.ndarray, value_bits: int, run_bits: int) -> np.ndarray:
    """Bits of each block: entries x (value + run) plus the count field."""
    return entries * (value_bits + run_bits) + count_field_bits(block_sizes)
