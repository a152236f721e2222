"""Plan of a layer on the DLU-style array (pure functions): tiling and the tile work list.

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

The datapath is dense: every MAC of the layer is issued (zeros included), so the plan, the
cycles and the counts do not depend on operand values. Every group of a grouped convolution
is the same GEMM, run one after the other: the work list is one group's. The timing rules
are in :mod:`.fast` and :mod:`.reference`.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from accel_sim.foundations.arch import ArchBase
from accel_sim.models.dlu.spec import DATA_TYPE_BITS, DLUSpec
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import GemmShape, Layer

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


@dataclass(frozen=True)
class TileWork:
    """One group's tiles, in execution order (arrays of one entry per tile)."""

    rows: np.ndarray          # output rows of the tile's block
    cols: np.ndarray          # output columns of the tile's block
    chunk: np.ndarray         # reduction length of the tile
    input_words: np.ndarray   # input words fetched from DRAM for this tile
    weight_words: np.ndarray  # weight words fetched from DRAM for this tile
    last_chunk: np.ndarray    # bool: the block's outputs are complete after this tile


@dataclass(frozen=True)
class DLUPlan:
    arch: ArchBase
    spec: DLUSpec
    layer: Layer
    tiling: Tiling
    groups: int                  # groups of the layer, each the same GEMM, run one after the other
    statistics: bool             # every result goes through the statistics block (fixed point, block on)
    histogram_counters: int      # counters of all units' statistics stores (read out once per group)
    weight_bits: int             # bits of a stored weight (weight-only quantization); 0: the data type's

    @property
    def stored_weight_bits(self) -> int:
        return self.weight_bits or self.spec.bits

    @functools.cached_property
    def tiles(self) -> TileWork:
        """One group's work list, whole (the reference's; the fast path reads it by :func:`tile_chunks`)."""
        return tile_work(self.tiling)


def plan_tiling(gemm: GemmShape, lanes: int, operand_capacity_bits: int, bits: int,
                weight_bits: int | None = None) -> Tiling:
    """Tile one group of ``gemm`` for ``lanes`` MAC units and ``operand_capacity_bits`` of on-chip
    memory (double-buffered: a tile may use half) holding ``bits``-bit words (weights stored at
    ``weight_bits`` when quantized: they count at that width towards staying resident)."""
    a, b = block_shape(gemm.m, gemm.n, lanes)
    half = operand_capacity_bits // 2
    chunk = min(gemm.k, half // ((a + b) * bits))
    if chunk < 1:
        raise ValueError(f"on-chip memory of {operand_capacity_bits} bits cannot double-buffer one "
                         f"{a}x{b} tile of {bits}-bit operands")
    weight_bits, input_bits = gemm.k * gemm.n * (weight_bits or bits), gemm.m * gemm.k * bits
    weights_resident = weight_bits <= half
    inputs_resident = input_bits <= half - (weight_bits if weights_resident else 0)
    return Tiling(gemm.m, gemm.k, gemm.n, a, b, chunk, inputs_resident, weights_resident)


def block_shape(m: int, n: int, lanes: int) -> tuple[int, int]:
    """``(a, b)``: the most lanes used, then the fewest operand words per cycle, then the widest block."""
    cols = np.arange(1, min(n, lanes) + 1, dtype=np.int64)
    rows = np.minimum(m, lanes // cols)
    best = np.lexsort((-cols, rows + cols, -(rows * cols)))[0]
    return int(rows[best]), int(cols[best])


def _sizes(total: int, step: int, blocks: np.ndarray | None = None) -> np.ndarray:
    """Extent of each block of ``step`` of ``total`` (the last one shorter), or of the blocks numbered ``blocks``."""
    blocks = np.arange(math.ceil(total / step), dtype=np.int64) if blocks is None else blocks
    return np.minimum(step, total - blocks * step)


def tile_work(t: Tiling, first: int = 0, stop: int | None = None) -> TileWork:
    """The tiles of row blocks ``first:stop`` (default: all), in execution order: every row block's
    column blocks, each block's chunks."""
    blocks = np.arange(first, t.row_blocks if stop is None else min(stop, t.row_blocks), dtype=np.int64)
    rows, cols, chunk = np.meshgrid(_sizes(t.m, t.block_rows, blocks), _sizes(t.n, t.block_cols),
                                    _sizes(t.k, t.chunk), indexing="ij")
    i, j, c = np.meshgrid(blocks, np.arange(t.col_blocks), np.arange(t.chunks), indexing="ij")
    rows, cols, chunk, i, j, c = (x.ravel() for x in (rows, cols, chunk, i, j, c))
    inputs, weights = rows * chunk, cols * chunk
    if t.inputs_resident:
        inputs = np.where(j == 0, inputs, 0)
    if t.weights_resident:
        weights = np.where(i == 0, weights, 0)
    return TileWork(rows, cols, chunk, inputs, weights, c == t.chunks - 1)


def tile_chunks(t: Tiling, tiles: int) -> Iterator[TileWork]:
    """:func:`tile_work` a few row blocks at a time (about ``tiles`` tiles, at least one row block), in
    execution order: the tiles of a big GEMM without the whole list in memory (its arrays stay in cache)."""
    step = max(1, tiles // (t.col_blocks * t.chunks))
    for first in range(0, t.row_blocks, step):
        yield tile_work(t, first, first + step)


def statistics_on(spec: DLUSpec) -> bool:
    return spec.statistics and spec.is_fixed_point


def histogram_counters(spec: DLUSpec) -> int:
    """Counters of all units' statistics stores: one per accumulator bit position (x2 split by sign)."""
    return spec.processing_units * spec.accumulator_bits * (2 if spec.split_by_sign else 1)


def bytes_of(words, bits: int):
    """Bytes that ``words`` words of ``bits`` bits fill, rounded up to whole bytes (arrays too)."""
    return -(-(np.asarray(words, dtype=np.int64) * bits) // BITS_PER_BYTE)


def layer_spec(spec: DLUSpec, layer: Layer) -> DLUSpec:
    """The datapath ``layer`` runs on: the configured one, or the layer's ``precision`` (a workload
    may keep some layers at full precision, as BMXNet keeps the first and last)."""
    if layer.precision is None or layer.precision == spec.data_type:
        return spec
    if layer.precision not in DATA_TYPE_BITS:
        raise InputError.single(layer.name, "precision", f"{layer.precision} is not a dlu data type; expected one "
                                f"of {', '.join(DATA_TYPE_BITS)}")
    try:
        return dataclasses.replace(spec, data_type=layer.precision)
    except ValueError as err:
        raise InputError.single(layer.name, "precision", str(err)) from None


def plan(arch: ArchBase, layer: Layer) -> DLUPlan:
    spec = layer_spec(arch.section("dlu"), layer)
    gemm = layer.gemm()
    weight_bits = layer.quantized_weight_bits or 0  # weight-only quantization: dequantized on load
    tiling = plan_tiling(gemm, spec.lanes, spec.processing_units * spec.local_memory * BITS_PER_BYTE, spec.bits,
                         weight_bits or None)
    return DLUPlan(arch, spec, layer, tiling, gemm.groups, statistics_on(spec),
                   histogram_counters(spec), weight_bits)
