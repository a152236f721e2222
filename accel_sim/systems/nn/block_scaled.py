"""Inference of a network with block-scaled operands: every GEMM's weights and inputs quantized along K.

A :class:`Scheme` is one point of the precision x block-size plane: FP16 (IEEE half), the DLU's
per-tensor dynamic fixed point (8 bits, Ristretto's max rule; ``quantize_dynamic_fixed_point``), or a
shared power-of-two / E4M3 scale per group of K (``quantize_mx`` / ``quantize_nvfp4``: per channel =
one scale over all of K, or per 32 / per 16 elements). A reduction whose length is not a whole number
of blocks is padded with zeros to the next block (as microsoft/microxcaling's ``_reshape_to_blocks``
does); the padding is not stored (:func:`fake_quantize`'s bits count the tensor's own elements, its scales
and any tensor scale).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.foundations.compress.quantization import quantize_dynamic_fixed_point
from accel_sim.foundations.compress.quantization.microscaling import quantize_mx, quantize_nvfp4
from accel_sim.systems.nn.mlp import MLP

FP16_BITS = 16
DFP_BITS = 8
DFP_POINT_BITS = 8      # the per-tensor decimal point, one small integer per tensor


@dataclass(frozen=True)
class Scheme:
    """``kind``: ``fp16``, ``dfp`` (per-tensor fixed point), ``mx`` (E8M0 scales) or ``nvfp4``;
    ``element``: the element format of ``mx``; ``block``: elements of K per scale, 0 = all of K."""

    name: str
    kind: str
    element: str = ""
    block: int = 0

    @property
    def granularity(self) -> str:
        if self.kind in ("fp16", "dfp"):
            return "tensor" if self.kind == "dfp" else "element"
        return "channel" if self.block == 0 else f"{self.block}"


def _pad(x: np.ndarray, axis: int, block: int) -> tuple[np.ndarray, int]:
    length = x.shape[axis]
    extra = -length % block
    if not extra:
        return x, length
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, extra)
    return np.pad(x, widths), length


def _blocked(x: np.ndarray, scheme: Scheme, axis: int):
    block = scheme.block or x.shape[axis]
    padded, _ = _pad(np.asarray(x, dtype=np.float64), axis, block)
    if scheme.kind == "nvfp4":
        return quantize_nvfp4(padded, block_size=block, axis=axis)
    return quantize_mx(padded, scheme.element, block_size=block, axis=axis)


def fake_quantize(x: np.ndarray, scheme: Scheme, axis: int) -> tuple[np.ndarray, float]:
    """``x`` through the scheme and back (float64), blocks along ``axis`` (K), and the bits stored per
    element of ``x``: elements plus scales (and a tensor scale or decimal point); padding not stored."""
    if scheme.kind == "fp16":
        return np.asarray(x, dtype=np.float16).astype(np.float64), float(FP16_BITS)
    if scheme.kind == "dfp":
        values = quantize_dynamic_fixed_point(np.asarray(x, dtype=np.float64), bits=DFP_BITS).dequantize()
        return values, DFP_BITS + DFP_POINT_BITS / x.size
    t = _blocked(x, scheme, axis)
    if t.codes.shape[axis] == x.shape[axis]:   # no padding to drop: the take below would copy it, C-ordered
        values = np.ascontiguousarray(t.dequantize())
    else:
        values = np.take(t.dequantize(), np.arange(x.shape[axis]), axis=axis)
    return values, (x.size * t.element.bits + t.scale_bits) / x.size


def quantized_accuracy(model: MLP, x: np.ndarray, y: np.ndarray, scheme: Scheme) -> float:
    """Test accuracy with every layer's weights (along their rows, K) and inputs (along K) in ``scheme``;
    biases, accumulation and activations between GEMMs in float."""
    a = np.asarray(x, dtype=np.float64)
    for i, (w, b) in enumerate(zip(model.weights, model.biases)):
        z = fake_quantize(a, scheme, axis=1)[0] @ fake_quantize(w, scheme, axis=0)[0] + b
        a = np.maximum(z, 0) if i < model.layers - 1 else z
    return float(np.mean(a.argmax(axis=1) == y))


def gemm_error(x: np.ndarray, w: np.ndarray, scheme: Scheme, exact: np.ndarray | None = None
               ) -> tuple[float, float, float]:
    """Relative Frobenius error of ``x @ w`` with both operands in the scheme, of ``w`` alone, and the
    weights' stored bits per value. ``exact``: ``x @ w`` when the caller has it (one product for many schemes)."""
    exact = x @ w if exact is None else exact
    wq, bits = fake_quantize(w, scheme, axis=0)
    out = fake_quantize(x, scheme, axis=1)[0] @ wq
    return (float(np.linalg.norm(out - exact) / np.linalg.norm(exact)),
            float(np.linalg.norm(wq - w) / np.linalg.norm(w)), bits)
