"""Fast path of the Cartesian-product PE: vectors, bank conflicts, busy cycles per PE and group.

Per PE, per output-channel group, the loop nest is (paper, PT-IS-CP-sparse)::

    for c in channels: for phase: for each I-vector (I activations, raster order of the tile):
        for each F-vector (F weights of (c, group), linearised over R x S then K):
            one step: F x I products, scattered to A accumulator banks

A step takes as many cycles as the most loaded bank receives products (same-bank products
serialise; the next step starts when the crossbar has delivered all of them). With the
additive bank mappings of :mod:`accel_sim.scnn.bank_mapping` a product's bank is
``(weight term + activation term) mod A``, so a step's load on bank ``b`` is
``sum_i count(activation terms == b - w_i)``. The fast path keeps each I-vector as an A-bit
mask (one mask per multiplicity when two activations share a term), rotates it by each
weight term (a shift of the mask stored twice side by side) and adds the F rotated masks
with bit-sliced counters; the maximum over banks is read from the counter bits. Work is
vectorised over all (I-vector, F-vector) pairs of one (temporal tile, channel, phase).

Activations carry their *pass* (temporal tile x channel chunks + channel chunk, see
:mod:`accel_sim.scnn.tiling`): a chunk's channels are computed in their own pass.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.scnn.bank_mapping import channel_coefficient
from accel_sim.scnn.spec import SCNNSpec
from accel_sim.scnn.tiling import ConvView, Tiling

EMPTY_SHIFT = 64        # a shift that empties a uint64 mask: an unused slot of a ragged F-vector
MAX_BLOCK_PAIRS = 1 << 15


@dataclass(frozen=True)
class WeightVectors:
    """F-vectors of one conv group, sorted by segment (channel, phase), then group, then order."""

    segment: np.ndarray   # (n,) c * phases + phase
    group: np.ndarray     # (n,) output-channel group
    count: np.ndarray     # (n,) weights in the vector (1..F)
    shift: np.ndarray     # (n, F) uint64 rotation of the activation mask per weight (EMPTY_SHIFT unused)
    seg_start: np.ndarray  # (segments + 1,) first vector of each segment
    multiplicity: np.ndarray  # (n,) the most weights of the vector sharing one bank term
    # (segments, output-channel groups) sums, shared by every image of the batch:
    weights_per_block: np.ndarray        # weights
    vectors_per_block: np.ndarray        # F-vectors
    multiplicity_per_block: np.ndarray   # F-vector multiplicities


def _per_block(segment: np.ndarray, group: np.ndarray, values: np.ndarray | None, n_seg: int,
               groups: int) -> np.ndarray:
    """``(segments, groups)`` sums of a per-vector quantity (``None``: count the vectors)."""
    sums = np.bincount(segment * groups + group, weights=values, minlength=n_seg * groups)
    return sums.astype(np.int64).reshape(n_seg, groups)


@dataclass(frozen=True)
class ActivationVectors:
    """I-vectors of one image and conv group, sorted by (pass, segment, PE, raster order)."""

    tile: np.ndarray      # (n,) pass: temporal tile x channel chunks + channel chunk
    segment: np.ndarray   # (n,)
    pe: np.ndarray        # (n,)
    count: np.ndarray     # (n,) activations in the vector (1..I)
    masks: np.ndarray     # (planes, n) uint64: bank-term mask doubled (m | m << A), per multiplicity


def phase_counts(view: ConvView) -> tuple[int, int]:
    return min(view.stride_h, view.r), min(view.stride_w, view.s)


def _vector_ids(keys: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Cut runs of equal ``keys`` into vectors of ``width``: (vector id, slot) per element."""
    n = keys.size
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    new_run = np.ones(n, dtype=bool)
    new_run[1:] = keys[1:] != keys[:-1]
    run_start = np.maximum.accumulate(np.where(new_run, np.arange(n), 0))
    slot = np.arange(n) - run_start
    starts = new_run | (slot % width == 0)
    return np.cumsum(starts) - 1, slot % width


def weight_vectors(spec: SCNNSpec, view: ConvView, tiling: Tiling, weight_mask: np.ndarray) -> WeightVectors:
    """``weight_mask`` (Kg, Cg, R, S): the weights the design feeds to the multipliers."""
    a = spec.accumulator_banks
    nph_h, nph_w = phase_counts(view)
    k, c, r, s = (v.astype(np.int64) for v in np.nonzero(weight_mask))
    segment = c * (nph_h * nph_w) + (r % view.stride_h) * nph_w + (s % view.stride_w)
    group = k // tiling.kc
    if spec.weight_order == "rs_then_k":
        order = np.argsort(segment, kind="stable")  # np.nonzero's (k, c, r, s) order: (k, r, s) inside a channel
    else:
        order = np.lexsort((k, s, r, k // tiling.kc, segment))
    k, r, s, segment, group = k[order], r[order], s[order], segment[order], group[order]
    vec, slot = _vector_ids(segment * (tiling.out_groups + 1) + group, spec.mult_f)
    n = int(vec[-1]) + 1 if vec.size else 0
    term = (channel_coefficient(spec, tiling) * (k % tiling.kc) - tiling.acc_w * (r // view.stride_h)
            - s // view.stride_w) % a
    shift = np.full((n, spec.mult_f), EMPTY_SHIFT, dtype=np.uint64)
    shift[vec, slot] = ((a - term) % a).astype(np.uint64)
    first = np.zeros(n, dtype=np.int64)
    first[vec[::-1]] = np.arange(vec.size)[::-1]
    v_segment = segment[first] if n else np.zeros(0, dtype=np.int64)
    n_segments = view.channels * nph_h * nph_w
    seg_start = np.searchsorted(v_segment, np.arange(n_segments + 1))
    v_group = group[first] if n else v_segment.copy()
    count, multiplicity = np.bincount(vec, minlength=n).astype(np.int64), weight_multiplicity(shift)

    def per_block(values: np.ndarray | None) -> np.ndarray:
        return _per_block(v_segment, v_group, values, n_segments, tiling.out_groups)

    return WeightVectors(v_segment, v_group, count, shift, seg_start, multiplicity,
                         per_block(count), per_block(None), per_block(multiplicity))


def activation_elements(spec: SCNNSpec, view: ConvView, tiling: Tiling, input_mask: np.ndarray):
    """Non-zeros (of ``input_mask`` (Cg, H, W)) that meet some weight, with pass (temporal tile,
    channel chunk), PE, segment and bank term, in the PE's processing order."""
    a = spec.accumulator_banks
    nph_h, nph_w = phase_counts(view)
    c, y, x = (v.astype(np.int64) for v in np.nonzero(input_mask))
    py, px = (y + view.pad_top) % view.stride_h, (x + view.pad_left) % view.stride_w
    keep = (py < nph_h) & (px < nph_w)
    c, y, x, py, px = c[keep], y[keep], x[keep], py[keep], px[keep]
    row_tile, col_tile = tiling.rows.tile_of(y), tiling.cols.tile_of(x)
    tile = (row_tile // spec.pe_rows) * tiling.temporal_cols + col_tile // spec.pe_cols
    tile = tile * tiling.channel_chunks + tiling.chunk_of(c)
    pe = (row_tile % spec.pe_rows) * spec.pe_cols + col_tile % spec.pe_cols
    segment = c * (nph_h * nph_w) + py * nph_w + px
    qy, qx = (y + view.pad_top) // view.stride_h, (x + view.pad_left) // view.stride_w
    term = (tiling.acc_w * (qy - tiling.rows.acc_lo[row_tile]) + qx - tiling.cols.acc_lo[col_tile]) % a
    # np.nonzero lists (c, y, x) in raster order: a stable sort on (pass, segment, PE) keeps it
    n_segments = view.channels * nph_h * nph_w
    order = np.argsort((tile * n_segments + segment) * spec.pes + pe, kind="stable")
    return tile[order], segment[order], pe[order], term[order]


def activation_vectors(spec: SCNNSpec, view: ConvView, tiling: Tiling, elements) -> ActivationVectors:
    """I-vectors from :func:`activation_elements`."""
    a = spec.accumulator_banks
    tile, segment, pe, term = elements
    n_pes = spec.pes
    n_segments = view.channels * phase_counts(view)[0] * phase_counts(view)[1]
    vec, _ = _vector_ids((tile * n_segments + segment) * n_pes + pe, spec.mult_i)
    n = int(vec[-1]) + 1 if vec.size else 0
    plane = np.zeros(vec.size, dtype=np.int64)
    for d in range(1, spec.mult_i):
        same = np.zeros(vec.size, dtype=bool)
        same[d:] = (vec[d:] == vec[:-d]) & (term[d:] == term[:-d])
        plane += same
    planes = int(plane.max()) + 1 if vec.size else 1
    bit = np.left_shift(np.uint64(1), term.astype(np.uint64))
    starts = np.searchsorted(vec, np.arange(n))
    masks = np.zeros((planes, n), dtype=np.uint64)
    for p in range(planes):
        if n:
            m = np.bitwise_or.reduceat(np.where(plane == p, bit, np.uint64(0)), starts)
            masks[p] = m | (m << np.uint64(a))
    first = starts
    return ActivationVectors(tile[first], segment[first], pe[first],
                             np.bincount(vec, minlength=n).astype(np.int64), masks)


def max_bank_load(masks: np.ndarray, shifts: np.ndarray, banks: int) -> np.ndarray:
    """Cycles of every (I-vector, F-vector) step: the largest number of products on one bank.

    ``masks`` (planes, B, n_i) doubled activation masks; ``shifts`` (B, n_f, F), for B blocks.
    Returns (B, n_i, n_f); an all-zero mask row or an all-empty shift row gives 0.
    """
    counters: list[np.ndarray] = []
    added = 0
    for plane in masks:
        if not plane.any():
            continue
        column = plane[:, :, None]
        for i in range(shifts.shape[2]):
            carry = column >> shifts[:, None, :, i]
            added += 1
            for level in range(len(counters)):
                nxt = counters[level] & carry
                counters[level] ^= carry
                carry = nxt
            if added >= (1 << len(counters)):
                counters.append(carry)
    low = np.uint64((1 << banks) - 1)
    shape = (masks.shape[1], masks.shape[2], shifts.shape[1])
    result = np.zeros(shape, dtype=np.int64)
    current = np.full(shape, low, dtype=np.uint64)
    for level in range(len(counters) - 1, -1, -1):
        candidate = current & counters[level]
        hit = candidate != 0
        result += hit.astype(np.int64) << level
        current = np.where(hit, candidate, current)
    return result


def weight_multiplicity(shift: np.ndarray) -> np.ndarray:
    """Per F-vector (row of ``shift``): the most weights sharing one bank term. With a single
    activation, a step puts exactly that many products on its busiest bank, whatever the activation."""
    best = np.ones(shift.shape[0], dtype=np.int64)
    for i in range(shift.shape[1]):
        same = ((shift == shift[:, i:i + 1]) & (shift != EMPTY_SHIFT)).sum(axis=1)
        best = np.maximum(best, same)
    return best


def _single_activation_cycles(spec: SCNNSpec, tiling: Tiling, acts: ActivationVectors, weights: WeightVectors,
                              single: np.ndarray) -> np.ndarray:
    """Busy cycles of the I-vectors holding one activation: count x the F-vectors' multiplicities."""
    n_t, n_pe, n_g = tiling.passes, spec.pes, tiling.out_groups
    n_seg = weights.seg_start.size - 1
    per_seg = weights.multiplicity_per_block
    flat = (acts.tile[single] * n_pe + acts.pe[single]) * n_seg + acts.segment[single]
    counts = np.bincount(flat, minlength=n_t * n_pe * n_seg).reshape(n_t * n_pe, n_seg)
    return (counts @ per_seg).reshape(n_t, n_pe, n_g)


def busy_cycles(spec: SCNNSpec, tiling: Tiling, acts: ActivationVectors, weights: WeightVectors) -> np.ndarray:
    """Busy cycles ``(passes, PEs, groups)`` of every PE in every group.

    The (pass, segment) blocks of I-vector x F-vector pairs are padded to a common
    size in batches of similar blocks (padding costs 0) and reduced by (tile, PE, group).
    """
    n_t, n_pe, n_g = tiling.passes, spec.pes, tiling.out_groups
    if acts.tile.size == 0 or weights.group.size == 0:
        return np.zeros((n_t, n_pe, n_g), dtype=np.int64)
    single = acts.count == 1
    busy = _single_activation_cycles(spec, tiling, acts, weights, single)
    if single.all():
        return busy
    acts = ActivationVectors(acts.tile[~single], acts.segment[~single], acts.pe[~single], acts.count[~single],
                             acts.masks[:, ~single])
    n = acts.tile.size
    key = acts.tile * weights.seg_start.size + acts.segment
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    rows = np.diff(np.concatenate((starts, [n])))
    seg = acts.segment[starts]
    f_start = weights.seg_start[seg]
    cols = weights.seg_start[seg + 1] - f_start
    live = cols > 0
    starts, rows, seg, f_start, cols = starts[live], rows[live], seg[live], f_start[live], cols[live]
    tiles = acts.tile[starts]
    order = np.lexsort((rows, cols))
    total = np.zeros(n_t * n_pe * n_g, dtype=np.float64)
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
        masks = np.where(r_ok[None], acts.masks[:, r_idx], np.uint64(0))
        shifts = np.where(f_ok[:, :, None], weights.shift[f_idx], np.uint64(EMPTY_SHIFT))
        cost = max_bank_load(masks, shifts, spec.accumulator_banks)
        pe_key = (tiles[batch][:, None] * n_pe + acts.pe[r_idx]) * n_g
        flat = pe_key[:, :, None] + weights.group[f_idx][:, None, :]
        total += np.bincount(flat.ravel(), weights=cost.ravel(), minlength=total.size)
        i = j
    return busy + total.round().astype(np.int64).reshape(n_t, n_pe, n_g)
