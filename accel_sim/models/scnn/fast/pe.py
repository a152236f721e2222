"""The Cartesian-product PE, fast path: busy cycles and work of every PE in every group.

A PE's busy cycles in one output-channel group are the sum over its steps (I-vector x
F-vector, :mod:`.vectors`) of each step's cycles (its busiest accumulator bank, :mod:`.crossbar`),
vectorised over the (I-vector, F-vector) pairs of one (pass, segment), padded into batches of
similar blocks (padding costs 0). An I-vector of one activation skips the crossbar model: its
step puts the F-vector's multiplicity on the busiest bank (an FC layer, a 1 x 1 plane, has only
such steps: at most F useful products per cycle, on one PE per image).
Counts: products, steps, IARAM entries read (each activation once per group with weights in its
segment), weight-FIFO entries read (one per step) and written (each F-vector broadcast to every
PE once per temporal tile; the broadcast is assumed to keep up, never a stall, and blocks of more
F-vectors than FIFO entries, which would have to be re-streamed, are only counted).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.models.scnn.fast.bank_codes import class_codes, xor_class_busy
from accel_sim.models.scnn.fast.crossbar import (EMPTY_SHIFT, bit_sliced, mask_shifts, max_bank_load, rotation_classes,
                                          shift_masks, step_cost_table, step_cycles)
from accel_sim.models.scnn.fast.products import border_split, border_vectors, product_busy, product_level
from accel_sim.models.scnn.fast.scatter_fifo import fifo_busy, serialised_busy
from accel_sim.models.scnn.fast.shape_pieces import shape_piece
from accel_sim.models.scnn.fast.vectors import (ActivationVectors, WeightVectors, activation_elements,
                                         activation_vectors)
from accel_sim.models.scnn.plan import Plan
from accel_sim.models.scnn.plan.nonzeros import unique_inverse
from accel_sim.models.scnn.plan.keys import activation_key, tiling_key
from accel_sim.models.scnn.plan.tiling import Tiling
from accel_sim.models.scnn.spec import SCNNSpec

MAX_BLOCK_PAIRS = 1 << 15
CLASS_GAIN = 2   # classes pay when counting step by step is this many times their work (measured)
CLASS_VECTOR_COST = 16   # classifying one F-vector costs about as much as this many steps (measured)


@dataclass(frozen=True)
class PeWork:
    """Work of one (image, conv group): arrays (passes, PEs, groups); a pass is one (temporal
    tile, channel chunk)."""

    busy: np.ndarray
    products: np.ndarray      # multiplier products issued (zero operands of unskipped kinds included)
    steps: np.ndarray         # Cartesian steps (I-vector x F-vector pairs); dense: busy cycles
    iaram_reads: int          # activation entries read from the IARAM
    fifo_reads: int           # weight-FIFO entries read
    fifo_writes: int          # weight-FIFO entries written (broadcast to every PE)
    fifo_overflow_blocks: int  # (segment, group) weight blocks with more F-vectors than FIFO entries
    busy_channels: np.ndarray | None = None  # (passes, PEs, groups, input channels) when counted per product
    in_plane: int | None = None   # products whose output lies in the plane, when counted per product


def _single_activation_cycles(spec: SCNNSpec, tiling: Tiling, acts: ActivationVectors, weights: WeightVectors,
                              single: np.ndarray, per_segment: bool = False) -> np.ndarray:
    """Busy cycles of the I-vectors holding one activation: count x the F-vectors' multiplicities
    (``per_segment``: ``(passes, PEs, groups, segments)``, else summed over the segments)."""
    n_t, n_pe, n_g = tiling.passes, spec.pes, tiling.out_groups
    n_seg = weights.seg_start.size - 1
    per_seg = weights.multiplicity_per_block
    flat = (acts.tile[single] * n_pe + acts.pe[single]) * n_seg + acts.segment[single]
    counts = np.bincount(flat, minlength=n_t * n_pe * n_seg).reshape(n_t * n_pe, n_seg)
    if per_segment:
        return (counts[:, None, :] * per_seg.T[None]).reshape(n_t, n_pe, n_g, n_seg)
    return (counts @ per_seg).reshape(n_t, n_pe, n_g)


def pair_loads(weights: WeightVectors, banks: int) -> np.ndarray:
    """``(segments, groups, A)`` (A <= 32): for each difference ``d`` of two activations' bank terms,
    the cycles of one such I-vector against all the F-vectors of (segment, group). An F-vector
    whose rotations occur ``n(x)`` times puts ``n(x) + n(x + d)`` products on bank ``t1 - x``, so
    its step costs ``max_x n(x) + n(x + d)``: ``1 + [d is a difference of two of its rotations]``
    when they are distinct (``d = 0`` included; the differences as an A-bit mask), else counted
    rotation by rotation."""
    shift = weights.shift
    n, width = shift.shape
    used = shift != EMPTY_SHIFT
    rotation = np.where(used, shift, 0).astype(np.uint32)
    a = np.uint32(banks)
    differences = np.ones(n, dtype=np.uint32)   # bit d: d is a difference of two rotations
    for j in range(width):
        for k in range(j + 1, width):
            step = (rotation[:, k] - rotation[:, j]) % a
            bits = (np.uint32(1) << step) | (np.uint32(1) << ((a - step) % a))
            differences |= np.where(used[:, j] & used[:, k], bits, np.uint32(0))
    per_d = np.unpackbits(differences.astype("<u4").view(np.uint8).reshape(n, 4), axis=1, count=banks, bitorder="little")
    shape = weights.vectors_per_block.shape
    bounds = np.searchsorted(weights.segment * shape[1] + weights.group, np.arange(shape[0] * shape[1] + 1))
    sums = np.zeros((bounds.size - 1, banks), dtype=np.int64)   # F-vectors sorted by block
    filled = np.flatnonzero(bounds[1:] > bounds[:-1])
    if filled.size:
        sums[filled] = np.add.reduceat(per_d, bounds[filled], axis=0, dtype=np.int32)
    sums += weights.vectors_per_block.reshape(-1, 1)   # the 1 of every F-vector
    repeated = np.flatnonzero(weights.multiplicity > 1)
    if repeated.size:   # max over used slots j of n(s_j) + n(s_j + d), in place of 1 + bit d
        r, u = rotation[repeated].astype(np.int64), used[repeated]
        pair = u[:, :, None] & u[:, None, :]                                                   # (m, j, l)
        same = (r[:, :, None] == r[:, None, :]) & pair
        ahead = (r[:, None, :] - r[:, :, None]) % banks                                        # s_l - s_j
        hits = ((ahead[:, :, :, None] == np.arange(banks)) & pair[:, :, :, None]).sum(axis=2)
        loads = np.where(u[:, :, None], same.sum(axis=2)[:, :, None] + hits, 0).max(axis=1)    # (m, A)
        block = weights.segment[repeated] * shape[1] + weights.group[repeated]
        np.add.at(sums, block, loads - 1 - per_d[repeated])
    return sums.reshape(*shape, banks)


def _pair_differences(acts: ActivationVectors, pairs: np.ndarray, banks: int) -> np.ndarray:
    """``t2 - t1 mod A`` of the I-vectors ``pairs`` of two activations (either order: the loads of
    :func:`pair_loads` are the same for ``d`` and ``-d``), from their bit-sliced masks."""
    low = acts.banks[0, pairs] & np.uint64((1 << banks) - 1)
    lowest = low & (~low + np.uint64(1))
    other = low ^ lowest   # 0 when both terms are equal (the second plane holds the repeat)
    d = np.log2(np.maximum(other, np.uint64(1)).astype(np.float64)) - np.log2(lowest.astype(np.float64))
    return np.where(other != 0, d, 0).astype(np.int64)


def _pair_activation_cycles(spec: SCNNSpec, tiling: Tiling, acts: ActivationVectors, weights: WeightVectors,
                            pairs: np.ndarray, per_segment: bool = False) -> np.ndarray:
    """Busy cycles of the I-vectors holding two activations (:func:`pair_loads`), shaped as
    :func:`_single_activation_cycles`'s."""
    n_t, n_pe, n_g = tiling.passes, spec.pes, tiling.out_groups
    n_seg = weights.seg_start.size - 1
    segment = acts.segment[pairs]
    cost = pair_loads(weights, spec.accumulator_banks)[segment, :, _pair_differences(acts, pairs,
                                                                                      spec.accumulator_banks)]
    place = (acts.tile[pairs] * n_pe + acts.pe[pairs])[:, None] * n_g + np.arange(n_g)     # (pairs, groups)
    if per_segment:
        place = place * n_seg + segment[:, None]
    size = n_t * n_pe * n_g * (n_seg if per_segment else 1)
    total = np.bincount(place.ravel(), weights=cost.ravel(), minlength=size).round().astype(np.int64)
    return total.reshape((n_t, n_pe, n_g, n_seg) if per_segment else (n_t, n_pe, n_g))


def _without(acts: ActivationVectors, drop: np.ndarray, banks: int) -> ActivationVectors:
    keep = ~drop
    return ActivationVectors(acts.tile[keep], acts.segment[keep], acts.pe[keep], acts.count[keep],
                             acts.banks[:, keep] if bit_sliced(banks) else acts.banks[keep])


DENSE_KEYS = 1 << 16   # keys below this bound (or 4 x their number) are made distinct by a table, not a sort


def _distinct(keys: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` of non-negative integer keys below ``bound``: by a
    presence table when the bound is small (no sort)."""
    if bound > max(DENSE_KEYS, 4 * keys.size):
        return unique_inverse(keys, bound)
    present = np.zeros(bound, dtype=bool)
    present[keys] = True
    rank = np.cumsum(present) - 1
    return np.flatnonzero(present), rank[keys]


CLASS_PAIRS_CHUNK = 1 << 20   # (I class, F class) pairs of one segment costed per numpy call (memory bound)


def _class_sums(spec: SCNNSpec, tiling: Tiling, acts: ActivationVectors, weights: WeightVectors,
                steps: int | None = None, per_segment: bool = False) -> np.ndarray | None:
    """Busy cycles ``(passes x PEs x groups,)`` (``per_segment``: ``(passes x PEs x groups x
    segments,)``) (float64, exact integers) of I-vectors of several activations, by rotation classes (bit-sliced banks only); None when ``steps`` (the work of
    counting step by step) is given and is not ``CLASS_GAIN`` times the work by classes.

    A step's cost depends only on the rotation classes of its two vectors
    (:func:`~.crossbar.rotation_classes`), and an I-vector meets every F-vector of its segment. So
    an I-vector of class ``u`` in segment ``s`` costs, in group ``g``, ``W[s, u, g] = sum over the
    distinct F classes v of (s, g) of count(v) x cost(u, v)``: each (segment, I class, F class)
    is costed once, however many I-vectors (all passes and PEs) and F-vectors share it."""
    banks, n_pe, n_g = spec.accumulator_banks, spec.pes, tiling.out_groups
    n_seg = weights.seg_start.size - 1
    i_class, i_rep = rotation_classes(acts.banks, banks)
    n_ic = i_rep.shape[1]
    i_keys, i_of = _distinct(acts.segment * n_ic + i_class, n_seg * n_ic)
    i_seg, i_cls = i_keys // n_ic, i_keys % n_ic
    if steps is not None and CLASS_GAIN * int(np.diff(weights.seg_start)[i_seg].sum()) + CLASS_VECTOR_COST * weights.count.size > steps:
        return None
    f_class, f_rep = rotation_classes(shift_masks(weights.shift, banks), banks)
    n_fc = f_rep.shape[1]
    f_shifts = mask_shifts(f_rep, banks, spec.mult_f)
    f_keys, f_of = _distinct((weights.segment * n_g + weights.group) * n_fc + f_class, n_seg * n_g * n_fc)
    f_count = np.bincount(f_of, minlength=f_keys.size)
    f_seg, f_grp, f_cls = f_keys // (n_g * n_fc), (f_keys // n_fc) % n_g, f_keys % n_fc
    f_bounds = np.searchsorted(f_seg, np.arange(weights.seg_start.size))
    first, width = f_bounds[i_seg], f_bounds[i_seg + 1] - f_bounds[i_seg]
    ends = np.cumsum(width)
    # few classes: cost every (I class, F class) pair once, then look the pairs up
    table = step_cost_table(i_rep, f_shifts, banks) if n_ic * n_fc <= int(ends[-1]) else None
    per_class = np.zeros(i_keys.size * n_g, dtype=np.float64)
    lo = 0
    while lo < i_keys.size:   # chunks of I entries of at most CLASS_PAIRS_CHUNK pairs (at least one entry)
        base = ends[lo - 1] if lo else 0
        hi = max(lo + 1, int(np.searchsorted(ends, base + CLASS_PAIRS_CHUNK, side="right")))
        entry = np.repeat(np.arange(lo, hi), width[lo:hi])
        f_idx = first[entry] + np.arange(entry.size) - (ends[entry] - width[entry] - base)
        cost = (max_bank_load(i_rep[:, i_cls[entry], None], f_shifts[f_cls[f_idx], None, :], banks)[:, 0, 0]
                if table is None else table[i_cls[entry], f_cls[f_idx]])
        per_class += np.bincount(entry * n_g + f_grp[f_idx], weights=cost * f_count[f_idx],
                                 minlength=per_class.size)
        lo = hi
    place = (acts.tile * n_pe + acts.pe) * n_g
    n_s = n_seg if per_segment else 1
    total = np.zeros(tiling.passes * n_pe * n_g * n_s, dtype=np.float64)
    for g in range(n_g):
        key = (place + g) * n_seg + acts.segment if per_segment else place + g
        total += np.bincount(key, weights=per_class[i_of * n_g + g], minlength=total.size)
    return total


def busy_cycles(spec: SCNNSpec, tiling: Tiling, acts: ActivationVectors, weights: WeightVectors,
                table: bool | None = None, per_segment: bool = False) -> np.ndarray:
    """Busy cycles ``(passes, PEs, groups)`` of every PE in every group (``per_segment``:
    ``(passes, PEs, groups, segments)``, the cycles of each segment apart). ``table``: cost each
    (segment, I class, F class) once (True, :func:`_class_sums`; bit-sliced banks), count each step
    (False), or whichever is less work (None); the cycles are the same."""
    n_t, n_pe, n_g = tiling.passes, spec.pes, tiling.out_groups
    n_seg = weights.seg_start.size - 1
    shape = (n_t, n_pe, n_g, n_seg) if per_segment else (n_t, n_pe, n_g)
    single = acts.count == 1
    busy = _single_activation_cycles(spec, tiling, acts, weights, single, per_segment)
    pairs = (acts.count == 2) & bit_sliced(spec.accumulator_banks)
    if pairs.any():
        busy = busy + _pair_activation_cycles(spec, tiling, acts, weights, pairs, per_segment)
    done = single | pairs
    if done.all():
        return busy
    acts = _without(acts, done, spec.accumulator_banks)
    n = acts.tile.size
    key = acts.tile * weights.seg_start.size + acts.segment
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    rows = np.diff(np.concatenate((starts, [n])))
    seg = acts.segment[starts]
    f_start = weights.seg_start[seg]
    cols = weights.seg_start[seg + 1] - f_start
    live = cols > 0
    starts, rows, seg, f_start, cols = starts[live], rows[live], seg[live], f_start[live], cols[live]
    by_class = None if table is False or not bit_sliced(spec.accumulator_banks) else \
        _class_sums(spec, tiling, acts, weights, None if table else int((rows * cols).sum()), per_segment)
    if by_class is not None:
        return busy + by_class.round().astype(np.int64).reshape(shape)
    tiles = acts.tile[starts]
    order = np.lexsort((rows, cols))
    total = np.zeros(int(np.prod(shape)), dtype=np.float64)
    row_list, col_list = rows[order].tolist(), cols[order].tolist()
    i = 0
    while i < order.size:
        j = i + 1
        max_r, max_c = row_list[i], col_list[i]
        while j < order.size:
            r2, c2 = max(max_r, row_list[j]), max(max_c, col_list[j])
            if (j + 1 - i) * r2 * c2 > MAX_BLOCK_PAIRS:
                break
            max_r, max_c = r2, c2
            j += 1
        batch = order[i:j]
        r_idx = starts[batch][:, None] + np.arange(max_r)[None, :]
        r_ok = np.arange(max_r)[None, :] < rows[batch][:, None]
        r_idx = np.where(r_ok, r_idx, 0)
        f_idx = f_start[batch][:, None] + np.arange(max_c)[None, :]
        f_ok = np.arange(max_c)[None, :] < cols[batch][:, None]
        f_idx = np.where(f_ok, f_idx, 0)
        shifts = np.where(f_ok[:, :, None], weights.shift[f_idx], EMPTY_SHIFT)
        cost = step_cycles(acts.banks, r_idx, r_ok, shifts, spec.accumulator_banks)
        pe_key = (tiles[batch][:, None] * n_pe + acts.pe[r_idx]) * n_g
        if n_g == 1 and not per_segment:   # one group: the steps of an I-vector add up before they are placed
            total += np.bincount(pe_key.ravel(), weights=cost.sum(axis=2).ravel(), minlength=total.size)
            i = j
            continue
        # an I-vector's steps summed per group first: a segment's F-vectors are sorted by group, so
        # each group is a run of columns (reduceat over the steps in memory order)
        per_group = weights.vectors_per_block[seg[batch]]                                    # (B, groups)
        first = (np.arange(len(batch) * max_r)[:, None] * max_c
                 + np.repeat(np.cumsum(per_group, axis=1) - per_group, max_r, axis=0)).ravel()
        sums = np.add.reduceat(np.append(cost.ravel(), 0), first)   # a trailing empty group starts at the 0
        sums = np.where(np.repeat(per_group, max_r, axis=0).ravel() > 0, sums, 0)
        flat = pe_key[:, :, None] + np.arange(n_g)
        if per_segment:
            flat = flat * n_seg + seg[batch][:, None, None]
        total += np.bincount(flat.ravel(), weights=sums, minlength=total.size)
        i = j
    return busy + total.round().astype(np.int64).reshape(shape)


def _counts(t_ids, seg_ids, pe_ids, n_t, n_seg, n_pe) -> np.ndarray:
    flat = (t_ids * n_pe + pe_ids) * n_seg + seg_ids
    return np.bincount(flat, minlength=n_t * n_pe * n_seg).reshape(n_t, n_pe, n_seg)


def cartesian_work(plan: Plan, image: int, conv_group: int, weights: WeightVectors) -> PeWork:
    """``weights``: the conv group's F-vectors (:func:`~.vectors.weight_vectors`, shared by the batch's images)."""
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    fifo = spec.scatter != "serialise"   # the FIFO loops cut the elements into I-vectors themselves

    n_seg = weights.seg_start.size - 1   # view.channels x phase classes, as activation_elements numbers them
    n_t, n_pe = tiling.passes, spec.pes

    def vectors() -> tuple:
        elements = activation_elements(spec, view, tiling, plan.input_mask[image, conv_group])
        tile, seg, pe, _ = elements
        return (elements, None if fifo else activation_vectors(spec, view, tiling, elements),
                _counts(tile, seg, pe, n_t, n_seg, n_pe))

    at = (activation_key(spec), fifo, tiling_key(tiling), image, conv_group)
    elements, acts, na = plan.memo.get(plan.layer, ("activation vectors", plan.traits.skip_activations) + at,
                                       vectors if plan.traits.skip_activations else   # every activation: the shape's
                                       lambda: shape_piece(("activation vectors", view) + at, vectors))
    va = -(-na // spec.mult_i)   # I-vectors: each (pass, segment, PE)'s elements (one run of them) cut by I
    nw, vw = weights.weights_per_block, weights.vectors_per_block
    steps = va @ vw
    per_channel, in_plane = None, None
    if product_level(plan) or spec.barrier == "group_channel":   # busy cycles per segment
        if fifo:   # FIFOs: every step in order (the shortcuts below sum step costs)
            per_segment, in_plane = fifo_busy(plan, image, conv_group, weights, elements)
        elif class_codes(plan):
            per_segment = xor_class_busy(plan, image, conv_group, weights)
        elif border_split(plan):   # products near the edges; the crossbar's algebra for the rest
            border = border_vectors(plan, image, conv_group, weights)
            per_segment = product_busy(plan, image, conv_group, weights, border)[0] + busy_cycles(
                spec, tiling, _without(acts, border, spec.accumulator_banks), weights, per_segment=True)
        elif product_level(plan):   # serialise: needs_coordinates
            per_segment, in_plane = serialised_busy(plan, image, conv_group, weights)
        else:
            per_segment = busy_cycles(spec, tiling, acts, weights, per_segment=True)
        # a channel's stride phases run one after the other on the PE
        per_channel = per_segment if n_seg == view.channels else \
            per_segment.reshape(n_t, n_pe, tiling.out_groups, view.channels, -1).sum(axis=4)   # (no copy of one phase)
    busy = busy_cycles(spec, tiling, acts, weights) if per_channel is None else per_channel.sum(axis=3)
    # every F-vector is broadcast once per temporal tile (in the pass of its channel's chunk)
    return PeWork(busy, na @ nw, steps, int((na @ (nw > 0)).sum()),
                  int(steps.sum()), tiling.temporal_tiles * n_pe * int(weights.count.size),
                  int((vw > spec.weight_fifo_entries).sum()), per_channel, in_plane)
