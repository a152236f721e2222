"""Temporal tiling and channel chunks: the fewest passes whose input tiles fit the IARAM.

Temporal tiling rule: the fewest ``n x n`` temporal tiles (n = 1, 2, ...) such that every
PE's tile of every input channel fits its IARAM in the design's on-chip format (SCNN's
zero-run blocks when activations are skipped, else dense words) and Kc >= 1 (Cartesian
designs: one output channel's accumulator region fits a buffer).

Channel chunking rule (a modelling choice: the paper does not describe channel chunks, the
brief only says activations that do not fit use temporal tiling through DRAM): when even the
smallest temporal tiles, one pixel per PE where the plane allows, do not fit, keep those
tiles and cut the input channels into the fewest contiguous chunks of equal-ish size
(``split_bounds``) such that every PE's tile of every chunk fits its IARAM. Loop order:
``for temporal tile: for channel chunk: for output-channel group: for channel of the chunk``;
chunking changes no product, the same F x I steps are only split between passes. Only when
one pixel of ONE channel does not fit can the layer not run: an :class:`InputError` names the
field to change.
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.arch.spec import ArchSpec
from accel_sim.errors import InputError
from accel_sim.scnn.plan.designs import DesignTraits
from accel_sim.scnn.plan.encoding import channel_storage_bits, input_bits
from accel_sim.scnn.plan.tiling import ConvView, Tiling, make_tiling, split_bounds, temporal_candidates
from accel_sim.scnn.spec import SCNNSpec
from accel_sim.workload.layer import Layer

BITS_PER_BYTE = 8


def fewest_channel_chunks(channel_bits: np.ndarray, capacity_bits: int) -> int:
    """The fewest contiguous equal-ish chunks (``split_bounds``) of the last axis of
    ``channel_bits`` (..., channels) whose sums all fit ``capacity_bits`` (each channel must fit;
    all of them must not: the search starts at the fewest chunks their total allows)."""
    channels = channel_bits.shape[-1]
    rows = channel_bits.reshape(-1, channels)
    cumulative = np.concatenate((np.zeros((rows.shape[0], 1), dtype=np.int64), np.cumsum(rows, axis=1)), axis=1)
    chunks = math.ceil(int(cumulative[:, -1].max()) / capacity_bits)
    while True:
        bounds = split_bounds(channels, chunks)
        if int((cumulative[:, bounds[1:]] - cumulative[:, bounds[:-1]]).max()) <= capacity_bits:
            return chunks
        chunks += 1


def lower_bound_bits(tiling: Tiling, spec: SCNNSpec, inputs: np.ndarray, value_bits: int) -> int:
    """A cheap screen: the largest PE tile's non-zeros (all channels, any image and conv group) as
    compressed entries, without placeholders and count fields: never more than its exact bits."""
    per_position = np.count_nonzero(inputs, axis=2)                          # (batch, groups, H, W)
    table = np.zeros(per_position.shape[:2] + (per_position.shape[2] + 1, per_position.shape[3] + 1), np.int64)
    table[:, :, 1:, 1:] = per_position.cumsum(axis=2).cumsum(axis=3)        # summed-area table
    top, bottom = tiling.rows.lo[:, None], tiling.rows.hi[:, None]
    left, right = tiling.cols.lo[None, :], tiling.cols.hi[None, :]
    tiles = table[:, :, bottom, right] - table[:, :, top, right] - table[:, :, bottom, left] + table[:, :, top, left]
    return int(tiles.max()) * (value_bits + spec.index_bits)


def _plane_tiling(arch: ArchSpec, spec: SCNNSpec, traits: DesignTraits, view: ConvView,
                  inputs: np.ndarray) -> tuple[Tiling, np.ndarray] | None:
    """The fewest temporal tiles whose PE tiles of all channels fit the IARAM, with their input
    bits (None: none do)."""
    iaram_bits = spec.iaram_size * BITS_PER_BYTE
    for ty, tx in temporal_candidates(view, spec):
        candidate = make_tiling(spec, view, ty, tx)
        if traits.cartesian and candidate.kc == 0:
            continue
        if traits.skip_activations and lower_bound_bits(candidate, spec, inputs, arch.word_bits) > iaram_bits:
            continue
        bits = input_bits(candidate, spec, view, inputs, traits.skip_activations, arch.word_bits)
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


def fitting_tiling(arch: ArchSpec, spec: SCNNSpec, traits: DesignTraits, view: ConvView, layer: Layer,
                   inputs: np.ndarray) -> tuple[Tiling, np.ndarray]:
    """The tiling of the layer and the on-chip bits of its input tiles, (batch, groups, temporal
    tiles, channel chunks, PEs): the fewest temporal tiles that fit, else the smallest tiles with
    the fewest channel chunks."""
    if spec.dram == "ignored":   # DNNsim: buffers bound nothing, one pass
        tiling = make_tiling(spec, view, 1, 1)
        if traits.cartesian and tiling.kc == 0:
            raise InputError.single(arch.name, "scnn.accumulator_entries",
                                    f"layer {layer.name}: not one output channel's partial sums fit the "
                                    f"accumulators ({spec.accumulator_capacity} per buffer)")
        return tiling, input_bits(tiling, spec, view, inputs, traits.skip_activations, arch.word_bits)
    fitting = _plane_tiling(arch, spec, traits, view, inputs)
    if fitting is not None:
        return fitting
    tiling = _chunked_tiling(arch, spec, traits, view, layer, inputs)
    return tiling, input_bits(tiling, spec, view, inputs, traits.skip_activations, arch.word_bits)
