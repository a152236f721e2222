"""Scatter crossbar and accumulator bank conflicts, fast path (vectorised over steps).

One step of a PE multiplies an F-vector of weights by an I-vector of activations and sends
the F x I products through the crossbar to the A accumulator banks (paper, Fig. 6; Table 3:
A = 2 x F x I = 32). Products for different banks land in the same cycle, products for one
bank serialise, and the next step starts when the crossbar has delivered all of them: a step
takes as many cycles as its busiest bank receives products.

With the additive bank mappings of :mod:`accel_sim.scnn.plan.bank_mapping` a product's bank is
``(weight term + activation term) mod A``, so a step's load on bank ``b`` is
``sum_i count(activation terms == b - w_i)``. Two ways to count it:

- bit-sliced (A <= 32, :func:`max_bank_load`): each I-vector is an A-bit mask (one mask per
  multiplicity when two activations share a term) stored twice side by side in a uint64, so a
  rotation by a weight term is a shift; the F rotated masks are added with bit-sliced counters
  and the maximum over banks is read from the counter bits;
- counting (any A, :func:`max_bank_load_counting`): each I-vector is a vector of per-bank
  counts, gathered at the F rotations and added. Slower; it is what runs when A > 32, so any
  bank count a config can describe runs.
"""
from __future__ import annotations

import numpy as np

EMPTY_SHIFT = np.iinfo(np.uint64).max   # the rotation of an unused slot of a ragged F-vector: shifts a mask to 0
BIT_SLICED_MAX_BANKS = 32               # a doubled A-bit mask fills one uint64


def bit_sliced(banks: int) -> bool:
    return banks <= BIT_SLICED_MAX_BANKS


def activation_banks(vector: np.ndarray, slot: np.ndarray, term: np.ndarray, n: int, banks: int,
                     width: int) -> np.ndarray:
    """The bank terms of ``n`` I-vectors (element ``e`` is in vector ``vector[e]``, slot ``slot[e]``,
    bank term ``term[e]``), as the counting path needs them: bit-sliced, (planes, n) uint64 masks
    doubled (``m | m << A``), one plane per multiplicity of a term; else (n, width) terms with
    ``banks`` in unused slots."""
    if not bit_sliced(banks):
        terms = np.full((n, width), banks, dtype=np.int64)
        terms[vector, slot] = term
        return terms
    plane = np.zeros(vector.size, dtype=np.int64)
    for d in range(1, width):
        same = np.zeros(vector.size, dtype=bool)
        same[d:] = (vector[d:] == vector[:-d]) & (term[d:] == term[:-d])
        plane += same
    planes = int(plane.max()) + 1 if vector.size else 1
    bit = np.left_shift(np.uint64(1), term.astype(np.uint64))
    starts = np.searchsorted(vector, np.arange(n))
    masks = np.zeros((planes, n), dtype=np.uint64)
    for p in range(planes):
        if n:
            m = np.bitwise_or.reduceat(np.where(plane == p, bit, np.uint64(0)), starts)
            masks[p] = m | (m << np.uint64(banks))
    return masks


def step_cycles(acts: np.ndarray, rows: np.ndarray, rows_ok: np.ndarray, shifts: np.ndarray,
                banks: int) -> np.ndarray:
    """Cycles of every (I-vector, F-vector) step of B blocks: ``acts`` from :func:`activation_banks`,
    ``rows`` (B, n_i) the I-vectors of each block (``rows_ok`` False: padding, 0 cycles), ``shifts``
    (B, n_f, F) the F-vectors' rotations (``EMPTY_SHIFT``: padding). Returns (B, n_i, n_f)."""
    if bit_sliced(banks):
        return max_bank_load(np.where(rows_ok[None], acts[:, rows], np.uint64(0)), shifts, banks)
    return max_bank_load_counting(np.where(rows_ok[:, :, None], acts[rows], banks), shifts, banks)


def max_bank_load(masks: np.ndarray, shifts: np.ndarray, banks: int) -> np.ndarray:
    """Bit-sliced (A <= 32): the largest number of products on one bank in every step.

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
    bank_bits = np.uint64(np.iinfo(np.uint64).max) >> np.uint64(64 - banks)   # the A low bits
    shape = (masks.shape[1], masks.shape[2], shifts.shape[1])
    result = np.zeros(shape, dtype=np.int64)
    current = np.full(shape, bank_bits, dtype=np.uint64)
    for level in reversed(range(len(counters))):
        candidate = current & counters[level]
        hit = candidate != 0
        result += hit.astype(np.int64) << level
        current = np.where(hit, candidate, current)
    return result


def max_bank_load_counting(terms: np.ndarray, shifts: np.ndarray, banks: int) -> np.ndarray:
    """Any A: the largest number of products on one bank in every step.

    ``terms`` (B, n_i, I) activation bank terms (``banks``: unused slot); ``shifts`` (B, n_f, F).
    Returns (B, n_i, n_f).
    """
    blocks, n_i, _ = terms.shape
    rows = np.arange(blocks * n_i).reshape(blocks, n_i, 1) * (banks + 1)
    counts = np.bincount((rows + terms).ravel(), minlength=blocks * n_i * (banks + 1))
    counts = counts.reshape(blocks, n_i, banks + 1)[:, :, :banks]
    block_index = np.arange(blocks)[:, None, None, None]
    row_index = np.arange(n_i)[None, :, None, None]
    loads = np.zeros((blocks, n_i, shifts.shape[1], banks), dtype=np.int64)
    for i in range(shifts.shape[2]):
        used = shifts[:, :, i] != EMPTY_SHIFT                                     # (B, n_f)
        rotation = np.where(used, shifts[:, :, i], 0).astype(np.int64)
        bank = (np.arange(banks)[None, None, :] + rotation[:, :, None]) % banks   # (B, n_f, A)
        loads += counts[block_index, row_index, bank[:, None, :, :]] * used[:, None, :, None]
    return loads.max(axis=3, initial=0)


def weight_multiplicity(shift: np.ndarray) -> np.ndarray:
    """Per F-vector (row of ``shift``): the most weights sharing one bank term. With a single
    activation, a step puts exactly that many products on its busiest bank, whatever the activation."""
    best = np.ones(shift.shape[0], dtype=np.int64)
    for i in range(shift.shape[1]):
        same = ((shift == shift[:, i:i + 1]) & (shift != EMPTY_SHIFT)).sum(axis=1)
        best = np.maximum(best, same)
    return best
