"""Ternary weight networks (Li, Zhang & Liu, arXiv:1605.04711, 2016): ``delta = 0.7 E|W|``,
weights in ``{-alpha, 0, +alpha}`` with ``alpha`` the mean magnitude above delta, one delta and
alpha per layer (:func:`~accel_sim.foundations.compress.quantize_ternary`). The gradient reaches the
real weights straight through (Sec. 2.3)."""
from __future__ import annotations

import numpy as np

from accel_sim.foundations.compress.quantization.binary_ternary import quantize_ternary
from accel_sim.systems.nn.lowbit.quantizer import WeightQuantizer, straight_through


class TernaryWeights(WeightQuantizer):
    method = "twn"

    def forward(self, w: np.ndarray, train: bool = True) -> np.ndarray:
        return quantize_ternary(w, axis=None).dequantize().astype(w.dtype)

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return straight_through(grad)
