"""BinaryConnect (Courbariaux, Bengio & David, NeurIPS 2015): weights binarised to +-1 in the
forward and backward passes, real-valued weights accumulate the updates and are clipped to
[-1, 1] after each step (Sec. 2.4).

Deterministic: ``w_b = sign(w)`` (sign(0) = +1, :func:`~accel_sim.foundations.compress.quantize_binary`'s
values). Stochastic: ``w_b = +1`` with probability ``hard_sigmoid(w) = clip((w + 1) / 2, 0, 1)``,
drawn from the layer's seeded generator each forward pass. Inference follows the paper
(Sec. 2.6): the binary weights for the deterministic form, the real-valued weights for the
stochastic form (their expectation; such a network is not binary at test time). The
gradient reaches the real weights straight through (:func:`.quantizer.straight_through`).

The stochastic form starts its real weights uniform over the clip range [-1, 1] (the authors'
code draws Glorot-uniform weights over its clip range [-H, H]): ``E[w_b] = w``, so weights
started near 0 (He initialisation) would make every binary weight a fair coin, and the
network does not train on the digits (measured: chance accuracy with every layer binary). The
deterministic form keeps the He initialisation (its sign does not depend on the scale).
"""
from __future__ import annotations

import numpy as np

from accel_sim.systems.nn.lowbit import quantizer_kernels
from accel_sim.systems.nn.lowbit.quantizer import WeightQuantizer, check_finite, straight_through

try:   # the ufunc np.clip calls after its argument handling; the same loop, the same values
    from numpy._core.umath import clip as _clip
except ImportError:  # pragma: no cover - numpy < 2
    _clip = np.clip

WEIGHT_CLIP = 1.0  # real-valued weights clipped to [-1, 1] (Courbariaux et al. 2015, Sec. 2.4)


def hard_sigmoid(w: np.ndarray) -> np.ndarray:
    return _clip((w + 1.0) / 2.0, 0.0, 1.0)


def signs(w: np.ndarray) -> np.ndarray:
    """``quantize_binary(w).values`` (sign(0) = +1, its finiteness check) in w's dtype, without the int64 codes
    and the scale the binary weights do not use (with numba, :func:`.quantizer_kernels.sign_loop`)."""
    one = w.dtype.type(1.0)
    check_finite(w)
    kernels = quantizer_kernels.compiled()
    if kernels is not None and quantizer_kernels.flat(w):
        out = np.empty_like(w)
        kernels["sign"](w.reshape(-1), one, out.reshape(-1))
        return out
    return np.where(w >= 0, one, -one)


class BinaryConnectWeights(WeightQuantizer):
    method = "binaryconnect"

    def __init__(self, stochastic: bool = False, rng: np.random.Generator | None = None):
        if stochastic and rng is None:
            raise ValueError("stochastic binarization needs a seeded generator")
        self.stochastic, self.rng = stochastic, rng

    def initial(self, w: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if not self.stochastic:
            return w
        return rng.uniform(-WEIGHT_CLIP, WEIGHT_CLIP, w.shape).astype(w.dtype)

    def forward(self, w: np.ndarray, train: bool = True) -> np.ndarray:
        if self.stochastic and not train:
            return w
        if self.stochastic:
            assert self.rng is not None
            one = w.dtype.type(1.0)
            draws = self.rng.random(w.shape, dtype=np.float32)
            kernels = quantizer_kernels.compiled()
            if kernels is not None and quantizer_kernels.flat(w):
                out = np.empty_like(w)
                kernels["stochastic_sign"](w.reshape(-1), draws.reshape(-1), one, w.dtype.type(2.0), out.reshape(-1))
                return out
            return np.where(draws < hard_sigmoid(w), one, -one)
        return signs(w)

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return straight_through(grad)

    def after_update(self, w: np.ndarray) -> np.ndarray:
        return np.clip(w, -WEIGHT_CLIP, WEIGHT_CLIP)
