"""Binarized neural networks (Hubara, Courbariaux, Soudry, El-Yaniv & Bengio, NeurIPS 2016):
BinaryConnect's deterministic binary weights (:class:`.binary_connect.BinaryConnectWeights`)
and binary activations ``sign(x)`` (sign(0) = +1) on every layer input after the first.

The straight-through estimator of sign is gated to ``|x| <= 1``: the ``hardtanh`` activation
before the quantizer (:mod:`.activations`) carries that gate, so the quantizer itself passes
the gradient straight through. The optional shift-based batch norm (Sec. 3.3, powers of two
instead of the scale multiplications) is a switch of :class:`.layers.BatchNorm`.
"""
from __future__ import annotations

import numpy as np

from accel_sim.systems.nn.lowbit import quantizer_kernels
from accel_sim.systems.nn.lowbit.quantizer import InputQuantizer, straight_through


def binarize(x: np.ndarray) -> np.ndarray:
    """sign(x) with sign(0) = +1, in x's dtype (with numba, :func:`.quantizer_kernels.sign_loop`)."""
    kernels = quantizer_kernels.compiled()
    if kernels is not None and quantizer_kernels.flat(x):
        out = np.empty_like(x)
        kernels["sign"](x.reshape(-1), x.dtype.type(1.0), out.reshape(-1))
        return out
    return np.where(x >= 0, 1.0, -1.0).astype(x.dtype)


class SignActivations(InputQuantizer):
    method = "bnn"

    def forward(self, x: np.ndarray) -> np.ndarray:
        return binarize(x)

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return straight_through(grad)
