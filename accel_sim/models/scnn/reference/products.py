"""The Cartesian-product PE, reference: every product one PE computes in one pass, with its
output coordinate, its accumulator bank and its step (numpy, written from the dataflow).

Paper, Fig. 5 (PT-IS-CP-sparse): per output-channel group, a PE walks its input channels
(those of the pass's chunk); per channel it multiplies every F-vector of the channel's weights
(F non-zero weights of the group, in FIFO order: R x S then K, or K then R x S) with every
I-vector of its tile's activations (I non-zeros in raster order). Stride: an activation at
padded row ``y + pad`` meets only weight rows ``r`` with ``(y + pad - r) % stride == 0``, so
activations and weights are split into phase classes, and the product of activation (c, y, x)
and weight (k, c, r, s) is output ``(k, (y + pad - r) / stride, (x + pad - s) / stride)``.
It lands in accumulator bank :func:`~accel_sim.models.scnn.plan.bank_mapping.bank_of` of its
position in the PE's accumulator region. A step's bank loads are the products per bank among
its F x I products: :class:`~accel_sim.hardware.ScatterCrossbar` turns them into cycles.

Here all products of a (pass, PE) are listed at once: each activation is joined with the
weights of its channel and phase class, and each product gets its step (group, channel,
phase, I-vector, F-vector).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.foundations.errors import SimulationError
from accel_sim.models.scnn.plan import Plan
from accel_sim.models.scnn.plan.bank_mapping import bank_of, xor_bank


@dataclass(frozen=True)
class ChunkWeights:
    """The non-zero (seen) weights of one conv group's channel chunk, in FIFO order per (channel,
    phase class, group): arrays per weight."""

    k: np.ndarray
    r: np.ndarray
    s: np.ndarray
    key: np.ndarray        # (channel in chunk, phase class): the weights meeting the same activations
    group: np.ndarray      # output-channel group
    vector: np.ndarray     # F-vector of the weight inside its (key, group) block
    value: np.ndarray
    fifo_entries: int      # F-vectors of the chunk (every PE's weight FIFO receives each once per pass)
    overflow_blocks: int   # (channel, phase, group) blocks with more F-vectors than FIFO entries


def _classes(plan: Plan) -> int:
    return plan.view.stride_h * plan.view.stride_w


def _c_division(a: np.ndarray, b: int) -> np.ndarray:
    """Integer division truncating toward zero, as C's ``/`` (DNNsim's output coordinate)."""
    return np.sign(a) * (np.abs(a) // b)


def _rank_in_runs(keys: np.ndarray) -> np.ndarray:
    """Position of each element inside its run of equal (sorted) keys."""
    if keys.size == 0:
        return keys.copy()
    first = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    run_start = np.repeat(first, np.diff(np.concatenate((first, [keys.size]))))
    return np.arange(keys.size) - run_start


def chunk_weights(plan: Plan, conv_group: int, chunk: int) -> ChunkWeights:
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    c0, c1 = int(tiling.channel_bounds[chunk]), int(tiling.channel_bounds[chunk + 1])
    seen = plan.weight_mask[conv_group][:, c0:c1]
    k, c, r, s = np.nonzero(seen)                      # lexicographic: k, then c, r, s
    if spec.stride_phases == "dnnsim":   # DNNsim: a weight belongs to phase (r + pad) % stride
        key = c * _classes(plan) + ((r + view.pad_top) % view.stride_h) * view.stride_w \
            + (s + view.pad_left) % view.stride_w
    else:
        key = c * _classes(plan) + (r % view.stride_h) * view.stride_w + s % view.stride_w
    group = k // tiling.kc
    if spec.weight_order == "rs_then_k":
        order = np.lexsort((s, r, k, group, key))      # inside a block: K slowest, then R, S
    else:
        order = np.lexsort((k, s, r, group, key))      # inside a block: R, S, then K fastest
    k, c, r, s, key, group = k[order], c[order], r[order], s[order], key[order], group[order]
    block = key * tiling.out_groups + group
    vector = _rank_in_runs(block) // spec.mult_f
    vectors_per_block = np.zeros(int(key.max(initial=0) + 1) * tiling.out_groups, dtype=np.int64)
    np.maximum.at(vectors_per_block, block, vector + 1)
    return ChunkWeights(k, r, s, key, group, vector, plan.weights[conv_group][k, c + c0, r, s],
                        int(vectors_per_block.sum()),
                        int((vectors_per_block > spec.weight_fifo_entries).sum()))


@dataclass(frozen=True)
class PeProducts:
    """The products of one PE in one pass, grouped into steps."""

    step_block: np.ndarray        # (steps,) group x segments + segment (channel in chunk, phase class), ascending
    segments: int                 # segments of the pass
    bank_load: np.ndarray         # (steps, A) products each step sends to each bank

    def steps_of(self, group: int, channel: int | None = None, classes: int = 1) -> np.ndarray:
        """Bank loads of the steps of one group (or of one (group, input channel) with its
        ``classes`` phase classes)."""
        lo = group * self.segments + (0 if channel is None else channel * classes)
        hi = lo + (self.segments if channel is None else classes)
        first, last = np.searchsorted(self.step_block, [lo, hi])
        return self.bank_load[first:last]
    in_plane: int                 # products whose output lies in the output plane
    products: int                 # products the multipliers compute (out-of-plane ones included)
    activation_reads: int         # IARAM entries read: each activation once per group that has weights for it
    outputs: tuple[np.ndarray, ...]  # (k, output row, output column, value) of every in-plane product


def pe_products(plan: Plan, image: int, conv_group: int, temporal_tile: int, chunk: int, pe: int,
                weights: ChunkWeights) -> PeProducts:
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    iy = (temporal_tile // tiling.temporal_cols) * spec.pe_rows + pe // spec.pe_cols
    ix = (temporal_tile % tiling.temporal_cols) * spec.pe_cols + pe % spec.pe_cols
    c0, c1 = int(tiling.channel_bounds[chunk]), int(tiling.channel_bounds[chunk + 1])
    y0, y1, x0, x1 = tiling.rows.lo[iy], tiling.rows.hi[iy], tiling.cols.lo[ix], tiling.cols.hi[ix]
    c, y, x = np.nonzero(plan.input_mask[image, conv_group][c0:c1, y0:y1, x0:x1])   # raster order per channel
    y, x = y + y0, x + x0
    key = c * _classes(plan) + ((y + view.pad_top) % view.stride_h) * view.stride_w \
        + (x + view.pad_left) % view.stride_w
    order = np.argsort(key, kind="stable")
    c, y, x, key = c[order], y[order], x[order], key[order]
    vector = _rank_in_runs(key) // spec.mult_i
    # join: activation a meets every weight of its (channel, phase class), across the groups
    by_key = np.argsort(weights.key, kind="stable")
    first = np.searchsorted(weights.key[by_key], key)
    meets = np.searchsorted(weights.key[by_key], key, side="right") - first
    act = np.repeat(np.arange(key.size), meets)
    wgt = by_key[np.repeat(first, meets) + np.arange(act.size) - np.repeat(np.cumsum(meets) - meets, meets)]
    group, k = weights.group[wgt], weights.k[wgt]
    divide = _c_division if spec.stride_phases == "dnnsim" else np.floor_divide
    oy = divide(y[act] + view.pad_top - weights.r[wgt], view.stride_h)
    ox = divide(x[act] + view.pad_left - weights.s[wgt], view.stride_w)
    local_y, local_x = oy - tiling.rows.acc_lo[iy], ox - tiling.cols.acc_lo[ix]
    # the region is derived for the convolution's pairing; DNNsim's pairing reaches one row / column
    # further (its banks take global coordinates, so nothing is lost)
    if spec.stride_phases == "aligned" and act.size and not ((local_y >= 0) & (local_y < tiling.acc_h) & (local_x >= 0) & (local_x < tiling.acc_w)).all():
        raise SimulationError(f"{plan.layer.name}: a product falls outside PE {pe}'s accumulator region")
    if spec.bank_mapping == "dnnsim_xor":   # DNNsim: the layer's filter index, global output coordinates
        bank = xor_bank(spec, k + conv_group * view.out_channels, oy, ox)
    else:
        bank = bank_of(spec, tiling, k - group * tiling.kc, local_y, local_x)
    classes = (c1 - c0) * _classes(plan)
    i_vectors, f_vectors = int(vector.max(initial=0)) + 1, int(weights.vector.max(initial=0)) + 1
    step_key = ((group * classes + key[act]) * i_vectors + vector[act]) * f_vectors + weights.vector[wgt]
    steps, step = np.unique(step_key, return_inverse=True)
    banks = spec.accumulator_banks
    plane = (oy >= 0) & (oy < view.out_h) & (ox >= 0) & (ox < view.out_w)
    # slot_only (DNNsim): an out-of-plane product holds its multiplier slot, its step still takes a cycle,
    # but it goes to no bank
    banked = plane if spec.out_of_plane == "slot_only" else np.ones(plane.shape, dtype=bool)
    bank_load = np.bincount(step[banked] * banks + bank[banked], minlength=steps.size * banks).reshape(steps.size,
                                                                                                      banks)
    value = weights.value[wgt] * plan.inputs[image, conv_group][c[act] + c0, y[act], x[act]]
    reads = np.unique(act * tiling.out_groups + group).size
    return PeProducts(steps // (i_vectors * f_vectors), classes, bank_load, int(plane.sum()), int(act.size), reads,
                      (k[plane], oy[plane], ox[plane], value[plane]))
