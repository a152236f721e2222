"""Logarithmic quantization (Miyashita, Lee & Murmann, arXiv:1603.01025, 2016), base 2 or sqrt(2).

Weights: signed powers of the base (sign bit + exponent), the largest exponent from the
layer's max|w| (:func:`~accel_sim.foundations.compress.quantize_log2`, ``exponent_fraction_bits`` 0 for
base 2, 1 for base sqrt 2). Activations (after ReLU): the paper's unsigned LogQuant with a
fixed full-scale range: ``2**bits - 1`` exponents ending at ``ACTIVATION_MAX_EXPONENT``, smaller
values flushed to zero. Gradients through the rounding are straight through.

Log-domain accumulation: with both operands powers of the base, every product is
``sign x base**(e_x + e_w)``, an exponent addition (a shift), and the dot product a sum of
shifted ones; :func:`log_domain_matmul` computes exactly that with integer arithmetic (for
base sqrt 2, odd exponent sums are collected apart and multiplied by sqrt 2 once). Training
runs the same products as a float matmul of the dequantized operands.
"""
from __future__ import annotations

import functools

import numpy as np

from accel_sim.foundations.compress.quantization.tensor import QuantizedTensor
from accel_sim.foundations.compress.quantization.uniform import log2_exponents, log2_range, quantize_log2
from accel_sim.systems.nn.lowbit import quantizer_kernels
from accel_sim.systems.nn.lowbit.quantizer import InputQuantizer, WeightQuantizer, check_finite, straight_through

LOG_BASES = {"2": 0, "sqrt2": 1}            # base -> exponent fraction bits
ACTIVATION_MAX_EXPONENT_LOG2 = 1            # activations up to 2**1 (batch-normalised ReLU outputs)
MAX_SHIFT_BITS = 62                         # an int64 accumulator holds shifts up to 2**62


def _fraction_bits(base: str) -> int:
    if base not in LOG_BASES:
        raise ValueError(f"unknown log base {base!r}; expected one of {', '.join(LOG_BASES)}")
    return LOG_BASES[base]


def log_values(x: np.ndarray, bits: int, step_bits: int, signed: bool, max_exponent: int | None = None) -> np.ndarray:
    """``quantize_log2(x, bits=bits, exponent_fraction_bits=step_bits, signed=signed, underflow="zero",
    max_exponent=max_exponent).dequantize()`` in x's dtype, computed as it computes it (the rounded exponents of
    the non-zero magnitudes in float64, clipped, the same table of powers, ``-power`` below zero, underflow and
    zeros ``+0.0``) without the int64 codes, their codebook gather over the whole tensor, the saturation count
    and the argument checks (``bits`` and ``step_bits`` are the quantizer's, checked when it is made). With numba,
    float32 ``x`` goes through :func:`.quantizer_kernels.log_loop` (the same exponents, from the bits, and table)."""
    check_finite(x, "x")
    kernels = quantizer_kernels.compiled()
    if kernels is not None and x.dtype == np.float32 and quantizer_kernels.flat(x):
        largest = np.float64(np.maximum.reduce(np.abs(x), None)) if max_exponent is None and x.size else None
        low, high, _, powers = log2_range(x, bits, step_bits, signed, max_exponent, largest)   # |x|, max: exact
        out, flat = np.empty_like(x), x.reshape(-1)
        kernels["log"](flat, flat.view(np.int32), 1 << step_bits, log_thresholds(step_bits), low, high, powers,
                       out.reshape(-1))
        return out
    e = log2_exponents(x, bits, step_bits, signed, max_exponent)
    values = e.powers[np.clip(e.rounded, e.low, e.high) - e.low]
    values = np.where(x[e.nonzero] < 0, -values, values)
    values[e.rounded < e.low] = 0.0
    out = np.zeros(x.shape, dtype=np.float64)
    out[e.nonzero] = values
    return out.astype(x.dtype)


@functools.cache
def log_thresholds(step_bits: int) -> np.ndarray:
    """Where the exponent of a mantissa in [1, 2) rounds up: ``2**((i + 1/2) / 2**step_bits)``, float64."""
    steps = 1 << step_bits
    return np.exp2((np.arange(steps) + 0.5) / steps)


class LogWeights(WeightQuantizer):
    method = "log"

    def __init__(self, bits: int, base: str = "2"):
        self.bits, self.step_bits = bits, _fraction_bits(base)

    def quantized(self, w: np.ndarray) -> QuantizedTensor:
        return quantize_log2(w, bits=self.bits, exponent_fraction_bits=self.step_bits, underflow="zero")

    def forward(self, w: np.ndarray, train: bool = True) -> np.ndarray:
        return log_values(w, self.bits, self.step_bits, signed=True)

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return straight_through(grad)


class LogActivations(InputQuantizer):
    method = "log"

    def __init__(self, bits: int, base: str = "2"):
        self.bits, self.step_bits = bits, _fraction_bits(base)

    def quantized(self, x: np.ndarray) -> QuantizedTensor:
        return quantize_log2(x, bits=self.bits, exponent_fraction_bits=self.step_bits, signed=False,
                             underflow="zero", max_exponent=ACTIVATION_MAX_EXPONENT_LOG2 << self.step_bits)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return log_values(x, self.bits, self.step_bits, signed=False,
                          max_exponent=ACTIVATION_MAX_EXPONENT_LOG2 << self.step_bits)

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return straight_through(grad)


def log_exponents(q: QuantizedTensor, exponent_fraction_bits: int) -> tuple[np.ndarray, np.ndarray]:
    """Sign (-1, 0, +1) and integer exponent (in steps of ``2**-exponent_fraction_bits`` octaves)
    of each element of a :func:`~accel_sim.foundations.compress.quantize_log2` tensor (exponent 0 where zero)."""
    values = q.codebook[q.values]
    magnitude = np.abs(values)
    steps = np.log2(np.where(magnitude > 0, magnitude, 1.0)) * (1 << exponent_fraction_bits)
    return np.sign(values).astype(np.int64), np.rint(steps).astype(np.int64)


def log_domain_matmul(x: QuantizedTensor, w: QuantizedTensor, exponent_fraction_bits: int = 0) -> np.ndarray:
    """``x @ w`` of two log-quantized matrices by exponent addition and integer shift-add.

    Each operand's exponents are split into whole octaves and a remainder of
    ``exponent_fraction_bits`` bits; per pair of remainders the products are integer shifts
    summed exactly in int64, scaled once by ``2**(remainders / 2**f)``.
    """
    f = exponent_fraction_bits
    sx, ex = log_exponents(x, f)
    sw, ew = log_exponents(w, f)
    low_x, low_w = int(ex.min()), int(ew.min())
    if (int(ex.max()) - low_x) + (int(ew.max()) - low_w) >> f > MAX_SHIFT_BITS - int(np.ceil(np.log2(x.shape[1] + 1))):
        raise ValueError("exponent range too wide for an exact int64 shift-add accumulator")
    total = np.zeros((x.shape[0], w.shape[1]))
    for rx in range(1 << f):
        for rw in range(1 << f):
            xi = np.where((ex - low_x) % (1 << f) == rx, sx << ((ex - low_x) >> f), 0)
            wi = np.where((ew - low_w) % (1 << f) == rw, sw << ((ew - low_w) >> f), 0)
            total += (xi @ wi).astype(np.float64) * 2.0 ** ((low_x + low_w + rx + rw) / (1 << f))
    return total
