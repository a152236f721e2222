"""Trained ternary quantization (Zhu, Han, Mao & Dally, ICLR 2017).

Weights ``W_p`` above ``delta = 0.05 max|w|``, ``-W_n`` below ``-delta``, 0 between
(:func:`~accel_sim.foundations.compress.quantize_ttq`); the two scales are learned per layer (Eq. 7):
``dL/dW_p = sum over the positive set of dL/dw_t``, ``dL/dW_n = -sum over the negative set``.
The real weights get the scaled gradient of Eq. 8: ``W_p dL/dw_t`` on the positive set,
``W_n dL/dw_t`` on the negative set, ``dL/dw_t`` in between. The scales start at the
mean magnitude of the weights above / below the threshold (quantize_ttq's default) and are
kept >= 0.
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.foundations.compress.quantization.binary_ternary import TTQ_THRESHOLD_FACTOR, quantize_ttq
from accel_sim.systems.nn.lowbit import quantizer_kernels
from accel_sim.systems.nn.lowbit.quantizer import WeightQuantizer

NEGATIVE_CODE, POSITIVE_CODE = 0, 2   # quantize_ttq's codebook [-W_n, 0, +W_p]


class TrainedTernaryWeights(WeightQuantizer):
    method = "ttq"

    def __init__(self) -> None:
        self.scales: np.ndarray | None = None      # [W_p, W_n]
        self._signs: tuple[np.ndarray, np.ndarray] | None = None    # (w > delta, w < -delta) of the last forward
        self._scale_gradients = np.zeros(2)

    def after_update(self, w: np.ndarray) -> np.ndarray:
        if self.scales is None:     # at initialisation
            q = quantize_ttq(w)
            self.scales = np.array([q.codebook[POSITIVE_CODE], -q.codebook[NEGATIVE_CODE]], dtype=np.float32)
        return w

    def forward(self, w: np.ndarray, train: bool = True) -> np.ndarray:
        """``quantize_ttq(w, positive_scale=W_p, negative_scale=W_n).dequantize()`` in w's dtype: the same
        threshold (0.05 max|w|, compared in float64) and values (``W_p``, ``-W_n``, 0: float32 scales, exact in
        either dtype), without the int64 codes, the codebook gather and the unused default scales' means."""
        assert self.scales is not None
        positive_scale, negative_scale = float(self.scales[0]), float(self.scales[1])
        for name, value in (("positive_scale", positive_scale), ("negative_scale", negative_scale)):
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        largest = float(np.maximum.reduce(np.abs(w), None))   # |w| and max are exact: float64's max|w|
        if not math.isfinite(largest):
            raise ValueError("weights must contain only finite values (found NaN or infinity)")
        delta = np.float64(TTQ_THRESHOLD_FACTOR * largest)
        kind = w.dtype.type
        kernels = quantizer_kernels.compiled()
        if kernels is not None and quantizer_kernels.flat(w):   # the lines below, compiled
            positive, negative = np.empty(w.shape, dtype=bool), np.empty(w.shape, dtype=bool)
            out = np.empty_like(w)
            kernels["ternary"](w.reshape(-1), delta, kind(positive_scale), kind(-negative_scale), kind(0.0),
                               positive.reshape(-1), negative.reshape(-1), out.reshape(-1))
            if train:
                self._signs = (positive, negative)
            return out
        positive, negative = w > delta, w < -delta
        if train:
            self._signs = (positive, negative)
        return np.where(positive, kind(positive_scale), np.where(negative, kind(-negative_scale), kind(0.0)))

    def backward(self, grad: np.ndarray) -> np.ndarray:
        assert self.scales is not None
        positive, negative = self._signs
        kernels = quantizer_kernels.compiled()
        if (kernels is not None and quantizer_kernels.flat(grad) and grad.shape == positive.shape
                and positive.flags.c_contiguous and negative.flags.c_contiguous):   # the lines below, compiled
            out = np.empty_like(grad)
            chosen = np.empty(grad.size, dtype=grad.dtype), np.empty(grad.size, dtype=grad.dtype)
            p, n = kernels["ternary_gradient"](grad.reshape(-1), positive.reshape(-1), negative.reshape(-1),
                                               self.scales[0], self.scales[1], out.reshape(-1), *chosen)
            # grad[positive] and grad[negative] in order, summed as numpy sums them
            self._scale_gradients = np.array([chosen[0][:p].sum(), -chosen[1][:n].sum()], dtype=np.float32)
            return out
        self._scale_gradients = np.array([grad[positive].sum(), -grad[negative].sum()], dtype=np.float32)
        return np.where(positive, self.scales[0] * grad, np.where(negative, self.scales[1] * grad, grad))

    def parameters(self) -> list[np.ndarray]:
        return [] if self.scales is None else [self.scales]

    def parameter_gradients(self) -> list[np.ndarray]:
        return [self._scale_gradients]

    def set_parameters(self, values: list[np.ndarray]) -> None:
        self.scales = np.maximum(values[0], 0.0).astype(np.float32)
