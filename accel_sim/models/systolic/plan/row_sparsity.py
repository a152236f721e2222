"""Row-wise filter sparsity (SCALE-Sim 3.0.0 ``OptimizedMapping: true``, weight stationary), pure.

SCALE-Sim draws, for every layer and filter column ``c`` in order, ``N_c = randint(1, BS/2 + 1)``
from numpy's legacy ``RandomState`` reseeded with ``RandomNumberGeneratorSeed`` for each layer
(``operand_matrix.create_filter_matrix``), so every layer draws the same sequence. Filter ``c``
keeps the window elements ``k`` with ``k mod BS < N_c`` (``BS``: ``BlockSize``).

The filter operand is then packed in ``ellpack_block`` form: window rows are padded to a multiple
of ``2 BS`` and every pair of ``BS``-row blocks becomes ``BS`` compressed rows, ``BS/2`` slots per
block, its kept weights first, unused slots idle (``-1``). The array holds ``K' = ceil(K / 2BS) BS``
compressed rows, so a fold of ``R`` rows covers ``2R`` window rows; the ifmap is not compressed and
each PE row is sent the ``BS`` ifmap values of its block (:func:`slot_block`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.hardware.scalesim_scratchpad import NO_ADDRESS


@dataclass(frozen=True)
class RowSparsity:
    """The row-wise pattern of one layer: block size and each filter's kept weights per block."""

    block_size: int                 # BS (SCALE-Sim BlockSize)
    kept_per_block: tuple[int, ...]  # N_c of every filter column c

    @property
    def slots(self) -> int:
        """Compressed rows per original block (``BS/2``)."""
        return self.block_size // 2

    def compressed_rows(self, k: int) -> int:
        """``K' = ceil(K / 2BS) * BS``: rows of the packed filter operand."""
        return -(-k // (2 * self.block_size)) * self.block_size

    def kept_weights(self, k: int) -> int:
        """Weights kept over all filters: ``sum_c floor(K/BS) N_c + min(N_c, K mod BS)``."""
        n = np.asarray(self.kept_per_block, dtype=np.int64)
        whole, rest = divmod(k, self.block_size)
        return int((whole * n + np.minimum(n, rest)).sum())


def draw_row_sparsity(block_size: int, seed: int, filters: int) -> RowSparsity:
    """Each filter's N in [1, BS/2], as SCALE-Sim's reseeded legacy numpy stream draws them."""
    draws = np.random.RandomState(seed).randint(1, block_size // 2 + 1, size=filters)
    return RowSparsity(block_size, tuple(int(n) for n in draws))


def slot_block(row: np.ndarray | int, block_size: int) -> np.ndarray | int:
    """Original block (within the fold's window rows) whose weights compressed row ``row`` holds."""
    return row // (block_size // 2)


def compressed_filter(pattern: RowSparsity, k: int, addresses: np.ndarray) -> np.ndarray:
    """The packed ``K' x N`` filter operand: slot ``s`` of block ``b`` holds window row
    ``b BS + s`` when ``s < N_c`` (and the row exists), else ``-1``. ``addresses`` is the dense
    ``K x N`` filter address matrix."""
    rows = np.arange(pattern.compressed_rows(k))
    block, slot = np.divmod(rows, pattern.slots)
    window_row = block * pattern.block_size + slot
    kept = np.asarray(pattern.kept_per_block)
    valid = (slot[:, None] < kept[None, :]) & (window_row < k)[:, None]
    return np.where(valid, addresses[np.minimum(window_row, k - 1)], NO_ADDRESS).astype(addresses.dtype)
