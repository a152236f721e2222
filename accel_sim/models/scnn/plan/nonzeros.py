"""Non-zeros of a layer's operands, found once per layer in the layout the arrays are stored in,
and the stable orderings the encoders and the fast path sort them by (numpy only, no model).

A fully connected layer's weights are the workload's ``(k, n)`` matrix seen as ``(n, k)``: a
transposed view. ``np.nonzero`` on it walks memory against its layout (about twice as slow as on
the stored order), so :func:`weight_nonzeros` scans the stored order, which lists the non-zeros
channel by channel. Every reader of the coordinates sorts them stably by a key that starts with the
channel, and inside one channel both orders list the weights in ``(k, r, s)`` order: the sorted
result is the same. :func:`stable_order` is ``np.argsort(keys, kind="stable")`` for small
non-negative integer keys, done as a radix sort on 16-bit digits (numpy radix-sorts 16-bit types,
and sorts wider integers by comparisons), and no sort at all when the keys are already sorted.
"""
from __future__ import annotations

import numpy as np

DIGIT_BITS = 16   # numpy's stable sort is a radix sort for integer types of at most 16 bits
PIECE = 1 << 20   # non-zeros per numpy pass of the per-weight encoders (bounds their temporaries)
COPIED_MASK = 1 << 24   # weight masks up to this size are scanned channel-major through a copy (16 MiB)


def stable_order(keys: np.ndarray, bound: int) -> np.ndarray | slice:
    """``np.argsort(keys, kind="stable")`` of non-negative integer ``keys`` below ``bound``, as an
    index for ``array[order]``: ``slice(None)`` (a view, no copy) when the keys are already sorted."""
    if keys.size < 2 or bool((keys[1:] >= keys[:-1]).all()):
        return slice(None)
    if bound <= 1 << DIGIT_BITS:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    if bound <= 1 << (2 * DIGIT_BITS):
        order = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
        return order[np.argsort((keys[order] >> DIGIT_BITS).astype(np.uint16), kind="stable")]
    return np.argsort(keys, kind="stable")


def coordinates(array: np.ndarray) -> tuple[np.ndarray, ...]:
    """``np.nonzero(array)`` (the same int64 arrays, C order), from ``np.flatnonzero`` and divisions:
    numpy's multi-dimensional ``nonzero`` unravels every index in its inner loop, about ten times
    slower than the flat scan on a 64 x 224 x 224 plane."""
    flat = np.flatnonzero(array)
    if array.ndim == 1:
        return (flat,)
    found = []
    for size in reversed(array.shape[1:]):
        flat, index = np.divmod(flat, size)
        found.append(index)
    found.append(flat)
    return tuple(reversed(found))


def weight_nonzeros(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(k, c, r, s) of the non-zeros of one conv group's ``(Kg, Cg, R, S)`` weights (or mask): in
    (c, k, r, s) order (channel-major: the readers' stable sorts by channel then find them sorted),
    or ``np.nonzero``'s (k, c, r, s) order for a C-contiguous mask of more than
    :data:`COPIED_MASK` entries (channel-major would copy it); either way (k, r, s) order inside
    each channel. A 1 x 1 kernel's r and s are read-only zeros that take no memory (an FC layer
    has millions of weights)."""
    swapped = mask.transpose(1, 0, 2, 3)
    channel_major = swapped.flags.c_contiguous or not mask.flags.c_contiguous or mask.size <= COPIED_MASK
    if mask.shape[2:] != (1, 1):
        if not channel_major:
            return coordinates(mask)
        c, k, r, s = coordinates(swapped)
        return k, c, r, s
    if channel_major:
        c, k = coordinates(swapped[:, :, 0, 0])
    else:
        k, c = coordinates(mask[:, :, 0, 0])
    zeros = np.broadcast_to(np.intp(0), k.shape)
    return k, c, zeros, zeros


def sorted_pieces(keys: np.ndarray, piece: int = PIECE) -> list[slice]:
    """Slices of about ``piece`` entries, each ending where ``keys`` changes, when ``keys`` is ascending
    (an FC layer's weights, listed channel by channel; F-vectors sorted by segment); else one slice
    of all. A per-key computation done piece by piece then sees every key's entries together."""
    if keys.size <= piece or not bool((keys[1:] >= keys[:-1]).all()):
        return [slice(None)]
    cuts = np.unique(np.searchsorted(keys, keys[::piece])).tolist() + [keys.size]
    return [slice(lo, hi) for lo, hi in zip(cuts[:-1], cuts[1:])]


def run_bounds(keys: np.ndarray, n: int) -> np.ndarray:
    """Where each key ``0 .. n - 1`` begins among non-negative ``keys`` once sorted, and the end
    (``np.searchsorted(np.sort(keys), np.arange(n + 1))``), by counting: ``keys`` need not be sorted."""
    return np.concatenate(([0], np.cumsum(np.bincount(keys, minlength=n))))


def unique_inverse(keys: np.ndarray, bound: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` of non-negative integer keys below ``bound`` (default:
    the largest key + 1): by :func:`stable_order` (radix passes, no comparison sort) when the bound
    is at most 2^32."""
    if bound is None:
        bound = int(keys.max()) + 1 if keys.size else 0
    if bound > 1 << (2 * DIGIT_BITS):
        distinct, inverse = np.unique(keys, return_inverse=True)
        return distinct, inverse.reshape(-1)
    order = stable_order(keys, bound)
    ordered = keys[order]
    new = np.empty(ordered.size, dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    inverse = np.empty(keys.size, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse
