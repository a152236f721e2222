"""Product-level step costs, fast path: what the additive bank algebra of :mod:`.crossbar` cannot do.

Three choices need each product's bank on its own (all three are DNNsim's rules, see
:mod:`accel_sim.scnn.spec`): the ``dnnsim_xor`` bank hash (not additive in the coordinates),
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

import numpy as np

from accel_sim.scnn.fast.vectors import WeightVectors, _vector_ids, activation_elements
from accel_sim.scnn.plan import Plan
from accel_sim.scnn.plan.bank_mapping import xor_bank

MAX_PRODUCTS = 1 << 22   # products of one grid (memory bound)


def product_level(plan: Plan) -> bool:
    """Whether the spec needs product-level costs (else :func:`.pe.busy_cycles` counts them, per
    segment for ``barrier: group_channel``: the additive bank algebra holds there)."""
    spec = plan.spec
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
    makes ``y + pad - r = pad (mod stride)``, so when ``pad % stride != 0`` a product whose floor
    output is -1 (``-stride < y + pad - r < 0``) lands on output 0."""
    if pad % stride == 0:
        return floor_out
    return np.where(floor_out == -1, 0, floor_out)


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
        ty, tx = weights.tap_y, weights.tap_x
        edge = (qy < ty.max()) | (qy - ty.min() >= view.out_h) | (qx < tx.max()) | (qx - tx.min() >= view.out_w)
        border[vector[edge]] = True
    return border


def product_busy(plan: Plan, image: int, conv_group: int, weights: WeightVectors,
                 vectors: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """Busy cycles ``(passes, PEs, groups, segments)`` of every PE, and the products whose output
    lies in the plane (``vectors``: of those I-vectors only, a flag per I-vector)."""
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    banks = spec.accumulator_banks
    n_seg = weights.seg_start.size - 1
    busy = np.zeros((tiling.passes, spec.pes, tiling.out_groups, n_seg), dtype=np.int64)
    tile, seg, pe, term, qy, qx = activation_elements(spec, view, tiling, plan.input_mask[image, conv_group],
                                                      positions=True)
    if tile.size == 0 or weights.k.size == 0:
        return busy, 0
    i_vector, _ = _vector_ids((tile * n_seg + seg) * spec.pes + pe, spec.mult_i)
    w_seg = weights.segment[weights.vector]
    w_start = np.searchsorted(w_seg, np.arange(n_seg + 1))
    a_order = np.argsort(seg, kind="stable")
    if vectors is not None:
        a_order = a_order[vectors[i_vector[a_order]]]
    a_start = np.searchsorted(seg[a_order], np.arange(n_seg + 1))
    xor, slot_only = spec.bank_mapping == "dnnsim_xor", spec.out_of_plane == "slot_only"
    truncate = spec.stride_phases == "dnnsim"
    in_plane = 0
    k_layer = weights.k + conv_group * view.out_channels
    for s in np.flatnonzero((np.diff(a_start) > 0) & (np.diff(w_start) > 0)):
        w = slice(int(w_start[s]), int(w_start[s + 1]))
        f_vec = weights.vector[w] - weights.vector[w][0]
        n_f = int(f_vec[-1]) + 1
        v_group = weights.group[weights.vector[w][0] + np.arange(n_f)]
        g_start = np.flatnonzero(np.concatenate(([True], v_group[1:] != v_group[:-1])))
        acts = a_order[a_start[s]:a_start[s + 1]]
        for i, j in _chunks(i_vector[acts], max(1, MAX_PRODUCTS // f_vec.size)):
            a = acts[i:j]
            first = np.flatnonzero(np.concatenate(([True], i_vector[a][1:] != i_vector[a][:-1])))
            i_vec = np.repeat(np.arange(first.size), np.diff(np.concatenate((first, [a.size]))))
            floor_y = qy[a][:, None] - weights.tap_y[w][None, :]
            floor_x = qx[a][:, None] - weights.tap_x[w][None, :]
            oy = _truncated(floor_y, view.pad_top, view.stride_h) if truncate else floor_y
            ox = _truncated(floor_x, view.pad_left, view.stride_w) if truncate else floor_x
            if xor:
                bank = xor_bank(spec, k_layer[w][None, :], oy, ox)
            else:   # bank_of is linear in the coordinates: a truncated product moves one row / column
                bank = (term[a][:, None] + weights.term[w][None, :] + tiling.acc_w * (oy - floor_y)
                        + (ox - floor_x)) % banks
            step = i_vec[:, None] * n_f + f_vec[None, :]
            plane = ((oy >= 0) & (oy < view.out_h) & (ox >= 0) & (ox < view.out_w)).ravel()
            in_plane += int(plane.sum())
            land = plane if slot_only else None
            load = np.bincount((step * banks + bank).ravel(), weights=land, minlength=first.size * n_f * banks)
            cost = np.maximum(load.reshape(first.size, n_f, banks).max(axis=2), 1).astype(np.int64)
            per_group = np.add.reduceat(cost, g_start, axis=1)                     # (I-vectors, groups here)
            np.add.at(busy, (tile[a][first][:, None], pe[a][first][:, None], v_group[g_start][None, :], s),
                      per_group)
    return busy, in_plane
