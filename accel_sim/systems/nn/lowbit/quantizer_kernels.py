"""The low-bit quantizers' element-wise selections compiled by numba: ``np.where`` and boolean indexing on a random
mask branch on every element (about 110 us on a 300 x 100 weight matrix, where a compiled loop takes 3 to 6 us).

Each loop computes what the numpy lines of its quantizer compute, element by element, with the same operations
in the same dtypes (constants arrive typed as the numpy lines' scalars become), so the same bits; a selection is
a selection. The quantizers keep their numpy lines for machines without numba and for arrays the loops do not
take (:func:`flat`); tests compare both paths, and the lean forms with the compress quantizers.
"""
from __future__ import annotations

import functools

import numpy as np

from accel_sim.foundations.compiled import compiled_loop

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def flat(*arrays: np.ndarray) -> bool:
    """The loops' case: C-ordered float32 / float64 arrays (read and written as flat views)."""
    return all(type(a) is np.ndarray and a.dtype in _FLOATS and a.flags.c_contiguous for a in arrays)


def sign_loop(x, one, out):
    """``np.where(x >= 0, one, -one)`` (a NaN is not >= 0)."""
    for i in range(x.size):
        out[i] = one if x[i] >= 0 else -one


def stochastic_sign_loop(w, draws, one, two, out):
    """``np.where(draws < clip((w + one) / two, 0, 1), one, -one)``: BinaryConnect's hard sigmoid in w's dtype
    (a NaN stays NaN through the clip and is never above a draw)."""
    zero = one - one
    for i in range(w.size):
        p = np.divide(w[i] + one, two)
        if p < zero:
            p = zero
        elif p > one:
            p = one
        out[i] = one if draws[i] < p else -one


def xnor_loop(w, alpha, inverse_fan_in, train, values, gate):
    """XNOR-Net's weights ``where(w >= 0, alpha, -alpha)`` and, with ``train``, the gate
    ``1 / n + alpha (|w| <= 1)`` of its gradient, both from float64 (``alpha``: one per column) rounded to w's
    dtype."""
    rows, columns = w.shape
    for i in range(rows):
        for j in range(columns):
            a = alpha[j]
            v = w[i, j]
            values[i, j] = a if v >= 0 else -a
            if train:
                gate[i, j] = inverse_fan_in + a * (1.0 if abs(v) <= 1.0 else 0.0)


def ternary_loop(w, delta, positive_value, negative_value, zero, positive, negative, out):
    """TTQ's ``w > delta`` / ``w < -delta`` (compared in float64) and
    ``where(positive, positive_value, where(negative, negative_value, zero))``."""
    low = -delta
    for i in range(w.size):
        v = np.float64(w[i])
        p = v > delta
        n = v < low
        positive[i] = p
        negative[i] = n
        out[i] = positive_value if p else (negative_value if n else zero)


def ternary_values_loop(w, kept, alpha, out):
    """TWN's dequantized values ``sign(w) kept alpha``: ``+-alpha`` where kept (a kept weight is not 0), ``+0.0``
    elsewhere, from float64 rounded to out's dtype."""
    for i in range(w.size):
        value = 0.0
        if kept[i]:
            value = alpha if w[i] > 0 else -alpha
        out[i] = value


def ternary_gradient_loop(grad, positive, negative, positive_scale, negative_scale, out, positive_grads,
                          negative_grads):
    """TTQ's ``where(positive, W_p grad, where(negative, W_n grad, grad))``, and ``grad[positive]`` /
    ``grad[negative]`` (in order) into the two buffers; returns their lengths."""
    for i in range(grad.size):    # a select (vectorised), then always-written buffers: no branch on the signs
        g = grad[i]
        out[i] = positive_scale * g if positive[i] else (negative_scale * g if negative[i] else g)
    p_count, n_count = 0, 0
    for i in range(grad.size):
        g = grad[i]
        positive_grads[p_count] = g
        negative_grads[n_count] = g
        p_count += np.int64(positive[i])
        n_count += np.int64(negative[i])
    return p_count, n_count


def unit_levels_loop(r, scale, top, out):
    """DoReFa's ``quantize_k``: ``rint(r / scale)`` in float64, clipped to ``[0, top]``, ``+ 0.0`` (a ``-0.0``
    level made ``+0.0``), times ``scale``, rounded to out's dtype."""
    for i in range(r.size):
        level = np.rint(np.divide(np.float64(r[i]), scale))
        level = 0.0 if level < 0.0 else (top if level > top else level)
        out[i] = (level + 0.0) * scale


def select_loop(mask, chosen, other, out):
    """``np.where(mask, chosen, other)`` of three arrays of one dtype."""
    for i in range(out.size):
        out[i] = chosen[i] if mask[i] else other[i]


def log_loop(x, fields, steps, thresholds, low, high, powers, out):
    """Log quantization's values of float32 ``x``: ``+-powers[clip(e, low, high) - low]`` with the exponent
    ``e = rint(log2|x| steps)``, ``+0.0`` below ``low`` and for zeros (rounded to float32).

    A normal ``|x| = f 2**E`` (``f`` in [1, 2), read from the bits ``fields``) has ``e = steps E + j``, ``j`` the
    number of ``thresholds`` ``2**((i + 1/2) / steps)`` below ``f``: ``rint`` of ``steps log2 f`` counts the
    half-integers below it, and no float32 ``f`` lies within float64 rounding of such a threshold (irrational;
    tests check every boundary's float32 neighbours against numpy's ``rint(log2)``). Subnormals take ``log2``."""
    for i in range(x.size):    # selects rather than branches where the data decides (sign, zero, underflow)
        v = x[i]
        bits = fields[i]
        field = (bits >> 23) & 0xFF
        f = 1.0 + np.float64(bits & 0x7FFFFF) * 1.1920928955078125e-07    # 2**-23: exact
        e = steps * np.int64(field - 127)
        for j in range(thresholds.size):
            e += np.int64(f > thresholds[j])
        e = low - 1 if field == 0 else e    # a zero (ReLU's half of the activations): below the range, +0.0
        if 0 < (bits & 0x7FFFFFFF) < 0x800000:    # a subnormal (rare: a branch)
            e = np.int64(np.rint(np.log2(abs(np.float64(v))) * steps))
        value = powers[min(max(e, low), high) - low]
        value = -value if v < 0 else value
        out[i] = value if e >= low else 0.0


@functools.cache
def compiled() -> dict | None:
    """The loops compiled by numba (:func:`compiled_loop`), or None without numba."""
    if compiled_loop(sign_loop) is None:
        return None
    loops = (sign_loop, stochastic_sign_loop, xnor_loop, ternary_loop, ternary_values_loop, ternary_gradient_loop,
             unit_levels_loop, select_loop, log_loop)
    return {loop.__name__[:-len("_loop")]: compiled_loop(loop) for loop in loops}
