"""Dynamic fixed point (Fujitsu DLU style): per-tensor decimal point, saturation counts,
and the statistics and rules that move the point between steps.

A b-bit fixed-point number with f fraction bits represents
``clip(round(x * 2**f), -2**(b-1), 2**(b-1) - 1) / 2**f``. The integer length
``il = b - f`` counts the sign bit. Published rules for choosing it per tensor:

- max rule (Ristretto, Gysel et al. 2016): ``il = ceil(log2(max|x|)) + 1``. A maximum
  that is an exact power of two then saturates by one LSB (counted in ``saturated``).
- overflow-rate rule (Courbariaux et al. 2014): :func:`update_integer_length`.

The same rules read from the statistics hardware's leading-bit histogram instead of the data
(the point update of a DLU-style processor): :mod:`.leading_bit_statistics`.
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.foundations.compress._checks import as_finite_array, check_int
from accel_sim.foundations.compress.quantization.tensor import (
    QuantizedTensor,
    Rounding,
    check_rounding,
    clip_count,
    round_to_integer,
)
from accel_sim.foundations.compress.quantization.uniform import MAX_BITS

COURBARIAUX_MAX_OVERFLOW_RATE = 1e-4  # 0.01 % (Courbariaux, Bengio & David 2014)
_EXACT_FLOAT_INTEGERS = 1 << 53  # integers below this are exact in float64
_MAX_POINT_SHIFT = int(np.finfo(np.float64).maxexp) - 1  # largest |f| for which 2**f is a finite float64


def quantize_fixed_point(
    x: np.ndarray, *, bits: int, fraction_bits: int, rounding: Rounding = "nearest", seed: int | None = None
) -> QuantizedTensor:
    """Fixed point with ``fraction_bits`` fraction bits (may be negative or exceed ``bits``).

    Values are the signed integers ``round(x * 2**f)``; ``scale = 2**-f``; elements
    clipped to the ``bits``-bit range are counted in ``saturated``.
    """
    x = as_finite_array(x, "x", nonempty=True)
    bits = check_int(bits, "bits", minimum=2, maximum=MAX_BITS)
    fraction_bits = check_int(fraction_bits, "fraction_bits", minimum=-_MAX_POINT_SHIFT, maximum=_MAX_POINT_SHIFT)
    rng = check_rounding(rounding, seed)
    levels = round_to_integer(x.astype(np.float64) * math.ldexp(1.0, fraction_bits), rng)
    values, saturated = clip_count(levels, -(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    scale = np.array(math.ldexp(1.0, -fraction_bits))
    return QuantizedTensor(values, bits, "fixed_point", scale, np.zeros((), dtype=np.int64), saturated=saturated)


def max_rule_integer_length(x: np.ndarray) -> int:
    """Ristretto's integer length ``ceil(log2(max|x|)) + 1`` (sign bit included); 1 for all zeros."""
    x = as_finite_array(x, "x", nonempty=True)
    largest = float(np.max(np.abs(x.astype(np.float64))))
    return math.ceil(math.log2(largest)) + 1 if largest > 0 else 1


def quantize_dynamic_fixed_point(
    x: np.ndarray, *, bits: int, rounding: Rounding = "nearest", seed: int | None = None
) -> QuantizedTensor:
    """Fixed point whose decimal point is chosen for this tensor by the max rule."""
    return quantize_fixed_point(
        x, bits=bits, fraction_bits=bits - max_rule_integer_length(x), rounding=rounding, seed=seed
    )


def overflow_rate(x: np.ndarray, *, bits: int, integer_length: int) -> float:
    """Fraction of elements that saturate at ``integer_length`` (round to nearest)."""
    x = as_finite_array(x, "x", nonempty=True)
    bits = check_int(bits, "bits", minimum=2, maximum=MAX_BITS)
    integer_length = check_int(integer_length, "integer_length", minimum=bits - _MAX_POINT_SHIFT)
    quantized = quantize_fixed_point(x, bits=bits, fraction_bits=bits - integer_length)
    return quantized.saturated / x.size


def update_integer_length(
    x: np.ndarray, *, bits: int, integer_length: int, max_overflow_rate: float = COURBARIAUX_MAX_OVERFLOW_RATE
) -> int:
    """One step of Courbariaux et al.'s overflow-rate rule for the next iteration's integer length.

    If more than ``max_overflow_rate`` of ``x`` overflows at ``integer_length``, add a
    bit; else if one bit less would overflow more than that, keep it; else remove a bit.
    """
    rate = float(max_overflow_rate)
    if not math.isfinite(rate) or not 0 <= rate <= 1:
        raise ValueError(f"max_overflow_rate must be in [0, 1], got {max_overflow_rate!r}")
    if overflow_rate(x, bits=bits, integer_length=integer_length) > rate:
        return integer_length + 1
    if overflow_rate(x, bits=bits, integer_length=integer_length - 1) > rate:
        return integer_length
    return integer_length - 1


def leading_bit_positions(levels: np.ndarray) -> np.ndarray:
    """Position of the most significant bit that differs from the sign bit, per integer.

    The DLU's hardware statistic: the leftmost 1 of a non-negative value, the leftmost 0 of
    a negative one (two's complement); -1 for 0 and -1, which have no such bit. A histogram
    is ``np.bincount(positions + 1)`` (bucket 0 holds the -1s).
    """
    levels = np.asarray(levels)
    if levels.dtype.kind not in "iu":
        raise ValueError(f"levels must be an integer array, got dtype {levels.dtype}")
    magnitude = np.where(levels < 0, -(levels.astype(np.int64)) - 1, levels).astype(np.int64)
    if magnitude.size and int(magnitude.max()) >= _EXACT_FLOAT_INTEGERS:
        raise ValueError("levels must be below 2**53 in magnitude")
    return (leading_bit_buckets(levels.astype(np.float64)) - 1).astype(np.int64)


def leading_bit_buckets(values: np.ndarray) -> np.ndarray:
    """``position + 1`` of :func:`leading_bit_positions` for integers held as exact float64, 0 for
    0 and -1: ``frexp``'s exponent of ``v`` (non-negative) or ``-v - 1`` (negative), the bits
    that differ from the sign bit. The statistics hardware's histogram bucket, unchecked (the
    training loop's hot path)."""
    _, exponent = np.frexp(np.where(values < 0, -values - 1, values))
    return exponent
