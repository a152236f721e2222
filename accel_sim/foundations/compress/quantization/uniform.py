"""Uniform int-k quantization (symmetric / asymmetric, per tensor / per channel) and log2."""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from accel_sim.foundations.compress._checks import as_finite_array, check_axis, check_int
from accel_sim.foundations.compress.quantization.tensor import (
    QuantizedTensor,
    Rounding,
    check_rounding,
    clip_count,
    reduce_axes,
    round_to_integer,
)

MAX_BITS = 32  # widest integer code handled; levels are computed in int64
LOG_UNDERFLOW_MODES = ("clip", "zero")


def quantize_uniform(
    x: np.ndarray,
    *,
    bits: int,
    symmetric: bool = True,
    axis: int | None = None,
    rounding: Rounding = "nearest",
    seed: int | None = None,
    value_range: tuple[float, float] | None = None,
) -> QuantizedTensor:
    """Uniform quantization to ``bits``-bit integers.

    - symmetric: levels in ``[-2**(bits-1), 2**(bits-1) - 1]``, zero point 0,
      ``scale = max|x| / (2**(bits-1) - 1)``; needs ``bits >= 2``.
    - asymmetric: levels in ``[0, 2**bits - 1]``, the range widened to include 0 so that
      zero (a pruned weight, a ReLU zero) stays exactly representable,
      ``scale = (max - min) / (2**bits - 1)``, ``zero_point = round(-min / scale)``.

    Args:
        axis: None for one scale per tensor, or the channel axis for one scale per slice.
        rounding: "nearest" (error <= scale / 2 inside the range) or "stochastic" (needs ``seed``).
        value_range: (low, high) used instead of the data's range (a calibrated clip);
            values outside are saturated and counted.
    """
    x = as_finite_array(x, "x", nonempty=True)
    bits = check_int(bits, "bits", minimum=2 if symmetric else 1, maximum=MAX_BITS)
    axes = reduce_axes(x.ndim, None if axis is None else check_axis(axis, x.ndim))
    rng = check_rounding(rounding, seed)
    low, high = _range(x, axes, value_range)
    if symmetric:
        q_low, q_high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        largest = np.maximum(np.abs(low), np.abs(high))
        scale = np.where(largest > 0, largest / q_high, 1.0)
        zero_point = np.zeros_like(scale, dtype=np.int64)
    else:
        q_low, q_high = 0, (1 << bits) - 1
        low, high = np.minimum(low, 0.0), np.maximum(high, 0.0)
        scale = np.where(high > low, (high - low) / q_high, 1.0)
        zero_point = np.clip(np.rint(-low / scale), q_low, q_high).astype(np.int64)
    levels = round_to_integer(x / scale, rng) + zero_point
    values, saturated = clip_count(levels, q_low, q_high)
    scheme = "int_symmetric" if symmetric else "int_asymmetric"
    return QuantizedTensor(values, bits, scheme, scale.astype(np.float64), zero_point, saturated=saturated)


class LogExponents(NamedTuple):
    """What :func:`quantize_log2` derives from ``x`` before coding it."""
    nonzero: np.ndarray     # x != 0
    rounded: np.ndarray     # round(2**step_bits x log2|x|) of the non-zero elements, int64, before clipping
    low: int                # the smallest exponent of the range
    high: int               # the largest (max_exponent)
    count: int              # exponents in the range (n)
    powers: np.ndarray      # 2**(e / 2**step_bits) for e = low .. high, float64


def log2_exponents(x: np.ndarray, bits: int, step_bits: int, signed: bool, max_exponent: int | None) -> LogExponents:
    """:func:`quantize_log2`'s exponents of ``x`` (checked finite by the caller; ``bits`` and ``step_bits`` valid):
    the range ends at ``max_exponent`` (default: the rounded exponent of max|x|) and holds ``2**(bits-1) - 1``
    exponents when ``signed``, ``2**bits - 1`` when not (then ``x`` must be non-negative)."""
    magnitude = np.abs(x.astype(np.float64))
    nonzero = magnitude > 0
    largest = magnitude.max() if max_exponent is None and magnitude.size else None
    low, high, count, powers = log2_range(x, bits, step_bits, signed, max_exponent, largest)
    rounded = np.rint(np.log2(magnitude[nonzero]) * float(1 << step_bits)).astype(np.int64)
    return LogExponents(nonzero, rounded, low, high, count, powers)


def log2_range(x: np.ndarray, bits: int, step_bits: int, signed: bool, max_exponent: int | None,
               largest: np.float64 | None) -> tuple[int, int, int, np.ndarray]:
    """``(low, high, count, powers)`` of :func:`log2_exponents` (its checks included) without the exponents of
    every element: ``largest`` is max|x| as a float64 (None: ``x`` is empty or ``max_exponent`` given)."""
    if not signed and np.any(x < 0):
        raise ValueError("x must be non-negative when signed=False")
    count = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    steps_per_octave = float(1 << step_bits)
    if max_exponent is None:
        max_exponent = int(np.rint(np.log2(largest) * steps_per_octave)) if largest is not None and largest > 0 else 0
    high = check_int(max_exponent, "max_exponent", minimum=-(1 << 20))
    low = high - count + 1
    powers = np.exp2(np.arange(low, high + 1, dtype=np.float64) / steps_per_octave)
    return low, high, count, powers


def quantize_log2(
    x: np.ndarray,
    *,
    bits: int,
    max_exponent: int | None = None,
    exponent_fraction_bits: int = 0,
    signed: bool = True,
    underflow: str = "clip",
) -> QuantizedTensor:
    """Logarithmic quantization to signed powers of two (Miyashita et al. 2016, with a sign bit).

    ``x -> sign(x) x 2**(e / 2**exponent_fraction_bits)`` with the integer exponent
    ``e = clip(round(2**exponent_fraction_bits x log2|x|), max_exponent - n + 1, max_exponent)``:
    base 2 with ``exponent_fraction_bits=0``, base sqrt(2) with 1 (Miyashita et al.'s two bases).
    ``n = 2**(bits-1) - 1`` exponents when ``signed`` (one code of the sign-magnitude layout is
    zero), ``2**bits - 1`` when not (non-negative inputs, e.g. ReLU activations).
    Exact zeros stay zero; exponents rounded above the range are clipped and counted in
    ``saturated``; below it they are clipped to the smallest power (``underflow="clip"``) or
    flushed to zero (``underflow="zero"``, Miyashita et al.'s LogQuant), also counted.
    ``max_exponent`` (in units of the exponent step) defaults to the rounded exponent of max|x|.
    Codes: 0 is zero, ``1..n`` positive, ``n+1..2n`` negative powers, in the codebook.
    """
    x = as_finite_array(x, "x", nonempty=True)
    bits = check_int(bits, "bits", minimum=2 if signed else 1, maximum=MAX_BITS)
    step_bits = check_int(exponent_fraction_bits, "exponent_fraction_bits", minimum=0, maximum=8)
    if underflow not in LOG_UNDERFLOW_MODES:
        raise ValueError(f"underflow must be one of {LOG_UNDERFLOW_MODES}, got {underflow!r}")
    e = log2_exponents(x, bits, step_bits, signed, max_exponent)
    exponents, saturated = clip_count(e.rounded, e.low, e.high)
    codes = np.zeros(x.shape, dtype=np.int64)
    codes[e.nonzero] = 1 + exponents - e.low + np.where(x[e.nonzero] < 0, e.count, 0)
    if underflow == "zero":
        codes.reshape(-1)[np.flatnonzero(e.nonzero)[e.rounded < e.low]] = 0
    codebook = np.concatenate(([0.0], e.powers, -e.powers))
    return QuantizedTensor(
        codes, bits, "log2", np.ones(()), np.zeros((), dtype=np.int64), codebook=codebook, saturated=saturated
    )


def _range(
    x: np.ndarray, axes: tuple[int, ...] | None, value_range: tuple[float, float] | None
) -> tuple[np.ndarray, np.ndarray]:
    if value_range is None:
        data = x.astype(np.float64)
        return np.min(data, axis=axes, keepdims=True), np.max(data, axis=axes, keepdims=True)
    low, high = (float(v) for v in value_range)
    if not (math.isfinite(low) and math.isfinite(high) and low <= high):
        raise ValueError(f"value_range must be finite (low, high) with low <= high, got {value_range!r}")
    return np.full((1,) * x.ndim, low), np.full((1,) * x.ndim, high)
