"""The dynamic fixed-point training loop's hot path in one pass per tensor: accumulator levels and their
leading-bit histogram (:func:`observed_levels`), with the levels narrowed to the word as they are made
(:func:`observed_narrowed`; :func:`narrowed_values` is the numpy narrowing).

Each is what :func:`~.leading_bit_statistics.accumulator_levels` then
:func:`~.leading_bit_statistics.histogram_of_levels`, or ``np.clip`` and a power-of-two scale, compute in
several numpy passes; with numba, one compiled loop over the elements (the same IEEE operations on each
element, so the same bits: a power-of-two scale, comparisons, ``rint`` / ``floor``, one rounding to float32;
``frexp``'s exponent read from the float64's exponent field). Without numba, or for a tensor holding NaN or of
another dtype, the numpy passes themselves. Tests run both paths on the same tensors.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from accel_sim.foundations.compiled import compiled_loop
from accel_sim.foundations.compress.quantization.fixed_point import leading_bit_buckets

_KERNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_NO_DRAWS = np.zeros(0, dtype=np.float32)     # the loop's noise argument without stochastic rounding (never read)
_NO_VALUES = np.zeros(0, dtype=np.float32)    # its values argument without narrowing (never written)


def _no_results() -> np.ndarray:
    return np.zeros(2, dtype=np.int64)


def levels_from_noise(x: np.ndarray, fraction_bits: int, accumulator_bits: int,
                      noise: np.ndarray | None) -> np.ndarray:
    """Accumulator levels in numpy: rounded to nearest, or ``floor(scaled + noise)`` (stochastic rounding with
    the uniform draws ``noise``), saturated to the accumulator, as exact float64."""
    top = math.ldexp(1.0, accumulator_bits - 1)
    scaled = np.clip(np.asarray(x, dtype=np.float64) * math.ldexp(1.0, fraction_bits), -top - 1, top)
    levels = np.rint(scaled) if noise is None else np.floor(scaled + noise)
    return np.clip(levels, -top, top - 1, out=levels)


def histogram_numpy(values: np.ndarray, accumulator_bits: int, split_by_sign: bool = False) -> np.ndarray:
    """The leading-bit histogram of float64 levels in numpy (``histogram_of_levels``)."""
    buckets = leading_bit_buckets(values)
    if not split_by_sign:
        return np.bincount(buckets, minlength=accumulator_bits).astype(np.int64)
    negative = values < 0
    return np.stack([np.bincount(buckets[~negative], minlength=accumulator_bits),
                     np.bincount(buckets[negative], minlength=accumulator_bits)]).astype(np.int64)


def observed_levels(x: np.ndarray, fraction_bits: int, accumulator_bits: int, noise: np.ndarray | None = None,
                    split_by_sign: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(levels, histogram)``: :func:`levels_from_noise` of ``x`` and the leading-bit histogram of the levels,
    ``(accumulator_bits,)`` or split by sign ``(2, accumulator_bits)``."""
    x = np.asarray(x)
    kernels = _compiled()
    if kernels is not None and x.dtype in _KERNEL_DTYPES and (noise is None or noise.dtype == np.float32):
        flat = np.ascontiguousarray(x).reshape(-1)
        levels = np.empty(flat.size, dtype=np.float64)
        histogram = np.zeros((2 if split_by_sign else 1, accumulator_bits), dtype=np.int64)
        draws = _NO_DRAWS if noise is None else np.ascontiguousarray(noise).reshape(-1)
        if kernels["observe"](flat, math.ldexp(1.0, fraction_bits), math.ldexp(1.0, accumulator_bits - 1), draws,
                              noise is not None, split_by_sign, levels, histogram, False, 1.0, 1.0, _NO_VALUES,
                              _no_results()):
            return levels.reshape(x.shape), histogram if split_by_sign else histogram[0]
    levels = levels_from_noise(x, fraction_bits, accumulator_bits, noise)
    return levels, histogram_numpy(levels.ravel(), accumulator_bits, split_by_sign)


def observed_narrowed(x: np.ndarray, fraction_bits: int, accumulator_bits: int, bits: int,
                       noise: np.ndarray | None = None, split_by_sign: bool = False
                       ) -> tuple[np.ndarray, int, np.ndarray, int]:
    """``(histogram, top, values, saturated)``: :func:`observed_levels`'s histogram, its last non-empty bucket
    (both signs; -1 when it is empty) and :func:`narrowed_values` of the levels to a ``bits``-bit word, in one
    compiled pass with numba (the levels narrowed as they are made: the same operations on each, so the same
    bits); else those functions themselves. Tests run both paths."""
    x = np.asarray(x)
    kernels = _compiled()
    if kernels is not None and x.dtype in _KERNEL_DTYPES and (noise is None or noise.dtype == np.float32):
        flat = np.ascontiguousarray(x).reshape(-1)
        levels = np.empty(flat.size, dtype=np.float64)
        values = np.empty(flat.size, dtype=np.float32)
        histogram = np.zeros((2 if split_by_sign else 1, accumulator_bits), dtype=np.int64)
        results = np.zeros(2, dtype=np.int64)
        draws = _NO_DRAWS if noise is None else np.ascontiguousarray(noise).reshape(-1)
        if kernels["observe"](flat, math.ldexp(1.0, fraction_bits), math.ldexp(1.0, accumulator_bits - 1), draws,
                              noise is not None, split_by_sign, levels, histogram, True, math.ldexp(1.0, bits - 1),
                              math.ldexp(1.0, -fraction_bits), values, results):
            return (histogram if split_by_sign else histogram[0], int(results[1]), values.reshape(x.shape),
                    int(results[0]))
    levels, histogram = observed_levels(x, fraction_bits, accumulator_bits, noise, split_by_sign)
    values, saturated = narrowed_values(levels, bits, fraction_bits)
    counts = histogram.sum(axis=0) if histogram.ndim == 2 else histogram
    filled = np.flatnonzero(counts)
    return histogram, int(filled[-1]) if filled.size else -1, values, saturated


def narrowed_values(levels: np.ndarray, bits: int, fraction_bits: int) -> tuple[np.ndarray, int]:
    """``(values, saturated)``: float64 ``levels`` saturated to a ``bits``-bit word, scaled by 2^-fraction_bits,
    as float32; and how many levels the word saturated. numpy passes: the compiled narrowing is inside
    :func:`observe_loop` (:func:`observed_narrowed`), and this serves its fallback."""
    high = math.ldexp(1.0, bits - 1)
    narrowed = np.clip(levels, -high, high - 1)
    return (narrowed * math.ldexp(1.0, -fraction_bits)).astype(np.float32), int(np.count_nonzero(narrowed != levels))


def observe_loop(x, scale, top, noise, stochastic, split, levels, histogram, narrow, word_high, down, values,
                 results):
    """The compiled loop of :func:`observed_levels`; False (the caller redoes it in numpy) when ``x`` holds a
    NaN (the only way to a NaN level: the scale is finite, the draws in [0, 1), infinities saturate). A level's
    bucket is ``frexp``'s exponent of its magnitude form, read from the float64's exponent field (an integer
    magnitude is 0 or at least 1: field 0, or ``exponent + 1022``). The NaN test is a flag, not an early exit,
    and the counts go to four interleaved copies of the histogram summed at the end (no two successive
    elements wait on the same counter): integer counts, the same histogram. With ``narrow``, each level is also
    narrowed as :func:`narrowed_values` narrows (saturated to ``+-word_high``, scaled by ``down``, rounded to float32)
    into ``values``; ``results`` gets the saturated count and the last non-empty bucket (-1: none)."""
    low, high = -top - 1.0, top
    n = x.size
    magnitude = np.empty(n, dtype=np.float64)
    nan = False
    saturated = 0
    for i in range(n):
        v = np.float64(x[i])
        nan |= v != v
        v *= scale
        if v < low:
            v = low
        elif v > high:
            v = high
        if stochastic:
            v = np.floor(v + np.float64(noise[i]))
        else:
            v = np.rint(v)
        if v < -top:
            v = -top
        elif v > top - 1.0:
            v = top - 1.0
        levels[i] = v
        magnitude[i] = -v - 1.0 if v < 0 else v
        if narrow:
            w = v
            if w < -word_high:
                w = -word_high
            elif w > word_high - 1.0:
                w = word_high - 1.0
            if w != v:
                saturated += 1
            values[i] = np.float32(w * down)
    if nan:
        return False
    fields = magnitude.view(np.int64)
    width = histogram.shape[1]
    counts = np.zeros((4, 2 * width), dtype=np.int64)   # [copy, sign * width + bucket]
    for i in range(n):
        exponent = (fields[i] >> 52) & 0x7FF
        bucket = exponent - 1022 if exponent else 0
        if split and levels[i] < 0:
            bucket += width
        counts[i & 3, bucket] += 1
    for bucket in range(width):
        histogram[0, bucket] += counts[0, bucket] + counts[1, bucket] + counts[2, bucket] + counts[3, bucket]
        if split:
            b = width + bucket
            histogram[1, bucket] += counts[0, b] + counts[1, b] + counts[2, b] + counts[3, b]
    last = -1
    for bucket in range(width):
        if histogram[0, bucket] + (histogram[1, bucket] if split else 0) > 0:
            last = bucket
    results[0] = saturated
    results[1] = last
    return True


@functools.cache
def _compiled() -> dict | None:
    """:func:`observe_loop` compiled by numba (:func:`compiled_loop`), or None without numba."""
    if compiled_loop(observe_loop) is None:
        return None
    return {"observe": compiled_loop(observe_loop)}
