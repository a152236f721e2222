"""How a GEMM is cut into tiles on the DLU-style array (pure functions).

Output-stationary blocks: the ``lanes`` MAC units take an ``a x b`` block of outputs and
reduce over ``k`` one operand pair per lane per cycle. The block shape uses as many lanes as
the layer allows (largest ``a x b`` with ``a <= m``, ``b <= n``, ``a x b <= lanes``) and, among
those, needs the fewest operand words per cycle (smallest ``a + b``: each input row is
broadcast to ``b`` lanes, each weight column to ``a``). The reduction is cut into chunks of ``kc`` so that one
tile's operands, ``(a + b) x kc`` words, fit half of the on-chip memory (the other half
loads the next tile). Tiles run block-row by block-row, block-column, then chunk.

Operand reuse: the other half of the on-chip memory keeps whole operands resident. When
the layer's weights (and, if there is room left, its inputs) fit in it, each of their words
comes from DRAM once (with the first tile that needs it) and later tiles read it on chip;
an operand that is not resident is fetched from DRAM by every tile that uses it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from accel_sim.workload.layer import GemmShape

BITS_PER_BYTE = 8


@dataclass(frozen=True)
class Tiling:
    """Tile geometry of one group's GEMM."""

    m: int
    k: int
    n: int
    block_rows: int      # a: output rows per block
    block_cols: int      # b: output columns per block
    chunk: int           # kc: reduction length per tile
    inputs_resident: bool   # the layer's inputs stay on chip after their first fetch
    weights_resident: bool  # the layer's weights stay on chip after their first fetch

    @property
    def row_blocks(self) -> int:
        return math.ceil(self.m / self.block_rows)

    @property
    def col_blocks(self) -> int:
        return math.ceil(self.n / self.block_cols)

    @property
    def chunks(self) -> int:
        return math.ceil(self.k / self.chunk)

    @property
    def tiles(self) -> int:
        return self.row_blocks * self.col_blocks * self.chunks


def plan_tiling(gemm: GemmShape, lanes: int, operand_capacity_bits: int, bits: int) -> Tiling:
    """Tile one group of ``gemm`` for ``lanes`` MAC units and ``operand_capacity_bits`` of on-chip
    memory (double-buffered: a tile may use half) holding ``bits``-bit words."""
    a, b = block_shape(gemm.m, gemm.n, lanes)
    half = operand_capacity_bits // 2
    chunk = min(gemm.k, half // ((a + b) * bits))
    if chunk < 1:
        raise ValueError(f"on-chip memory of {operand_capacity_bits} bits cannot double-buffer one "
                         f"{a}x{b} tile of {bits}-bit operands")
    weight_bits, input_bits = gemm.k * gemm.n * bits, gemm.m * gemm.k * bits
    weights_resident = weight_bits <= half
    inputs_resident = input_bits <= half - (weight_bits if weights_resident else 0)
    return Tiling(gemm.m, gemm.k, gemm.n, a, b, chunk, inputs_resident, weights_resident)


def block_shape(m: int, n: int, lanes: int) -> tuple[int, int]:
    """``(a, b)``: the most lanes used, then the fewest operand words per cycle, then the widest block."""
    cols = np.arange(1, min(n, lanes) + 1, dtype=np.int64)
    rows = np.minimum(m, lanes // cols)
    best = np.lexsort((-cols, rows + cols, -(rows * cols)))[0]
    return int(rows[best]), int(cols[best])


def _sizes(total: int, step: int) -> np.ndarray:
    count = math.ceil(total / step)
    sizes = np.full(count, step, dtype=np.int64)
    sizes[-1] = total - step * (count - 1)
    return sizes


@dataclass(frozen=True)
class TileArrays:
    """Per tile, in execution order (vectorised)."""

    rows: np.ndarray          # output rows of the tile's block
    cols: np.ndarray          # output columns of the tile's block
    chunk: np.ndarray         # reduction length of the tile
    input_words: np.ndarray   # input words fetched from DRAM for this tile
    weight_words: np.ndarray  # weight words fetched from DRAM for this tile
    last_chunk: np.ndarray    # bool: the block's outputs are complete after this tile


def tile_arrays(t: Tiling) -> TileArrays:
    rows, cols, chunk = np.meshgrid(_sizes(t.m, t.block_rows), _sizes(t.n, t.block_cols),
                                    _sizes(t.k, t.chunk), indexing="ij")
    i, j, c = np.meshgrid(np.arange(t.row_blocks), np.arange(t.col_blocks), np.arange(t.chunks), indexing="ij")
    rows, cols, chunk, i, j, c = (x.ravel() for x in (rows, cols, chunk, i, j, c))
    inputs, weights = rows * chunk, cols * chunk
    if t.inputs_resident:
        inputs = np.where(j == 0, inputs, 0)
    if t.weights_resident:
        weights = np.where(i == 0, weights, 0)
    return TileArrays(rows, cols, chunk, inputs, weights, c == t.chunks - 1)


def iter_tiles(t: Tiling):
    """The same tiles as :func:`tile_arrays`, one at a time with plain loops (the reference's view):
    ``(rows, cols, chunk, input_words, weight_words, last_chunk)``."""
    for i in range(t.row_blocks):
        rows = min(t.block_rows, t.m - i * t.block_rows)
        for j in range(t.col_blocks):
            cols = min(t.block_cols, t.n - j * t.block_cols)
            for c in range(t.chunks):
                chunk = min(t.chunk, t.k - c * t.chunk)
                inputs = rows * chunk if (not t.inputs_resident or j == 0) else 0
                weights = cols * chunk if (not t.weights_resident or i == 0) else 0
                yield rows, cols, chunk, inputs, weights, c == t.chunks - 1
