"""FIFO scatter network, fast path: the packed loop's tables (:func:`.scatter_fifo_kernel.packed_kernel`).

The packed loop sums, per (segment, group), the bank counts of every distinct I-vector *combination* of the
segment against each F-vector once: the counts of combination ``c``'s products with weight ``w`` are the
``WORDS`` words (8-bit lanes, one per bank) of ``table`` at ``c_base[c] + w_key[w]``.

- an additive bank mapping (:func:`additive_rows`): a combination is a (pattern, first term) of
  :func:`~.scatter_fifo_kernel.pattern_table`, a weight's key its bank term (a rotation);
- DNNsim's XOR hash with banked out-of-plane products and aligned strides (:func:`xor_rows`,
  :func:`.bank_codes.class_codes`): a product's bank is a function of its activation's code
  ``(qy mod 4, qx mod 4)`` and its weight's code ``(k mod 8, tap_y mod 4, tap_x mod 4)``
  (:mod:`.bank_codes`), so a combination is an I-vector's multiset of codes (its class) and a weight's key
  its code;
- ``out_of_plane: slot_only`` with an additive mapping and aligned strides: the additive rows, but the
  I-vectors near the plane's edges (:func:`edge_vectors`) are counted product by product in the loop, each
  a combination of its own (:func:`edge_combinations`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from accel_sim.models.scnn.fast.bank_codes import WEIGHT_CODES, _bank_table, i_classes, weight_codes
from accel_sim.models.scnn.fast.products import near_edge
from accel_sim.models.scnn.fast.scatter_fifo_kernel import WORDS, block_combos, pattern_table
from accel_sim.models.scnn.plan import Plan


@dataclass(frozen=True)
class PackedRows:
    """Arguments of :func:`~.scatter_fifo_kernel.packed_kernel` (names as there)."""

    i_local: np.ndarray   # (I-vectors,) combination of each, numbered within its segment
    c_start: np.ndarray   # (segments + 1,) first combination of each segment
    c_base: np.ndarray    # (combinations,) word offset of its rows in ``table``
    table: np.ndarray     # uint64 words of 8-bit lanes
    w_key: np.ndarray     # (weights,) word offset of the weight's row


def i_combinations(i_elem: np.ndarray, a_term: np.ndarray, i_segment: np.ndarray, n_seg: int,
                   banks: int) -> PackedRows:
    """The activations' half of :func:`additive_rows` (``w_key`` empty), the same for any weights: I-vector ``v``
    holds activations ``i_elem[v]:i_elem[v + 1]`` of bank terms ``a_term`` and lies in segment ``i_segment[v]``."""
    pattern, first, table = pattern_table(i_elem, a_term, banks)
    c_start, c_pattern, c_first, i_local = block_combos(pattern, first, i_segment, n_seg, banks)
    return PackedRows(i_local, c_start, (c_pattern * 2 * banks + c_first) * WORDS, table, np.zeros(0, dtype=np.int64))


def additive_rows(combinations: PackedRows, w_term: np.ndarray) -> PackedRows:
    """Rows of an additive bank mapping: the I-vectors' :func:`i_combinations`, weights of bank terms ``w_term``."""
    return dataclasses.replace(combinations, w_key=w_term * WORDS)


def xor_rows(plan: Plan, i_elem: np.ndarray, a_pos: np.ndarray, i_segment: np.ndarray, n_seg: int,
             w_pos: np.ndarray) -> PackedRows:
    """Rows of DNNsim's XOR hash: activations' output-grid ``a_pos`` (qy, qx), weights' ``w_pos`` (tap_y,
    tap_x, layer filter k); the other names as :func:`additive_rows`."""
    spec = plan.spec
    banks = spec.accumulator_banks
    sizes = np.diff(i_elem)
    vector = np.repeat(np.arange(sizes.size), sizes)
    classes, i_class = i_classes(vector, np.arange(vector.size) - i_elem[vector], a_pos[:, 0], a_pos[:, 1],
                                 sizes.size, spec.mult_i)
    bank = _bank_table(plan)[:, :WEIGHT_CODES]   # (ACT_CODES + 1, WEIGHT_CODES), -1 for an empty slot
    counts = np.zeros((classes.shape[0], WEIGHT_CODES, 8 * WORDS), dtype=np.uint8)
    for j in range(spec.mult_i):
        b = bank[classes[:, j]]                                    # (classes, WEIGHT_CODES)
        cls, code = np.nonzero(b >= 0)
        np.add.at(counts, (cls, code, b[cls, code]), 1)
    c_start, c_class, _, i_local = block_combos(i_class, np.zeros_like(i_class), i_segment, n_seg, banks)
    w_code = weight_codes(w_pos[:, 2], w_pos[:, 0], w_pos[:, 1])
    return PackedRows(i_local, c_start, c_class * WEIGHT_CODES * WORDS, counts.view("<u8").reshape(-1), w_code * WORDS)


def edge_combinations(rows: PackedRows, near: np.ndarray, i_segment: np.ndarray, n_seg: int) -> tuple:
    """The I-vectors ``near`` the plane's edges as combinations of their own (the packed loop counts their
    products one by one): (``i_local`` with each such vector of segment ``s`` numbered after the segment's
    combinations, in the order of the vectors, ``e_start`` (``n_seg + 1``,), ``e_vec``: those vectors by segment)."""
    e_vec = np.flatnonzero(near)
    e_vec = e_vec[np.argsort(i_segment[e_vec], kind="stable")]
    e_start = np.searchsorted(i_segment[e_vec], np.arange(n_seg + 1))
    if e_vec.size == 0:
        return rows.i_local, e_start, e_vec
    i_local = rows.i_local.copy()
    seg = i_segment[e_vec]
    i_local[e_vec] = np.diff(rows.c_start)[seg] + np.arange(e_vec.size) - e_start[seg]
    return i_local, e_start, e_vec


def edge_vectors(plan: Plan, i_elem: np.ndarray, a_pos: np.ndarray, w_pos: np.ndarray) -> np.ndarray:
    """Per I-vector: whether one of its products with some weight may leave the output plane (an activation's
    output-grid row or column within the weights' tap range of an edge; :func:`.products.near_edge`
    test), so that ``out_of_plane: slot_only`` may drop it from its bank. The packed loop counts those
    vectors' steps product by product."""
    return np.logical_or.reduceat(near_edge(plan.view, a_pos[:, 0], a_pos[:, 1], w_pos[:, 0], w_pos[:, 1]),
                                  i_elem[:-1])
