"""Power-of-two weights with zero, as incremental network quantization (INQ) defines them.

Zhou et al., "Incremental Network Quantization", ICLR 2017, Sec. 2.1: a layer's weights take
values in ``{0, +-2**n2, ..., +-2**n1}``; with ``b`` bits, one bit marks zero and the
remaining ``b - 1`` code ``2**(b-1)`` signed powers, i.e. ``2**(b-2)`` exponents
``n2 = n1 + 1 - 2**(b-2) .. n1``. ``n1 = floor(log2(4 s / 3))`` with ``s = max|W|`` of the
(pre-trained) layer. A weight becomes ``beta x sign(w)`` when ``(alpha + beta) / 2 <= |w| <
3 beta / 2`` for adjacent values ``alpha < beta`` of the set (arithmetic midpoints, unlike
:func:`~accel_sim.foundations.compress.quantization.uniform.quantize_log2`, which rounds the logarithm),
and 0 below ``2**n2 / 2``. Magnitudes above ``3 x 2**n1 / 2`` (only possible with a given
``max_exponent``) are clipped to ``2**n1`` and counted in ``saturated``.
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.foundations.compress._checks import as_finite_array, check_int
from accel_sim.foundations.compress.quantization.tensor import QuantizedTensor, clip_count

MAX_POWER_OF_TWO_BITS = 16


def inq_max_exponent(weights: np.ndarray) -> int:
    """INQ's ``n1 = floor(log2(4 s / 3))``, ``s = max|W|`` (0 for an all-zero tensor)."""
    weights = as_finite_array(weights, "weights", nonempty=True)
    largest = float(np.max(np.abs(weights.astype(np.float64))))
    return math.floor(math.log2(4.0 * largest / 3.0)) if largest > 0 else 0


def quantize_power_of_two(weights: np.ndarray, *, bits: int, max_exponent: int | None = None) -> QuantizedTensor:
    """INQ's ``bits``-bit power-of-two quantization; ``max_exponent`` is ``n1`` (default from the data).

    Codes: 0 is zero, ``1..n`` the positive powers ``2**n2 .. 2**n1``, ``n+1..2n`` the negative
    ones (``n = 2**(bits-2)``), in the codebook.
    """
    weights = as_finite_array(weights, "weights", nonempty=True)
    bits = check_int(bits, "bits", minimum=2, maximum=MAX_POWER_OF_TWO_BITS)
    n1 = inq_max_exponent(weights) if max_exponent is None else check_int(max_exponent, "max_exponent",
                                                                           minimum=-(1 << 20))
    n_exponents = 1 << (bits - 2)
    n2 = n1 + 1 - n_exponents
    magnitude = np.abs(weights.astype(np.float64))
    kept = magnitude >= math.ldexp(1.0, n2 - 1)
    exponents = np.floor(np.log2(np.where(kept, magnitude, 1.0) * (4.0 / 3.0))).astype(np.int64)
    exponents = np.maximum(exponents, n2)   # [2**n2 / 2, 3 x 2**n2 / 4) rounds up to 2**n2
    exponents, saturated = clip_count(np.where(kept, exponents, n2), n2, n1)
    codes = np.where(kept, 1 + exponents - n2 + np.where(weights < 0, n_exponents, 0), 0).astype(np.int64)
    powers = np.exp2(np.arange(n2, n1 + 1, dtype=np.float64))
    codebook = np.concatenate(([0.0], powers, -powers))
    return QuantizedTensor(codes, bits, "power_of_two", np.ones(()), np.zeros((), dtype=np.int64),
                           codebook=codebook, saturated=saturated)
