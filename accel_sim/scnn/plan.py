"""Layer plan (pure numpy): operand masks of the chosen design, temporal tiling, channel chunks.

Temporal tiling rule: the fewest ``n x n`` temporal tiles (n = 1, 2, ...) such that every
PE's tile of every input channel fits its IARAM in the design's on-chip format (SCNN's
zero-run blocks when activations are skipped, else dense words) and Kc >= 1 (Cartesian
designs: one output channel's accumulator region fits a buffer).

Channel chunking rule (when even the smallest temporal tiles, one pixel per PE where the
plane allows, do not fit): keep those tiles and cut the input channels into the fewest
contiguous chunks of equal-ish size (``split_bounds``) such that every PE's tile of every
chunk fits its IARAM. Only when one pixel of ONE channel does not fit can the layer not
run: an :class:`InputError` names the field to change.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from accel_sim.arch.spec import ArchSpec
from accel_sim.errors import InputError
from accel_sim.scnn.designs import DESIGN_TRAITS, DesignTraits
from accel_sim.scnn.encoding import block_bits, block_entries
from accel_sim.scnn.functional import conv_operands
from accel_sim.scnn.spec import SCNNSpec
from accel_sim.scnn.tiling import ConvView, Tiling, conv_view, make_tiling, split_bounds, temporal_candidates
from accel_sim.workload.layer import Layer

BITS_PER_BYTE = 8


@dataclass(frozen=True)
class LayerPlan:
    spec: SCNNSpec
    traits: DesignTraits
    view: ConvView
    tiling: Tiling
    value_bits: int
    weights: np.ndarray        # (groups, Kg, Cg, R, S)
    inputs: np.ndarray         # (batch, groups, Cg, H, W)
    weight_mask: np.ndarray    # weights the multipliers see (non-zeros if skipped, else all)
    input_mask: np.ndarray     # activations the multipliers see
    input_bits: np.ndarray     # (batch, groups, temporal tiles, channel chunks, PEs) on-chip bits of the input tiles

    @property
    def dcnn(self) -> bool:
        return not self.traits.cartesian


def scnn_spec(arch: ArchSpec) -> SCNNSpec:
    return arch.section("scnn")


def tile_sizes(tiling: Tiling, spec: SCNNSpec, owned: bool = False) -> np.ndarray:
    """Positions in each (temporal tile, PE) tile of the input plane (or of the owned output plane)."""
    rows, cols = tiling.rows, tiling.cols
    h = (rows.own_hi - rows.own_lo) if owned else (rows.hi - rows.lo)
    w = (cols.own_hi - cols.own_lo) if owned else (cols.hi - cols.lo)
    h = h.reshape(tiling.temporal_rows, spec.pe_rows)
    w = w.reshape(tiling.temporal_cols, spec.pe_cols)
    sizes = h[:, None, :, None] * w[None, :, None, :]   # (ty, tx, py, px)
    return sizes.reshape(tiling.temporal_tiles, spec.pes)


def plane_storage_bits(tiling: Tiling, spec: SCNNSpec, plane: np.ndarray, compressed: bool, value_bits: int,
                       owned: bool = False) -> np.ndarray:
    """Bits of each (temporal tile, PE) tile of ``plane`` (channels, H, W), all channels: SCNN
    zero-run blocks (one per channel and tile) or dense words."""
    if not compressed:
        return tile_sizes(tiling, spec, owned) * plane.shape[0] * value_bits
    return channel_storage_bits(tiling, spec, plane, compressed, value_bits, owned).sum(axis=2)


def chunk_storage_bits(tiling: Tiling, spec: SCNNSpec, plane: np.ndarray, compressed: bool,
                       value_bits: int) -> np.ndarray:
    """Bits of each (temporal tile, channel chunk, PE) input tile of ``plane`` (channels, H, W)."""
    if tiling.channel_chunks == 1:
        return plane_storage_bits(tiling, spec, plane, compressed, value_bits)[:, None, :]
    bits = channel_storage_bits(tiling, spec, plane, compressed, value_bits)
    return np.add.reduceat(bits, tiling.channel_bounds[:-1], axis=2).transpose(0, 2, 1)


def channel_storage_bits(tiling: Tiling, spec: SCNNSpec, plane: np.ndarray, compressed: bool, value_bits: int,
                         owned: bool = False) -> np.ndarray:
    """Bits of each (temporal tile, PE, channel) tile of ``plane`` (channels, H, W): one SCNN
    zero-run block or dense words."""
    channels = plane.shape[0]
    sizes = tile_sizes(tiling, spec, owned)
    if not compressed:
        return np.repeat((sizes * value_bits)[:, :, None], channels, axis=2)
    c, y, x = (v.astype(np.int64) for v in np.nonzero(plane))
    rows, cols = tiling.rows, tiling.cols
    lo_y, hi_y = (rows.own_lo, rows.own_hi) if owned else (rows.lo, rows.hi)
    lo_x, hi_x = (cols.own_lo, cols.own_hi) if owned else (cols.lo, cols.hi)
    row_tile = rows.owner_of(y) if owned else rows.tile_of(y)
    col_tile = cols.owner_of(x) if owned else cols.tile_of(x)
    tile = (row_tile // spec.pe_rows) * tiling.temporal_cols + col_tile // spec.pe_cols
    pe = (row_tile % spec.pe_rows) * spec.pe_cols + col_tile % spec.pe_cols
    block = (tile * spec.pes + pe) * channels + c
    position = (y - lo_y[row_tile]) * (hi_x - lo_x)[col_tile] + (x - lo_x[col_tile])
    order = np.argsort(block, kind="stable")  # np.nonzero's raster order stays inside each block
    n_blocks = tiling.temporal_tiles * spec.pes * channels
    entries = block_entries(block[order], position[order], n_blocks, spec.index_bits)
    block_sizes = np.repeat(sizes.reshape(-1), channels)
    bits = block_bits(entries, block_sizes, value_bits, spec.index_bits)
    return bits.reshape(tiling.temporal_tiles, spec.pes, channels)


def fewest_channel_chunks(channel_bits: np.ndarray, capacity_bits: int) -> int:
    """The fewest contiguous equal-ish chunks (``split_bounds``) of the last axis of
    ``channel_bits`` (..., channels) whose sums all fit ``capacity_bits`` (each channel must fit)."""
    channels = channel_bits.shape[-1]
    rows = channel_bits.reshape(-1, channels)
    cumulative = np.concatenate((np.zeros((rows.shape[0], 1), dtype=np.int64), np.cumsum(rows, axis=1)), axis=1)
    chunks = max(1, math.ceil(int(cumulative[:, -1].max()) / capacity_bits))
    while True:
        bounds = split_bounds(channels, chunks)
        if int((cumulative[:, bounds[1:]] - cumulative[:, bounds[:-1]]).max()) <= capacity_bits:
            return chunks
        chunks += 1


def _lower_bound_bits(tiling: Tiling, spec: SCNNSpec, inputs: np.ndarray, value_bits: int) -> int:
    """Largest PE tile's compressed input without placeholders and count fields: a cheap screen."""
    worst = 0
    for image in inputs:
        for plane in image:
            per_row = np.count_nonzero(plane, axis=0)                      # (H, W)
            rows = np.add.reduceat(per_row, tiling.rows.lo.clip(max=plane.shape[1] - 1), axis=0)
            rows[tiling.rows.hi == tiling.rows.lo] = 0
            cells = np.add.reduceat(rows, tiling.cols.lo.clip(max=plane.shape[2] - 1), axis=1)
            cells[:, tiling.cols.hi == tiling.cols.lo] = 0
            worst = max(worst, int(cells.max()))
    return worst * (value_bits + spec.index_bits)


def _input_bits(tiling: Tiling, spec: SCNNSpec, view: ConvView, inputs: np.ndarray, compressed: bool,
                value_bits: int) -> np.ndarray:
    """(batch, groups, temporal tiles, channel chunks, PEs) on-chip bits of the input tiles."""
    return np.stack([np.stack([chunk_storage_bits(tiling, spec, inputs[b, g], compressed, value_bits)
                               for g in range(view.groups)]) for b in range(view.batch)])


def _plane_tiling(arch: ArchSpec, spec: SCNNSpec, traits: DesignTraits, view: ConvView,
                  inputs: np.ndarray) -> tuple[Tiling, np.ndarray] | None:
    """The fewest temporal tiles whose PE tiles of all channels fit the IARAM, with their input
    bits (None: none do)."""
    iaram_bits = spec.iaram_size * BITS_PER_BYTE
    for ty, tx in temporal_candidates(view, spec):
        candidate = make_tiling(spec, view, ty, tx)
        if traits.cartesian and candidate.kc == 0:
            continue
        if traits.skip_activations and _lower_bound_bits(candidate, spec, inputs, arch.word_bits) > iaram_bits:
            continue
        bits = _input_bits(candidate, spec, view, inputs, traits.skip_activations, arch.word_bits)
        if int(bits.max()) <= iaram_bits:
            return candidate, bits
    return None


def _chunked_tiling(arch: ArchSpec, spec: SCNNSpec, traits: DesignTraits, view: ConvView, layer: Layer,
                    inputs: np.ndarray) -> Tiling:
    """The smallest temporal tiles with the fewest channel chunks that fit the IARAM."""
    smallest = make_tiling(spec, view, *list(temporal_candidates(view, spec))[-1])
    if traits.cartesian and smallest.kc == 0:
        need = smallest.acc_h * smallest.acc_w * (1 if spec.kc_rule == "max_fit" else min(spec.kc, view.out_channels))
        raise InputError.single(arch.name, "scnn.accumulator_entries",
                                f"layer {layer.name}: the accumulators are too small for one output tile: a "
                                f"one-pixel input tile needs {need} partial sums per buffer "
                                f"({smallest.acc_h} x {smallest.acc_w} outputs per channel), the buffer holds "
                                f"accumulator_banks x accumulator_entries = {spec.accumulator_capacity}")
    iaram_bits = spec.iaram_size * BITS_PER_BYTE
    channel_bits = np.stack([np.stack([channel_storage_bits(smallest, spec, inputs[b, g], traits.skip_activations,
                                                            arch.word_bits) for g in range(view.groups)])
                             for b in range(view.batch)])
    widest = int(channel_bits.max())
    if widest > iaram_bits:
        raise InputError.single(arch.name, "scnn.iaram_size",
                                f"layer {layer.name}: one pixel of ONE input channel needs {widest} "
                                f"bits, more than the IARAM of {spec.iaram_size} B (the model tiles the plane and "
                                f"the channels through DRAM, not a channel's pixels): raise scnn.iaram_size")
    chunks = fewest_channel_chunks(channel_bits, iaram_bits)
    return make_tiling(spec, view, smallest.temporal_rows, smallest.temporal_cols, chunks)


def plan_layer(arch: ArchSpec, layer: Layer) -> LayerPlan:
    spec = scnn_spec(arch)
    traits = DESIGN_TRAITS[spec.design]
    view = conv_view(layer)
    weights, inputs = conv_operands(layer)
    weight_mask = weights != 0 if traits.skip_weights else np.ones(weights.shape, dtype=bool)
    input_mask = inputs != 0 if traits.skip_activations else np.ones(inputs.shape, dtype=bool)
    fitting = _plane_tiling(arch, spec, traits, view, inputs)
    if fitting is None:
        tiling = _chunked_tiling(arch, spec, traits, view, layer, inputs)
        bits = _input_bits(tiling, spec, view, inputs, traits.skip_activations, arch.word_bits)
    else:
        tiling, bits = fitting
    return LayerPlan(spec, traits, view, tiling, arch.word_bits, weights, inputs, weight_mask, input_mask, bits)

