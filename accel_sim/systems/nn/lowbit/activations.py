"""The non-linearity between a layer's batch norm and the next layer's input quantizer.

``relu`` (full precision, BinaryConnect, TWN, TTQ, INQ, log), ``hardtanh`` = clip to [-1, 1]
(BNN, XNOR-Net: its derivative ``1_{|x| <= 1}`` is the gated straight-through estimator of
sign, Hubara et al. 2016 Sec. 1.3), ``clip01`` = clip to [0, 1] (DoReFa's activation before
k-bit quantization, Zhou et al. 2016 Sec. 2.3).
"""
from __future__ import annotations

import numpy as np

from accel_sim.systems.nn.lowbit.layers import ParameterFree

try:   # the ufunc np.clip calls after its argument handling (~5 us a call); the same loop, the same values
    from numpy._core.umath import clip as _clip
except ImportError:  # pragma: no cover - numpy < 2
    _clip = np.clip

ACTIVATIONS = ("relu", "hardtanh", "clip01")
_BOUNDS = {"relu": (0.0, np.inf), "hardtanh": (-1.0, 1.0), "clip01": (0.0, 1.0)}


class Activation(ParameterFree):
    def __init__(self, kind: str):
        if kind not in _BOUNDS:
            raise ValueError(f"unknown activation {kind!r}; expected one of {', '.join(ACTIVATIONS)}")
        self.kind = kind
        self.low, self.high = _BOUNDS[kind]
        self._inside: np.ndarray | None = None

    def forward(self, x: np.ndarray, train: bool = True) -> np.ndarray:
        if train:   # x <= inf is x >= low's own test against NaN: one comparison for relu
            self._inside = (x >= self.low) if self.high == np.inf else (x >= self.low) & (x <= self.high)
        return _clip(x, self.low, self.high)

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return grad * self._inside
