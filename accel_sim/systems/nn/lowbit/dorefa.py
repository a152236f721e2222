"""DoReFa-Net (Zhou, Wu, Ni, Zhou, Wen & Zou, arXiv:1606.06160, 2016): k-bit weights,
activations and gradients.

``quantize_k(r) = round((2**k - 1) r) / (2**k - 1)`` on [0, 1] is
:func:`~accel_sim.foundations.compress.quantize_uniform` (unsigned, range [0, 1]); its gradient is
straight through.

- weights (Eq. 9): ``k = 1``: ``sign(w) E|w|`` (one scale per layer); ``k > 1``:
  ``2 quantize_k(tanh(w) / (2 max|tanh(w)|) + 1/2) - 1``, whose gradient is the chain rule of
  the tanh normalisation (max taken as a constant);
- activations (Eq. 10): ``quantize_k`` of the clipped activation (``clip01``, :mod:`.activations`);
- gradients (Eq. 12): ``2 m (quantize_k(dr / (2 m) + 1/2 + N(k)) - 1/2)`` with ``m`` the
  largest magnitude per sample and uniform noise ``N(k) = sigma / (2**k - 1)``,
  ``sigma ~ U(-1/2, 1/2)`` drawn from the layer's seeded generator; applied to the gradient
  that reaches each quantized layer's output.

``bits = 32`` means the tensor stays in float32 (the paper's notation W32 / A32 / G32).
"""
from __future__ import annotations

import numpy as np

from accel_sim.foundations.compress.quantization.binary_ternary import quantize_binary
from accel_sim.foundations.compress.quantization.uniform import MAX_BITS, quantize_uniform
from accel_sim.systems.nn.lowbit import quantizer_kernels
from accel_sim.systems.nn.lowbit.quantizer import (
    GradientQuantizer,
    InputQuantizer,
    WeightQuantizer,
    check_finite,
    straight_through,
)

try:   # the ufunc np.clip calls after its argument handling; the same loop, the same values
    from numpy._core.umath import clip as _clip
except ImportError:  # pragma: no cover - numpy < 2
    _clip = np.clip

FULL_PRECISION_BITS = 32
UNIT_RANGE = (0.0, 1.0)


def quantize_k(r: np.ndarray, bits: int) -> np.ndarray:
    """DoReFa's quantize_k of values in [0, 1] (values outside are clipped), in r's dtype.

    ``quantize_uniform(r, bits=bits, symmetric=False, value_range=UNIT_RANGE).dequantize()``, computed as it
    computes it (levels ``rint(r / scale)`` in float64, ``scale = 1 / (2**bits - 1)``, clipped to
    ``[0, 2**bits - 1]``, times the scale) without the int64 levels (whole numbers, exact in float64: a
    ``-0.0`` level, which the int64 round trip makes ``+0.0``, made ``+0.0`` by adding 0), the count of
    saturated values and its argument checks (other widths: quantize_uniform itself, and its error). Levels
    beyond int64 (|r| > 9e18 / scale) saturate here where the int64 cast would wrap."""
    if isinstance(bits, bool) or not isinstance(bits, (int, np.integer)) or not 1 <= bits <= MAX_BITS:
        return quantize_uniform(r, bits=bits, symmetric=False, value_range=UNIT_RANGE).dequantize().astype(r.dtype)
    top = (1 << bits) - 1
    scale = np.float64((UNIT_RANGE[1] - UNIT_RANGE[0]) / top)
    kernels = quantizer_kernels.compiled()
    if kernels is not None and quantizer_kernels.flat(r):   # the lines below in one compiled pass (finite r)
        out = np.empty_like(check_finite(r, "x"))
        kernels["unit_levels"](r.reshape(-1), scale, float(top), out.reshape(-1))
        return out
    levels = np.divide(check_finite(r, "x"), scale)        # r's dtype promoted by the float64 scale, as the array
    _clip(np.rint(levels, out=levels), 0.0, float(top), out=levels)
    np.add(levels, 0.0, out=levels)
    return np.multiply(levels, scale, out=levels).astype(r.dtype)


class DorefaWeights(WeightQuantizer):
    method = "dorefa"

    def __init__(self, bits: int):
        self.bits = bits
        self._chain: np.ndarray | None = None

    def forward(self, w: np.ndarray, train: bool = True) -> np.ndarray:
        if self.bits >= FULL_PRECISION_BITS:
            return w
        if self.bits == 1:
            return quantize_binary(w, axis=None).dequantize().astype(w.dtype)
        t = np.tanh(w)
        largest = max(float(np.max(np.abs(t))), np.finfo(np.float32).tiny)
        if train:
            self._chain = ((1.0 - t * t) / largest).astype(w.dtype)
        return (2.0 * quantize_k(t / (2.0 * largest) + 0.5, self.bits) - 1.0).astype(w.dtype)

    def backward(self, grad: np.ndarray) -> np.ndarray:
        if self.bits >= FULL_PRECISION_BITS or self.bits == 1:
            return straight_through(grad)
        return grad * self._chain


class DorefaActivations(InputQuantizer):
    method = "dorefa"

    def __init__(self, bits: int):
        self.bits = bits

    def forward(self, x: np.ndarray) -> np.ndarray:
        return x if self.bits >= FULL_PRECISION_BITS else quantize_k(x, self.bits)

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return straight_through(grad)


class DorefaGradients(GradientQuantizer):
    def __init__(self, bits: int, rng: np.random.Generator):
        self.bits, self.rng = bits, rng

    def forward(self, grad: np.ndarray) -> np.ndarray:
        if self.bits >= FULL_PRECISION_BITS:
            return grad
        sample_axes = tuple(range(1, grad.ndim))
        largest = np.max(np.abs(grad), axis=sample_axes, keepdims=True)
        largest = np.where(largest > 0, largest, 1.0)
        noise = (self.rng.random(grad.shape, dtype=np.float32) - 0.5) / ((1 << self.bits) - 1)
        unit = grad / (2.0 * largest) + 0.5 + noise
        return (2.0 * largest * (quantize_k(unit, self.bits) - 0.5)).astype(grad.dtype)
