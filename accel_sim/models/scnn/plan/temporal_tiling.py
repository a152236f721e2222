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

DRAM tile order (``scnn.dram_tile_order``). The paper does not say how it ordered or sized its DRAM
tiles; its energy figures come from TimeLoop, whose mapper searches tilings and loop orders for the
best mapping (Parashar et al., "Timeloop: A Systematic Approach to DNN Accelerator Evaluation",
ISPASS 2019; github.com/NVlabs/timeloop). 'fewest_tiles' is the rule above. 'min_traffic' searches
the mappings the passes of the array run (temporal tiles outer, then channel chunks, every
output-channel group in each pass): the array holds no weights between passes (the weight FIFO streams
them), so ANY order that splits the plane into T temporal tiles reads the weights T times. What is
chosen is which loop is split at the DRAM level: the plane (temporal tiles: weights re-read, halos
spilled) or the input channels (channel chunks: weights read once, owned partial sums carried from
chunk to chunk through the OARAM when they fit it, else through DRAM). Not a candidate (the paths run
every group of a pass together): output-channel groups outer, in blocks whose partial sums stay on
chip across the chunks, re-reading the inputs per block (on VGG it would move less only on conv4_2;
the issue-15 report gives the bytes). Candidates: every temporal split from
one tile up to the fewest that fit without chunks (more tiles only add weight re-reads and halo
spills), each with the fewest channel chunks that fit the IARAM (and Kc >= 1); the one moving the
fewest DRAM bits (:func:`dram_bits`, the traffic rules of the fast path's and the reference's DRAM
blocks) is taken, ties to fewer passes.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.errors import InputError
from accel_sim.models.scnn.plan.designs import DesignTraits
from accel_sim.models.scnn.plan.encoding import (channel_storage_bits, chunk_storage_bits, input_bits, plane_storage_bits,
                                          tile_sizes, weight_storage_bits)
from accel_sim.models.scnn.plan.tiling import AxisTiles, ConvView, Tiling, make_tiling, split_bounds, temporal_candidates
from accel_sim.models.scnn.spec import SCNNSpec
from accel_sim.foundations.workload.layer import Layer

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


def _plane_tiling(arch: ArchBase, spec: SCNNSpec, traits: DesignTraits, view: ConvView,
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


def _chunked_tiling(arch: ArchBase, spec: SCNNSpec, traits: DesignTraits, view: ConvView, layer: Layer,
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


def _overlap(lo_a, hi_a, lo_b, hi_b):
    return np.maximum(0, np.minimum(hi_a, hi_b) - np.maximum(lo_a, lo_b))


def _axis_halo(axis: AxisTiles, out_size: int, pes: int) -> tuple[np.ndarray, np.ndarray]:
    """Per tile of one axis: in-plane rows of its accumulator region, and of those the rows its
    temporal tile owns."""
    lo, hi = axis.acc_lo, axis.acc_lo + axis.acc_len
    same_temporal = _overlap(lo, hi, np.repeat(axis.own_lo[::pes], pes), np.repeat(axis.own_hi[pes - 1::pes], pes))
    return _overlap(lo, hi, 0, out_size), same_temporal


def spilled_per_channel(spec: SCNNSpec, view: ConvView, tiling: Tiling) -> int:
    """Halo partial sums per output channel that cross temporal tiles (in-plane partial sums of every
    PE's region that another temporal tile owns), over all temporal tiles and PEs."""
    (in_y, same_y), (in_x, same_x) = (_axis_halo(tiling.rows, view.out_h, spec.pe_rows),
                                      _axis_halo(tiling.cols, view.out_w, spec.pe_cols))
    in_plane = in_y.reshape(tiling.temporal_rows, spec.pe_rows).sum(axis=1)[:, None] * \
        in_x.reshape(tiling.temporal_cols, spec.pe_cols).sum(axis=1)[None, :]
    same = same_y.reshape(tiling.temporal_rows, spec.pe_rows).sum(axis=1)[:, None] * \
        same_x.reshape(tiling.temporal_cols, spec.pe_cols).sum(axis=1)[None, :]
    return int((in_plane - same).sum())


def dram_bits(arch: ArchBase, spec: SCNNSpec, traits: DesignTraits, view: ConvView, tiling: Tiling,
              chip_inputs: np.ndarray, inputs: np.ndarray, weights: np.ndarray, outputs: np.ndarray,
              nonzeros: tuple | None) -> int:
    """DRAM bits (read + written) of the layer run as ``tiling`` with temporal tiles outer, by the rules of
    the DRAM blocks (:mod:`accel_sim.models.scnn.fast.dram`, :mod:`accel_sim.models.scnn.reference.dram`): per (image, conv
    group) of a layer of more than one pass, the inputs and the outputs once, the weights once per temporal
    tile, the halo partial sums crossing temporal tiles written and read back in every pass, and the owned
    partial sums written and read back at every channel-chunk boundary unless every PE's fit its OARAM.
    ``chip_inputs``: :func:`~.encoding.input_bits` of ``tiling``; ``nonzeros``: the weights' non-zeros per
    conv group (None: found here)."""
    word, acc, oaram_bits = arch.word_bits, spec.accumulator_bits, spec.oaram_size * BITS_PER_BYTE
    if not traits.cartesian:
        tiling = dataclasses.replace(tiling, kc=view.out_channels, out_groups=1)
    n_t, n_chunks = tiling.temporal_tiles, tiling.channel_chunks
    weights_compressed = traits.skip_weights or traits.compress_dram
    activations_compressed = traits.skip_activations or traits.compress_dram
    owned = tile_sizes(tiling, spec, owned=True) * view.out_channels
    psums = 0 if n_chunks == 1 or int(owned.max()) * acc <= oaram_bits else int(owned.sum()) * acc
    spill = 0 if not traits.cartesian else spilled_per_channel(spec, view, tiling) * view.out_channels * acc
    through_dram = tiling.passes > 1
    total = 0
    for g in range(view.groups):
        weight_bits = int(weight_storage_bits(spec, view, tiling, weights[g], weights_compressed, word,
                                              None if nonzeros is None else nonzeros[g]).sum())
        for b in range(view.batch):
            out_chip = plane_storage_bits(tiling, spec, outputs[b, g], traits.skip_activations, word, owned=True)
            out_dram = out_chip if activations_compressed == traits.skip_activations else \
                plane_storage_bits(tiling, spec, outputs[b, g], activations_compressed, word, owned=True)
            if through_dram and activations_compressed != traits.skip_activations:
                in_dram = int(chunk_storage_bits(tiling, spec, inputs[b, g], True, word).sum())
            else:
                in_dram = int(chip_inputs[b, g].sum()) if through_dram else 0
            to_dram = through_dram or int(out_chip.max()) > oaram_bits
            total += (n_t * weight_bits + in_dram + (int(out_dram.sum()) if to_dram else 0)
                      + 2 * n_chunks * spill + 2 * (n_chunks - 1) * psums)
    return total


def _fewest_chunks(arch: ArchBase, spec: SCNNSpec, traits: DesignTraits, view: ConvView, tiling: Tiling,
                   inputs: np.ndarray) -> int | None:
    """The fewest channel chunks whose input tiles fit the IARAM with ``tiling``'s temporal tiles (None: one
    pixel of one channel does not fit)."""
    channel_bits = np.stack([np.stack([channel_storage_bits(tiling, spec, inputs[b, g], traits.skip_activations,
                                                            arch.word_bits) for g in range(view.groups)])
                             for b in range(view.batch)])
    if int(channel_bits.max()) > spec.iaram_size * BITS_PER_BYTE:
        return None
    return fewest_channel_chunks(channel_bits, spec.iaram_size * BITS_PER_BYTE)


def least_traffic_tiling(arch: ArchBase, spec: SCNNSpec, traits: DesignTraits, view: ConvView,
                         inputs: np.ndarray, weights: np.ndarray, nonzeros: tuple | None,
                         outputs: np.ndarray) -> tuple[Tiling, np.ndarray] | None:
    """'min_traffic': of the temporal splits up to the fewest that fit without chunks, each with its fewest
    channel chunks, the one moving the fewest DRAM bits (ties: fewer passes), with its input bits (None:
    no split fits)."""
    iaram_bits = spec.iaram_size * BITS_PER_BYTE
    candidates = []
    for ty, tx in temporal_candidates(view, spec):
        tiling = make_tiling(spec, view, ty, tx)
        if traits.cartesian and tiling.kc == 0:
            continue
        bits = input_bits(tiling, spec, view, inputs, traits.skip_activations, arch.word_bits)
        if int(bits.max()) > iaram_bits:
            chunks = _fewest_chunks(arch, spec, traits, view, tiling, inputs)
            if chunks is None:
                continue
            tiling = make_tiling(spec, view, ty, tx, chunks)
            bits = input_bits(tiling, spec, view, inputs, traits.skip_activations, arch.word_bits)
        candidates.append((tiling, bits))
        if tiling.channel_chunks == 1:
            break
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    moved = [(dram_bits(arch, spec, traits, view, tiling, bits, inputs, weights, outputs, nonzeros), tiling.passes, i)
             for i, (tiling, bits) in enumerate(candidates)]
    return candidates[min(moved)[2]]


def fitting_tiling(arch: ArchBase, spec: SCNNSpec, traits: DesignTraits, view: ConvView, layer: Layer,
                   inputs: np.ndarray, weights: np.ndarray | None = None, nonzeros: tuple | None = None,
                   outputs: np.ndarray | None = None) -> tuple[Tiling, np.ndarray]:
    """The tiling of the layer and the on-chip bits of its input tiles, (batch, groups, temporal
    tiles, channel chunks, PEs): the fewest temporal tiles that fit, else the smallest tiles with
    the fewest channel chunks; with ``dram_tile_order: min_traffic`` (``weights``, ``outputs`` and the
    weights' ``nonzeros`` given), the candidate moving the fewest DRAM bits."""
    if spec.dram == "ignored":   # DNNsim: buffers bound nothing, one pass
        tiling = make_tiling(spec, view, 1, 1)
        if traits.cartesian and tiling.kc == 0:
            raise InputError.single(arch.name, "scnn.accumulator_entries",
                                    f"layer {layer.name}: not one output channel's partial sums fit the "
                                    f"accumulators ({spec.accumulator_capacity} per buffer)")
        return tiling, input_bits(tiling, spec, view, inputs, traits.skip_activations, arch.word_bits)
    if spec.dram_tile_order == "min_traffic":
        if weights is None or outputs is None:
            raise ValueError("dram_tile_order 'min_traffic' needs the layer's weights and outputs")
        fitting = least_traffic_tiling(arch, spec, traits, view, inputs, weights, nonzeros, outputs)
        if fitting is not None:
            return fitting
    fitting = _plane_tiling(arch, spec, traits, view, inputs)
    if fitting is not None:
        return fitting
    tiling = _chunked_tiling(arch, spec, traits, view, layer, inputs)
    return tiling, input_bits(tiling, spec, view, inputs, traits.skip_activations, arch.word_bits)
