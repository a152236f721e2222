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
_NO_DRAWS = np.zeros(0, dtype=np.float32)     # the loop's draws argument when it reads none (never read)
_NO_HALVES = np.zeros(0, dtype=np.uint32)     # its halves argument when it reads none (never read)
_NO_VALUES = np.zeros(0, dtype=np.float32)    # its values argument without narrowing (never written)
_NO_LEVELS = np.zeros(0, dtype=np.float64)    # its levels argument when they are not kept (never written)
_FLOAT32, _UINT32 = np.dtype(np.float32), np.dtype(np.uint32)
NEAREST, DRAWS, HALVES = 0, 1, 2              # the loop's rounding: to nearest, floor(scaled + draw) from float32
# draws, or from the uint32 halves numpy makes its float32 draws of: (half >> 8) x 2^-24 (exact in float32)
HALF_SCALE = math.ldexp(1.0, -24)


def draws_of_halves(halves: np.ndarray) -> np.ndarray:
    """The float32 draws numpy makes of uint32 halves of its generator's outputs: ``(half >> 8) x 2^-24``."""
    draws = np.right_shift(halves, 8).astype(np.float32)
    return np.multiply(draws, np.float32(HALF_SCALE), out=draws)


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


def _rounding(noise: np.ndarray | None, halves: np.ndarray | None) -> tuple[int, np.ndarray, np.ndarray]:
    """The loop's rounding mode and its draws and halves arguments."""
    if halves is not None:
        return HALVES, _NO_DRAWS, np.ascontiguousarray(halves).reshape(-1)
    if noise is not None:
        return DRAWS, np.ascontiguousarray(noise).reshape(-1), _NO_HALVES
    return NEAREST, _NO_DRAWS, _NO_HALVES


def _kernel_case(x: np.ndarray, noise: np.ndarray | None, halves: np.ndarray | None) -> bool:
    """The compiled loop's inputs: a float32 or float64 tensor, float32 draws or uint32 halves of its size."""
    return (x.dtype in _KERNEL_DTYPES and (noise is None or (noise.dtype == _FLOAT32 and noise.size == x.size))
            and (halves is None or (halves.dtype == _UINT32 and halves.size == x.size)))


def observed_levels(x: np.ndarray, fraction_bits: int, accumulator_bits: int, noise: np.ndarray | None = None,
                    split_by_sign: bool = False, halves: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(levels, histogram)``: :func:`levels_from_noise` of ``x`` and the leading-bit histogram of the levels,
    ``(accumulator_bits,)`` or split by sign ``(2, accumulator_bits)``. ``halves`` (instead of ``noise``): the
    uint32 halves the draws are made of (:func:`draws_of_halves`)."""
    x = np.asarray(x)
    kernels = _compiled()
    if kernels is not None and _kernel_case(x, noise, halves):
        flat = np.ascontiguousarray(x).reshape(-1)
        levels = np.empty(flat.size, dtype=np.float64)
        counts = np.zeros(2 * accumulator_bits + 2, dtype=np.int64)
        mode, draws, raw = _rounding(noise, halves)
        if kernels["observe"](flat, math.ldexp(1.0, fraction_bits), math.ldexp(1.0, accumulator_bits - 1), mode,
                              draws, raw, split_by_sign, True, levels, False, 1.0, 1.0, _NO_VALUES, counts):
            return levels.reshape(x.shape), _histogram(counts, accumulator_bits, split_by_sign)
    if halves is not None:
        noise = draws_of_halves(np.asarray(halves)).reshape(np.shape(x))
    levels = levels_from_noise(x, fraction_bits, accumulator_bits, noise)
    return levels, histogram_numpy(levels.ravel(), accumulator_bits, split_by_sign)


def _histogram(counts: np.ndarray, accumulator_bits: int, split_by_sign: bool) -> np.ndarray:
    """The histogram in the loop's counts: ``(accumulator_bits,)``, or both signs' rows."""
    if split_by_sign:
        return counts[:2 * accumulator_bits].reshape(2, accumulator_bits)
    return counts[:accumulator_bits]


def observed_narrowed(x: np.ndarray, fraction_bits: int, accumulator_bits: int, bits: int,
                       noise: np.ndarray | None = None, split_by_sign: bool = False, halves: np.ndarray | None = None
                       ) -> tuple[np.ndarray, int, np.ndarray, int]:
    """``(histogram, top, values, saturated)``: :func:`observed_levels`'s histogram, its last non-empty bucket
    (both signs; -1 when it is empty) and :func:`narrowed_values` of the levels to a ``bits``-bit word, in one
    compiled pass with numba (the levels narrowed as they are made, and not kept: the same operations on each,
    so the same bits); else those functions themselves. Tests run both paths."""
    x = np.asarray(x)
    kernels = _compiled()
    if kernels is not None and _kernel_case(x, noise, halves):
        flat = np.ascontiguousarray(x).reshape(-1)
        values = np.empty(flat.size, dtype=np.float32)
        counts = np.zeros(2 * accumulator_bits + 2, dtype=np.int64)
        mode, draws, raw = _rounding(noise, halves)
        if kernels["observe"](flat, math.ldexp(1.0, fraction_bits), math.ldexp(1.0, accumulator_bits - 1), mode,
                              draws, raw, split_by_sign, False, _NO_LEVELS, True, math.ldexp(1.0, bits - 1),
                              math.ldexp(1.0, -fraction_bits), values, counts):
            return (_histogram(counts, accumulator_bits, split_by_sign), int(counts[-1]), values.reshape(x.shape),
                    int(counts[-2]))
    levels, histogram = observed_levels(x, fraction_bits, accumulator_bits, noise, split_by_sign, halves)
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


def observe_loop(x, scale, top, mode, draws, halves, split, keep_levels, levels, narrow, word_high, down, values,
                 counts):
    """The compiled loop of :func:`observed_levels` and :func:`observed_narrowed`; False (the caller redoes it in
    numpy) when ``x`` holds a NaN (the only way to a NaN level: the scale is finite, the draws in [0, 1),
    infinities saturate). ``mode``: :data:`NEAREST`, or ``floor(scaled + draw)`` with the draw ``draws[i]``
    (:data:`DRAWS`) or made of ``halves[i]`` (:data:`HALVES`: ``(half >> 8) x 2^-24``, exact, so the float32
    draw's value). A level's bucket is ``frexp``'s exponent of its magnitude form ``m`` (``-v - 1`` below zero),
    that is ``floor(log2(2 m + 1))`` (0 for ``m = 0``; ``floor(log2 m) + 1`` for an integer ``m >= 1``), read from
    the exponent field of ``2 v + 1`` (``+-(2 m + 1)``, exact, the level's sign in its sign bit) in a second
    loop (the first one then vectorises: 4x faster than one loop doing both; the bucket without a select). The NaN test is a flag, not an early exit, and the counts go to four interleaved
    copies of the histogram summed at the end (no two successive elements wait on the same counter): integer
    counts, the same histogram. ``keep_levels``: each
    level into ``levels``. With ``narrow``, each level is also narrowed as :func:`narrowed_values` narrows
    (saturated to ``+-word_high``, scaled by ``down``, rounded to float32) into ``values``. The saturations are
    ``min`` / ``max`` (2x faster than branches; the same values: no NaN reaches them but in a tensor the caller
    redoes, and no bound is a zero, so no signed-zero choice). ``counts`` (2 x width
    + 2, zeros) gets the histogram (non-negative levels' row, then the negative ones' when ``split``, else every
    level in the first row), then the saturated count and the last non-empty bucket (-1: none)."""
    low, high = -top - 1.0, top
    n = x.size
    width = (counts.size - 2) // 2
    magnitude = np.empty(n, dtype=np.float64)
    nan = False
    saturated = 0
    for i in range(n):
        v = np.float64(x[i])
        nan |= v != v
        v = min(max(v * scale, low), high)
        if mode == DRAWS:
            v = np.floor(v + np.float64(draws[i]))
        elif mode == HALVES:
            v = np.floor(v + np.float64(halves[i] >> 8) * HALF_SCALE)
        else:
            v = np.rint(v)
        v = min(max(v, -top), top - 1.0)
        if keep_levels:
            levels[i] = v
        magnitude[i] = 2.0 * v + 1.0   # the level's sign; 2 |level form| + 1 (exact: |v| <= 2^52)
        if narrow:
            w = min(max(v, -word_high), word_high - 1.0)
            saturated += w != v
            values[i] = np.float32(w * down)
    if nan:
        return False
    fields = magnitude.view(np.int64)
    copies = np.zeros((4, 2 * width), dtype=np.int64)   # [copy, sign * width + bucket]
    for i in range(n):
        bucket = ((fields[i] >> 52) & 0x7FF) - 1023
        if split:
            bucket += ((fields[i] >> 63) & 1) * width
        copies[i & 3, bucket] += 1
    last = -1
    for bucket in range(width):
        counts[bucket] = copies[0, bucket] + copies[1, bucket] + copies[2, bucket] + copies[3, bucket]
        total = counts[bucket]
        if split:
            b = width + bucket
            counts[b] = copies[0, b] + copies[1, b] + copies[2, b] + copies[3, b]
            total += counts[b]
        if total > 0:
            last = bucket
    counts[2 * width] = saturated
    counts[2 * width + 1] = last
    return True


@functools.cache
def _compiled() -> dict | None:
    """:func:`observe_loop` compiled by numba (:func:`compiled_loop`), or None without numba."""
    if compiled_loop(observe_loop) is None:
        return None
    return {"observe": compiled_loop(observe_loop)}
