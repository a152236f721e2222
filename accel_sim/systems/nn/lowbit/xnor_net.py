"""XNOR-Net (Rastegari, Ordonez, Redmon & Farhadi, ECCV 2016).

Weights: ``W ~ alpha B`` with ``B = sign(W)`` and one ``alpha = mean|W|`` per filter (output
column), :func:`~accel_sim.foundations.compress.quantize_binary` with the filter axis. The gradient for
the real weights is the paper's Eq. 7 estimate ``dC/dW = dC/dW~ (1/n + alpha 1_{|W| <= 1})``
(n = fan-in).

Inputs: ``sign(I)`` and one scale ``beta`` per receptive field, the mean of ``|I|`` over it
(the paper's ``K = A * k``: channel-mean of |I| convolved with an averaging box filter;
for a fully connected layer one beta per sample). The layer multiplies each GEMM input row
by its beta (:meth:`.quantizer.InputQuantizer.row_scale`); beta is a constant for the
gradient, and sign's estimator is gated by the ``hardtanh`` activation before it.
"""
from __future__ import annotations

import numpy as np

from accel_sim.systems.nn.lowbit import quantizer_kernels
from accel_sim.systems.nn.lowbit.bnn import SignActivations
from accel_sim.systems.nn.lowbit.quantizer import WeightQuantizer

FILTER_AXIS = 1   # weight matrices are (fan_in, filters)


def filter_scales(w: np.ndarray) -> np.ndarray:
    """``quantize_binary(w, axis=FILTER_AXIS).scale``, each filter's mean |w| in float64 (np.mean's sum and
    in-place divide by the count: the same bits), and its dequantized values ``+-alpha`` are
    ``where(w >= 0, alpha, -alpha)``: without the int64 codes. Non-finite weights: its error."""
    magnitude = np.abs(w.astype(np.float64))
    total = np.add.reduce(magnitude, (0,), None, None, True)
    alpha = np.true_divide(total, np.intp(w.shape[0]), out=total, casting="unsafe")
    if not np.isfinite(alpha).all():   # a NaN or infinity anywhere in a filter reaches its sum
        raise ValueError("weights must contain only finite values (found NaN or infinity)")
    return alpha


class XnorWeights(WeightQuantizer):
    method = "xnor-net"

    def __init__(self) -> None:
        self._gate: np.ndarray | None = None

    def forward(self, w: np.ndarray, train: bool = True) -> np.ndarray:
        alpha = filter_scales(w)
        kernels = quantizer_kernels.compiled()
        if kernels is not None and w.ndim == 2 and quantizer_kernels.flat(w):   # the lines below, compiled
            values = np.empty_like(w)
            gate = np.empty_like(w) if train else values    # (not written without train)
            kernels["xnor"](w, alpha.reshape(-1), 1.0 / w.shape[0], train, values, gate)
            if train:
                self._gate = gate
            return values
        if train:
            n = w.shape[0]
            self._gate = (1.0 / n + alpha * (np.abs(w) <= 1.0)).astype(w.dtype)
        return np.where(w >= 0, alpha, -alpha).astype(w.dtype)

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return grad * self._gate


class XnorInputs(SignActivations):
    method = "xnor-net"
    scales_rows = True

    def row_scale(self, patches_abs: np.ndarray) -> np.ndarray | None:
        return patches_abs.mean(axis=1)
