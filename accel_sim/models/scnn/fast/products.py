"""Product-level step costs, fast path: what the additive bank algebra of :mod:`.crossbar` cannot do.

Three choices need each product's bank on its own (all three are DNNsim's rules, see
:mod:`accel_sim.models.scnn.spec`): the ``dnnsim_xor`` bank hash (not additive in the coordinates),
``out_of_plane: slot_only`` (a product whose output leaves the plane takes its multiplier slot but
no bank, so a step's load depends on where its products land) and ``stride_phases: dnnsim``
(output coordinates truncated toward zero, not additive either). ``barrier: group_channel`` alone
(busy cycles per input channel) needs no product: :func:`.pe.busy_cycles` keeps its segments apart.

Per segment (input channel and stride phase), every I-vector of every PE meets every F-vector of
the segment; the products of a batch of I-vectors against all of the segment's weights form one
dense grid, each gets its output coordinate ``(qy - r', qx - s')`` and bank, and a step costs
``max(1, its busiest bank's products)``. Costs are summed per (pass, PE, group, segment).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.models.scnn.fast.vectors import WeightVectors, _vector_ids, activation_elements
from accel_sim.models.scnn.plan import Plan
from accel_sim.models.scnn.plan.bank_mapping import xor_bank

MAX_PRODUCTS = 1 << 22   # products of one grid (memory bound)


def product_level(plan: Plan) -> bool:
    """Whether the spec needs product-level costs (else :func:`.pe.busy_cycles` counts them, per
    segment for ``barrier: group_channel``: the additive bank algebra holds there)."""
    spec = plan.spec
    return needs_coordinates(spec) or spec.scatter != "serialise"   # FIFOs: every step's bank loads, in order


def needs_coordinates(spec) -> bool:
    """Whether a product's bank or landing needs its output coordinate (else the bank is the sum of
    the operands' terms, and products in the plane are not counted)."""
    return spec.bank_mapping == "dnnsim_xor" or spec.out_of_plane == "slot_only" or spec.stride_phases == "dnnsim"


def _chunks(vector_ids: np.ndarray, per: int):
    """Slices of ``vector_ids`` (ascending) of about ``per`` elements, cut at vector boundaries."""
    n, i = vector_ids.size, 0
    while i < n:
        j = min(n, i + per)
        if j < n:
            j = int(np.searchsorted(vector_ids, vector_ids[j - 1], side="right"))
        yield i, j
        i = j


def _truncated(floor_out: np.ndarray, pad: int, stride: int) -> np.ndarray:
    """``stride_phases: dnnsim``: DNNsim divides ``y + pad - r`` truncating toward zero. Its pairing
    makes ``y + pad - r = pad (mod stride)``, so when ``pad % stride != 0`` no negative ``y + pad - r``
    is a multiple of the stride and truncation is one above the floor for every negative output: -1
    lands on output 0 (in the plane), -2 on -1 (out of it, but in another bank unless
    ``out_of_plane: slot_only``), and so on."""
    if pad % stride == 0:
        return floor_out
    return np.where(floor_out < 0, floor_out + 1, floor_out)


def border_split(plan: Plan) -> bool:
    """``out_of_plane: slot_only`` with an additive bank mapping and aligned strides: only I-vectors
    near the plane's edges (:func:`border_vectors`) need products; the others land every product, so
    the crossbar's bank algebra (:func:`.pe.busy_cycles`) counts them."""
    spec = plan.spec
    return spec.out_of_plane == "slot_only" and spec.bank_mapping != "dnnsim_xor" and spec.stride_phases == "aligned"


def border_vectors(plan: Plan, image: int, conv_group: int, weights: WeightVectors) -> np.ndarray:
    """Per I-vector (:func:`~.vectors.activation_vectors`' order): whether one of its products with
    some weight of the conv group may leave the output plane (its activation rows or columns are
    within the weights' tap range of an edge)."""
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    tile, seg, pe, _, qy, qx = activation_elements(spec, view, tiling, plan.input_mask[image, conv_group],
                                                   positions=True)
    vector, _ = _vector_ids((tile * (weights.seg_start.size - 1) + seg) * spec.pes + pe, spec.mult_i)
    border = np.zeros(int(vector[-1]) + 1 if vector.size else 0, dtype=bool)
    if weights.k.size:
        border[vector[near_edge(view, qy, qx, weights.tap_y, weights.tap_x)]] = True
    return border


def near_edge(view, qy: np.ndarray, qx: np.ndarray, tap_y: np.ndarray, tap_x: np.ndarray) -> np.ndarray:
    """Per activation at output-grid row and column ``qy``, ``qx``: whether its product with some weight of taps
    ``tap_y``, ``tap_x`` may leave the output plane (within the taps' range of an edge)."""
    return (qy < tap_y.max()) | (qy - tap_y.min() >= view.out_h) | (qx < tap_x.max()) | \
        (qx - tap_x.min() >= view.out_w)


@dataclass(frozen=True)
class SegmentLoads:
    """Bank loads of the steps of a run of I-vectors of one segment against all its F-vectors."""

    segment: int
    tile: np.ndarray       # (n_i,) pass of each I-vector (ascending with pe: the PE's processing order)
    pe: np.ndarray         # (n_i,)
    group: np.ndarray      # (n_f,) output-channel group of each F-vector (ascending: FIFO order)
    load: np.ndarray       # (n_i, n_f, A) products of step (I-vector, F-vector) per bank
    in_plane: int | None   # products whose output lies in the plane (counted when a coordinate rule needs
                           # them: dnnsim_xor, slot_only, stride_phases dnnsim)


def segment_loads(plan: Plan, image: int, conv_group: int, weights: WeightVectors, max_products: int = MAX_PRODUCTS,
                  order: np.ndarray | None = None, vectors: np.ndarray | None = None):
    """Per segment with activations and weights (ascending, or in ``order``, a permutation of the
    segments), in chunks of I-vectors of about ``max_products`` products: every step's products per
    bank (:class:`SegmentLoads`). ``vectors``: of those I-vectors only (a flag per I-vector, in
    :func:`~.vectors.activation_vectors`' order)."""
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    banks = spec.accumulator_banks
    n_seg = weights.seg_start.size - 1
    tile, seg, pe, term, qy, qx = activation_elements(spec, view, tiling, plan.input_mask[image, conv_group],
                                                      positions=True)
    if tile.size == 0 or weights.k.size == 0:
        return
    i_vector, _ = _vector_ids((tile * n_seg + seg) * spec.pes + pe, spec.mult_i)
    w_seg = weights.segment[weights.vector]
    w_start = np.searchsorted(w_seg, np.arange(n_seg + 1))
    a_order = np.argsort(seg, kind="stable")
    if vectors is not None:
        a_order = a_order[vectors[i_vector[a_order]]]
    a_start = np.searchsorted(seg[a_order], np.arange(n_seg + 1))
    xor, slot_only = spec.bank_mapping == "dnnsim_xor", spec.out_of_plane == "slot_only"
    truncate = spec.stride_phases == "dnnsim"
    additive = not needs_coordinates(spec)
    power_of_two = banks & (banks - 1) == 0
    k_layer = weights.k + conv_group * view.out_channels
    has_activations = np.diff(a_start) > 0
    meet = has_activations & (np.diff(w_start) > 0)
    for s in (np.flatnonzero(meet) if order is None else order[meet[order]]):
        w = slice(int(w_start[s]), int(w_start[s + 1]))
        f_vec = weights.vector[w] - weights.vector[w][0]
        n_f = int(f_vec[-1]) + 1
        v_group = weights.group[weights.vector[w][0] + np.arange(n_f)]
        acts = a_order[a_start[s]:a_start[s + 1]]
        for i, j in _chunks(i_vector[acts], max(1, max_products // f_vec.size)):
            a = acts[i:j]
            first = np.flatnonzero(np.concatenate(([True], i_vector[a][1:] != i_vector[a][:-1])))
            i_vec = np.repeat(np.arange(first.size), np.diff(np.concatenate((first, [a.size]))))
            if additive:   # the bank is the sum of the two operands' terms (no coordinate needed)
                bank = term[a][:, None] + weights.term[w][None, :]
                bank = bank & (banks - 1) if power_of_two else bank % banks
                plane, land = None, None
            else:
                floor_y = qy[a][:, None] - weights.tap_y[w][None, :]
                floor_x = qx[a][:, None] - weights.tap_x[w][None, :]
                oy = _truncated(floor_y, view.pad_top, view.stride_h) if truncate else floor_y
                ox = _truncated(floor_x, view.pad_left, view.stride_w) if truncate else floor_x
                if xor:
                    bank = xor_bank(spec, k_layer[w][None, :], oy, ox)
                else:   # bank_of is linear in the coordinates: a truncated product moves one row / column
                    bank = (term[a][:, None] + weights.term[w][None, :] + tiling.acc_w * (oy - floor_y)
                            + (ox - floor_x)) % banks
                plane = ((oy >= 0) & (oy < view.out_h) & (ox >= 0) & (ox < view.out_w)).ravel()
                land = plane if slot_only else None
            index = bank + (i_vec[:, None] * (n_f * banks) + f_vec[None, :] * banks)
            load = np.bincount(index.ravel(), weights=land, minlength=first.size * n_f * banks)
            yield SegmentLoads(int(s), tile[a][first], pe[a][first], v_group,
                               load.reshape(first.size, n_f, banks).astype(np.int64, copy=False),
                               None if plane is None else int(plane.sum()))


def product_busy(plan: Plan, image: int, conv_group: int, weights: WeightVectors,
                 vectors: np.ndarray | None = None) -> tuple[np.ndarray, int | None]:
    """Busy cycles ``(passes, PEs, groups, segments)`` of every PE, and the products whose output
    lies in the plane (None when not counted, see :class:`SegmentLoads`; ``vectors``: of those
    I-vectors only, a flag per I-vector, see :func:`segment_loads`)."""
    spec, tiling = plan.spec, plan.tiling
    n_seg = weights.seg_start.size - 1
    busy = np.zeros((tiling.passes, spec.pes, tiling.out_groups, n_seg), dtype=np.int64)
    in_plane = 0 if needs_coordinates(spec) else None
    for part in segment_loads(plan, image, conv_group, weights, MAX_PRODUCTS, vectors=vectors):   # read now: tests lower it
        if part.in_plane is not None:
            in_plane += part.in_plane
        g_start = np.flatnonzero(np.concatenate(([True], part.group[1:] != part.group[:-1])))
        cost = np.maximum(part.load.max(axis=2), 1)
        per_group = np.add.reduceat(cost, g_start, axis=1)                     # (I-vectors, groups here)
        np.add.at(busy, (part.tile[:, None], part.pe[:, None], part.group[g_start][None, :], part.segment),
                  per_group)
    return busy, in_plane
