"""Ternary weight networks (Li, Zhang & Liu, arXiv:1605.04711, 2016): ``delta = 0.7 E|W|``,
weights in ``{-alpha, 0, +alpha}`` with ``alpha`` the mean magnitude above delta, one delta and
alpha per layer (:func:`~accel_sim.foundations.compress.quantize_ternary`). The gradient reaches the
real weights straight through (Sec. 2.3)."""
from __future__ import annotations

import numpy as np

from accel_sim.foundations.compress.quantization.binary_ternary import (
    TWN_THRESHOLD_FACTOR,
    quantize_ternary,
    ternary_scale,
)
from accel_sim.systems.nn.lowbit import quantizer_kernels
from accel_sim.systems.nn.lowbit.quantizer import WeightQuantizer, check_finite, straight_through


class TernaryWeights(WeightQuantizer):
    method = "twn"

    def forward(self, w: np.ndarray, train: bool = True) -> np.ndarray:
        """``quantize_ternary(w, axis=None).dequantize()`` in w's dtype; with numba its values ``+-alpha`` / 0
        come from :func:`.quantizer_kernels.ternary_values_loop` (the same float64 alpha, the same rounding)
        instead of the int64 codes times alpha."""
        kernels = quantizer_kernels.compiled()
        if kernels is None or not quantizer_kernels.flat(w) or w.size == 0 or w.ndim == 0:   # (its errors)
            return quantize_ternary(w, axis=None).dequantize().astype(w.dtype)
        kept, alpha = ternary_scale(check_finite(w), None, TWN_THRESHOLD_FACTOR)
        out = np.empty_like(w)
        kernels["ternary_values"](w.reshape(-1), kept.reshape(-1), float(alpha.reshape(-1)[0]), out.reshape(-1))
        return out

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return straight_through(grad)
