"""The one interface every low-bit training method implements, and the identity (full precision).

A layer holds three quantizers (each a small stateful object, one per layer):

- a :class:`WeightQuantizer` on the layer's real-valued weight matrix ``(fan_in, outputs)``
  (column = filter): ``forward`` gives the weights the GEMM uses, ``backward`` the
  straight-through estimate of the loss gradient for the real weights, ``after_update``
  what the method does to the real weights after an optimiser step (clip, restore frozen
  values), ``parameters`` / ``parameter_gradients`` the method's own learned values (TTQ's
  scales);
- an :class:`InputQuantizer` on the layer's input (element-wise), with an optional per-row
  scale of the GEMM's input matrix (XNOR-Net's beta, one per receptive field);
- a :class:`GradientQuantizer` on the gradient that reaches the layer's output (DoReFa).

The straight-through estimator (Bengio et al. 2013; Hubara et al. 2016) is what ``backward``
implements: the derivative of the rounding step is taken as 1 (the gating to ``|x| <= 1``
lives in the activation function before the quantizer, :mod:`.activations`).
"""
from __future__ import annotations

import numpy as np


class WeightQuantizer:
    """Full precision: the weights as they are, gradients straight through."""

    method = "fp32"

    def initial(self, w: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The real-valued weights to start from, given the layer's He initialisation ``w``."""
        return w

    def forward(self, w: np.ndarray, train: bool = True) -> np.ndarray:
        return w

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return grad

    def after_update(self, w: np.ndarray) -> np.ndarray:
        return w

    def parameters(self) -> list[np.ndarray]:
        return []

    def parameter_gradients(self) -> list[np.ndarray]:
        return []

    def set_parameters(self, values: list[np.ndarray]) -> None:
        return None


class InputQuantizer:
    """Full precision input: unchanged, gradients straight through, no row scale."""

    method = "fp32"
    scales_rows = False   # True: row_scale returns a scale (the layer then computes |input| per row for it)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return x

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return grad

    def row_scale(self, patches_abs: np.ndarray) -> np.ndarray | None:
        """A scale per row of the GEMM input (rows = receptive fields), from ``|input|``; None: 1."""
        return None


class GradientQuantizer:
    """Full-precision gradients."""

    def forward(self, grad: np.ndarray) -> np.ndarray:
        return grad


def check_finite(x: np.ndarray, name: str = "weights") -> np.ndarray:
    """``x`` after the compress quantizers' finiteness check (their error), for the lean forms of them here."""
    if not np.isfinite(x).all():
        raise ValueError(f"{name} must contain only finite values (found NaN or infinity)")
    return x


def straight_through(grad: np.ndarray) -> np.ndarray:
    """The straight-through estimator: d round(x) / dx taken as 1."""
    return grad
