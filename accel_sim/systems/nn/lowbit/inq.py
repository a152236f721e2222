"""Incremental network quantization (Zhou, Yao, Guo, Xu & Chen, ICLR 2017).

Starting from a trained full-precision network, each stage converts a growing fraction of
every layer's weights (the largest magnitudes first, the paper's pruning-inspired
partition) to ``b``-bit powers of two (:func:`~accel_sim.foundations.compress.quantize_power_of_two`,
``n1`` fixed from the pre-trained layer), freezes them, and retrains the rest; the last
stage quantizes everything. ``partition`` lists the cumulative fractions (the paper's
``50 / 75 / 87.5 / 100 %``): strictly increasing, ending at 1.
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.foundations.compress.quantization.power_of_two import inq_max_exponent, quantize_power_of_two
from accel_sim.systems.nn.lowbit import quantizer_kernels
from accel_sim.systems.nn.lowbit.quantizer import WeightQuantizer

INQ_PARTITION = (0.5, 0.75, 0.875, 1.0)   # cumulative portions (Zhou et al. 2017, Sec. 3.1)


def partition_problem(partition: tuple[float, ...]) -> str | None:
    """What is wrong with an INQ partition (cumulative fractions), or None."""
    values = [float(p) for p in partition]
    if not values:
        return "expected at least one cumulative fraction, e.g. 0.5,0.75,0.875,1"
    if any(not math.isfinite(p) or not 0 < p <= 1 for p in values):
        return f"every cumulative fraction must be in (0, 1], got {values}"
    if any(b <= a for a, b in zip(values, values[1:])):
        return f"cumulative fractions must be strictly increasing, got {values}"
    if values[-1] != 1.0:
        return (f"the portions must sum to 1 (the last cumulative fraction must be 1), got {values} "
                f"(sum {values[-1]:g})")
    return None


class IncrementalPowerOfTwoWeights(WeightQuantizer):
    """A layer's INQ state: which weights are frozen at their power of two."""

    method = "inq"

    def __init__(self, bits: int):
        self.bits = bits
        self.max_exponent: int | None = None
        self.frozen: np.ndarray | None = None
        self.values: np.ndarray | None = None   # the frozen weights' powers of two

    def quantize_fraction(self, w: np.ndarray, fraction: float) -> np.ndarray:
        """Freeze the largest ``fraction`` of ``w`` (already-frozen weights stay); returns the new weights."""
        if self.max_exponent is None:
            self.max_exponent = inq_max_exponent(w)
            self.frozen = np.zeros(w.shape, dtype=bool)
            self.values = np.zeros_like(w)
        assert self.frozen is not None and self.values is not None
        count = int(round(fraction * w.size))
        magnitude = np.where(self.frozen, np.inf, np.abs(w)).ravel()
        chosen = np.argsort(-magnitude, kind="stable")[:count]
        newly = np.zeros(w.size, dtype=bool)
        newly[chosen] = True
        newly = newly.reshape(w.shape) & ~self.frozen
        q = quantize_power_of_two(w, bits=self.bits, max_exponent=self.max_exponent).dequantize()
        self.values = np.where(newly, q, self.values).astype(w.dtype)
        self.frozen = self.frozen | newly
        return self.after_update(w)

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return grad if self.frozen is None else grad * ~self.frozen

    def after_update(self, w: np.ndarray) -> np.ndarray:
        if self.frozen is None:
            return w
        kernels = quantizer_kernels.compiled()
        if (kernels is not None and quantizer_kernels.flat(self.values, w) and self.values.dtype == w.dtype
                and self.frozen.shape == w.shape and self.values.shape == w.shape and self.frozen.flags.c_contiguous):
            out = np.empty_like(w)
            kernels["select"](self.frozen.reshape(-1), self.values.reshape(-1), w.reshape(-1), out.reshape(-1))
            return out
        return np.where(self.frozen, self.values, w).astype(w.dtype)
