"""DNNsim's XOR bank hash, fast path: steps costed by classes of bank codes, not product by product.

:func:`~accel_sim.models.scnn.plan.bank_mapping.xor_bank` reads only the low three bits of the filter
``k`` and the low two bits of the product's global output row and column ``(qy - tap_y,
qx - tap_x)``, and ``(qy - tap_y) mod 4`` depends only on ``qy mod 4`` and ``tap_y mod 4``. So a
product's bank is ``T[a, w]`` of an activation code ``a = (qy mod 4, qx mod 4)`` (16 codes) and a
weight code ``w = (k mod 8, tap_y mod 4, tap_x mod 4)`` (128 codes), and a step's cost (its
busiest bank, banked out-of-plane products, aligned strides) depends only on the multiset of its
I-vector's codes (its *class*) and its F-vector's codes. Each I class gets, per weight code, its
bank loads as bit-sliced planes (plane ``p``: the banks receiving more than ``p`` of its
products); a step adds the planes of its F weights with bit-sliced counters
(:func:`~accel_sim.models.scnn.fast.crossbar.largest_count`) and reads the largest count. Each (segment,
I class, F-vector) is costed once, however many I-vectors (passes, PEs) share it; the product
level (:mod:`.products`) gives the same cycles (tests compare them).
"""
from __future__ import annotations

import numpy as np

from accel_sim.models.scnn.fast.crossbar import largest_count
from accel_sim.models.scnn.fast.vectors import WeightVectors, _vector_ids, activation_elements
from accel_sim.models.scnn.plan import Plan
from accel_sim.models.scnn.plan.bank_mapping import xor_bank
from accel_sim.models.scnn.plan.nonzeros import unique_inverse

ACT_CODES = 16       # (qy mod 4, qx mod 4)
WEIGHT_CODES = 128   # (k mod 8, tap_y mod 4, tap_x mod 4)
PAIRS_CHUNK = 1 << 20   # (segment I class, F-vector) pairs costed per numpy call (memory bound)


def class_codes(plan: Plan) -> bool:
    """Whether the plan's step costs are a function of bank codes (:func:`xor_class_busy` applies)."""
    spec = plan.spec
    return spec.bank_mapping == "dnnsim_xor" and spec.out_of_plane == "banked" and \
        spec.stride_phases == "aligned" and spec.accumulator_banks <= 64


def _bank_table(plan: Plan) -> np.ndarray:
    """``(ACT_CODES + 1, WEIGHT_CODES + 1)`` bank of each (activation code, weight code); -1 for the
    last row and column (an empty slot)."""
    a = np.arange(ACT_CODES)[:, None]
    w = np.arange(WEIGHT_CODES)[None, :]
    oy, ox = ((a >> 2) - ((w >> 2) & 3)) & 3, ((a & 3) - (w & 3)) & 3
    table = np.full((ACT_CODES + 1, WEIGHT_CODES + 1), -1, dtype=np.int64)
    table[:ACT_CODES, :WEIGHT_CODES] = xor_bank(plan.spec, w >> 4, oy, ox)
    return table


def _padded(vector: np.ndarray, slot: np.ndarray, codes: np.ndarray, n: int, width: int, empty: int) -> np.ndarray:
    rows = np.full((n, width), empty, dtype=np.int64)
    rows[vector, slot] = codes
    return rows


def weight_codes(k: np.ndarray, tap_y: np.ndarray, tap_x: np.ndarray) -> np.ndarray:
    """Each weight's code (``k`` the layer's filter, ``tap_y``, ``tap_x`` :func:`~.vectors.weight_taps`)."""
    return ((k & 7) * 4 + (tap_y & 3)) * 4 + (tap_x & 3)


def i_classes(vector: np.ndarray, slot: np.ndarray, qy: np.ndarray, qx: np.ndarray, n: int,
              width: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct sorted code rows (classes, ``(classes, width)``, ``ACT_CODES`` in an empty slot) of ``n``
    I-vectors of ``width`` slots (activation ``j`` in slot ``slot[j]`` of vector ``vector[j]``, at output-grid
    row and column ``qy``, ``qx``), and each vector's class."""
    codes = _padded(vector, slot, (qy & 3) * 4 + (qx & 3), n, width, ACT_CODES)
    codes.sort(axis=1)
    base = ACT_CODES + 1
    if base ** width > 1 << 62:   # (rows of more than 15 slots: numpy's row sort)
        classes, i_class = np.unique(codes, axis=0, return_inverse=True)
        return classes, i_class.reshape(-1)
    # a row as one number, its first slot the most significant digit: the numbers sort as the rows do
    power = base ** np.arange(width - 1, -1, -1, dtype=np.int64)
    keys, i_class = unique_inverse(codes @ power, base ** width)
    return keys[:, None] // power % base, i_class


def _load_planes(i_codes: np.ndarray, table: np.ndarray) -> np.ndarray:
    """``(planes, classes, WEIGHT_CODES + 1)`` uint64: for each I class and weight code, bit ``b``
    of plane ``p`` is set when bank ``b`` receives more than ``p`` of the class's products."""
    banks = table[i_codes[:, :, None], np.arange(WEIGHT_CODES + 1)[None, None, :]]   # (classes, I, codes)
    valid = banks >= 0
    repeat = np.zeros(banks.shape, dtype=np.int64)
    for i in range(1, banks.shape[1]):
        repeat[:, i] = ((banks[:, :i] == banks[:, i:i + 1]) & valid[:, :i]).sum(axis=1)
    planes = int(repeat[valid].max()) + 1 if valid.any() else 1
    bit = np.left_shift(np.uint64(1), np.where(valid, banks, 0).astype(np.uint64))
    return np.stack([np.bitwise_or.reduce(np.where(valid & (repeat == p), bit, np.uint64(0)), axis=1)
                     for p in range(planes)])


def xor_class_busy(plan: Plan, image: int, conv_group: int, weights: WeightVectors) -> np.ndarray:
    """Busy cycles ``(passes, PEs, groups, segments)`` of every PE (what :func:`.products.product_busy`
    counts product by product)."""
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    n_t, n_pe, n_g = tiling.passes, spec.pes, tiling.out_groups
    n_seg = weights.seg_start.size - 1
    busy = np.zeros(n_t * n_pe * n_g * n_seg, dtype=np.float64)
    tile, seg, pe, _, qy, qx = activation_elements(spec, view, tiling, plan.input_mask[image, conv_group],
                                                   positions=True)
    if tile.size == 0 or weights.k.size == 0:
        return busy.astype(np.int64).reshape(n_t, n_pe, n_g, n_seg)
    vec, slot = _vector_ids((tile * n_seg + seg) * n_pe + pe, spec.mult_i)
    n_i = int(vec[-1]) + 1
    first = np.searchsorted(vec, np.arange(n_i))
    classes, i_class = i_classes(vec, slot, qy, qx, n_i, spec.mult_i)
    planes = _load_planes(classes, _bank_table(plan))
    w_code = weight_codes(weights.k + conv_group * view.out_channels, weights.tap_y, weights.tap_x)
    f_slot = np.arange(weights.k.size) - np.searchsorted(weights.vector, weights.vector)
    f_codes = _padded(weights.vector, f_slot, w_code, weights.count.size, spec.mult_f, WEIGHT_CODES)
    # (segment, I class) entries, each meeting every F-vector of its segment
    entry_keys, entry_of = np.unique(seg[first] * classes.shape[0] + i_class, return_inverse=True)
    e_seg, e_class = entry_keys // classes.shape[0], entry_keys % classes.shape[0]
    width = weights.seg_start[e_seg + 1] - weights.seg_start[e_seg]
    ends = np.cumsum(width)
    per_entry = np.zeros(entry_keys.size * n_g, dtype=np.float64)
    lo = 0
    while lo < entry_keys.size:
        base = int(ends[lo - 1]) if lo else 0
        hi = max(lo + 1, int(np.searchsorted(ends, base + PAIRS_CHUNK, side="right")))
        entry = np.repeat(np.arange(lo, hi), width[lo:hi])
        f_vec = weights.seg_start[e_seg[entry]] + np.arange(entry.size) - (ends[entry] - width[entry] - base)
        u, codes = e_class[entry], f_codes[f_vec]
        cost = largest_count((plane[u, codes[:, j]] for plane in planes for j in range(codes.shape[1])),
                             (entry.size,), np.uint64(np.iinfo(np.uint64).max))
        per_entry += np.bincount(entry * n_g + weights.group[f_vec], weights=cost, minlength=per_entry.size)
        lo = hi
    place = ((tile[first] * n_pe + pe[first]) * n_g) * n_seg + seg[first]
    for g in range(n_g):
        busy += np.bincount(place + g * n_seg, weights=per_entry[entry_of.reshape(-1) * n_g + g],
                            minlength=busy.size)
    return busy.round().astype(np.int64).reshape(n_t, n_pe, n_g, n_seg)
