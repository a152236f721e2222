"""Dynamic fixed point's statistics and point-update rules, as numerics (pure numpy).

What the statistics block of a Fujitsu-DLU-style processor computes (its timing and action
counts are the ``dlu`` family's; the training loop that uses these numerics is
:mod:`accel_sim.systems.nn.dynamic_fixed_point`). Hardware statistic (brief, Fujitsu patents): for every fixed-point result, the position of
the most significant bit that differs from the sign bit (leftmost 1 of a non-negative value,
leftmost 0 of a negative one); a counter per position accumulates a histogram. Results are
observed in the accumulator (``accumulator_bits`` wide, saturating) at the tensor's current
point position ``f`` (fraction bits), so values that will not fit the narrow word are still
seen. A result fits a ``bits``-bit word exactly when its position is ``<= bits - 2``.

Bucket ``i`` of a histogram counts position ``i - 1``: bucket 0 holds 0 and -1 (no bit
differs from the sign bit), the last bucket position ``accumulator_bits - 2``.

The rules read only the histogram (what software can read from the statistics store) and
return the next point position; moving the point by ``d`` bits moves every position by ``d``.

- overflow (Courbariaux et al. 2014): rate at the current point > ``max_overflow_rate``:
  one more integer bit; else if one integer bit less would overflow more than that: keep;
  else one integer bit less.
- max (Ristretto, Gysel et al. 2016, from the histogram): place the largest observed position
  at the top of the word, ``f' = f + (bits - 2 - p_max)``. Ristretto's ``ceil(log2 max|x|) + 1``
  is the same except for a maximum that is an exact power of two (one bit more range here).
- percentile: the largest ``f'`` such that at least ``percentile`` of the results fit.
"""
from __future__ import annotations

import bisect
import itertools
import math
from dataclasses import dataclass

import numpy as np

from accel_sim.foundations.compress.quantization.statistics_kernel import histogram_numpy, levels_from_noise

UPDATE_RULES = ("overflow", "max", "percentile")
MAX_FIXED_POINT_BITS = 52  # fixed-point words are held as exact float64 integers
MAX_EXACT_ACCUMULATOR_BITS = 53  # float64 holds every integer of a 53-bit accumulator exactly


def check_bits(bits: int) -> int:
    if isinstance(bits, bool) or not isinstance(bits, (int, np.integer)) or not 2 <= bits <= MAX_FIXED_POINT_BITS:
        raise ValueError(f"fixed-point bits must be an integer in 2 .. {MAX_FIXED_POINT_BITS}, got {bits!r}")
    return int(bits)


def check_rule(rule: str) -> str:
    if rule not in UPDATE_RULES:
        raise ValueError(f"unknown point update rule {rule!r}; expected one of {', '.join(UPDATE_RULES)}")
    return rule


@dataclass(frozen=True)
class PointRange:
    """Point positions (fraction bits) the settings register holds."""

    minimum: int
    maximum: int

    def __post_init__(self) -> None:
        if self.minimum > self.maximum:
            raise ValueError(f"point range minimum {self.minimum} > maximum {self.maximum}")

    def clamp(self, fraction_bits: int) -> int:
        return int(min(max(fraction_bits, self.minimum), self.maximum))

    def check(self, fraction_bits: int, what: str = "point position") -> int:
        if not self.minimum <= fraction_bits <= self.maximum:
            raise ValueError(f"{what} {fraction_bits} is outside the point register range "
                             f"{self.minimum} .. {self.maximum}")
        return int(fraction_bits)


def check_point_in_word(fraction_bits: int, bits: int) -> int:
    """A point given by the user must sit inside the word: 0 (integers) .. bits - 1 (all fraction bits
    but the sign)."""
    bits = check_bits(bits)
    if isinstance(fraction_bits, bool) or not isinstance(fraction_bits, (int, np.integer)) \
            or not 0 <= fraction_bits <= bits - 1:
        raise ValueError(f"point position {fraction_bits!r} is outside the {bits}-bit word "
                         f"(expected 0 .. {bits - 1})")
    return int(fraction_bits)


def check_accumulator_bits(accumulator_bits: int) -> int:
    if not 2 <= accumulator_bits <= MAX_EXACT_ACCUMULATOR_BITS:
        raise ValueError(f"accumulator_bits must be in 2 .. {MAX_EXACT_ACCUMULATOR_BITS}, got {accumulator_bits}")
    return accumulator_bits


def accumulator_levels(x: np.ndarray, fraction_bits: int, accumulator_bits: int,
                       rng: np.random.Generator | None = None) -> np.ndarray:
    """Results as the accumulator holds them at point ``fraction_bits``: rounded (nearest, or
    stochastic with ``rng``) integers saturated to the accumulator's range, as exact float64."""
    check_accumulator_bits(accumulator_bits)
    noise = None if rng is None else rng.random(np.shape(x), dtype=np.float32)
    return levels_from_noise(x, fraction_bits, accumulator_bits, noise)


def leading_bit_histogram(levels: np.ndarray, accumulator_bits: int, split_by_sign: bool = False) -> np.ndarray:
    """The statistics block's counters for ``levels`` (integers of an ``accumulator_bits`` word,
    as an integer array or exact float64).

    Shape ``(accumulator_bits,)``, or ``(2, accumulator_bits)`` split by sign (row 0 the
    non-negative results, row 1 the negative ones). Bucket ``p + 1`` counts position ``p``:
    ``frexp`` of the magnitude (``-v - 1`` for a negative ``v``, the bits that differ from the
    sign bit) gives ``p + 1`` directly, and 0 for 0 and -1.
    """
    levels = np.asarray(levels)
    if levels.dtype.kind not in "iuf":
        raise ValueError(f"levels must be numbers, got dtype {levels.dtype}")
    values = levels.astype(np.float64, copy=False).ravel()
    top = math.ldexp(1.0, accumulator_bits - 1)
    if values.size and (values.min() < -top or values.max() > top - 1 or not np.all(values == np.rint(values))):
        raise ValueError(f"levels must be integers of the {accumulator_bits}-bit accumulator")
    return histogram_of_levels(values, accumulator_bits, split_by_sign)


def histogram_of_levels(values: np.ndarray, accumulator_bits: int, split_by_sign: bool = False) -> np.ndarray:
    """:func:`leading_bit_histogram` without the input checks, for float64 levels that
    :func:`accumulator_levels` produced (the training loop's hot path)."""
    return histogram_numpy(values, accumulator_bits, split_by_sign)


def _positions_count(histogram: np.ndarray) -> np.ndarray:
    h = np.asarray(histogram, dtype=np.int64)
    return h.sum(axis=0) if h.ndim == 2 else h


def overflow_fraction(histogram: np.ndarray, bits: int, shift: int = 0) -> float:
    """Fraction of the histogram that would not fit ``bits`` bits with the point moved by
    ``shift`` more fraction bits."""
    return _overflow_share(_positions_count(histogram).tolist(), bits, shift)


def _overflow_share(counts: list[int], bits: int, shift: int = 0) -> float:
    """:func:`overflow_fraction` of a histogram's counts as Python integers (exact sums, the same float)."""
    total = sum(counts)
    if total == 0:
        return 0.0
    first_bad = bits - 2 - shift + 1 + 1  # bucket index of position bits - 1 - shift
    return float(sum(counts[max(first_bad, 0):])) / total


def next_point(histogram: np.ndarray, *, bits: int, fraction_bits: int, rule: str, point_range: PointRange,
               max_overflow_rate: float = 1e-4, percentile: float = 0.9999) -> int:
    """The point position for the next step, from a histogram observed at ``fraction_bits``. (The counts are
    read once as Python integers: a training run calls this for every tensor after every step.)"""
    return next_point_of_counts(_positions_count(histogram).tolist(), check_bits(bits), fraction_bits,
                                check_rule(rule), point_range, max_overflow_rate, percentile)


def next_point_of_counts(per_bucket: list[int], bits: int, fraction_bits: int, rule: str, point_range: PointRange,
                         max_overflow_rate: float, percentile: float) -> int:
    """:func:`next_point` of a histogram's counts (both signs summed) as Python integers, ``bits`` and ``rule``
    already checked (a training loop's unit checked its settings once). The percentile's search is
    ``np.searchsorted``'s on the running sums (exact integers; the same comparisons with the float bound)."""
    total = sum(per_bucket)
    if total == 0:
        return point_range.clamp(fraction_bits)
    if rule == "overflow":
        if _overflow_share(per_bucket, bits) > max_overflow_rate:
            new = fraction_bits - 1
        elif _overflow_share(per_bucket, bits, shift=1) > max_overflow_rate:
            new = fraction_bits
        else:
            new = fraction_bits + 1
    elif rule == "max":
        new = fraction_bits + _top_shift(per_bucket, bits)
    else:
        bucket = bisect.bisect_left(list(itertools.accumulate(per_bucket)), percentile * total - 1e-9)
        new = fraction_bits + (bits - 2 - (bucket - 1))
    return point_range.clamp(new)


def max_rule_shift(histogram: np.ndarray, bits: int) -> int:
    """Bits to move the point so the largest observed position sits at the top of the word."""
    counts = _positions_count(histogram)
    top_bucket = int(np.flatnonzero(counts)[-1])
    return bits - 2 - (top_bucket - 1)


def _top_shift(counts: list[int], bits: int) -> int:
    """:func:`max_rule_shift` of counts as Python integers, at least one of them non-zero."""
    top_bucket = max(bucket for bucket, count in enumerate(counts) if count)
    return bits - 2 - (top_bucket - 1)
