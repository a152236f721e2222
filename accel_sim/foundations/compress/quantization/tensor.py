"""The result type of every quantizer, and the two rounding modes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

Rounding = Literal["nearest", "stochastic"]
ROUNDING_MODES: tuple[str, ...] = ("nearest", "stochastic")


@dataclass(frozen=True, eq=False)
class QuantizedTensor:
    """A quantized tensor: integer codes plus what turns them back into real numbers.

    Attributes:
        values: int64 array of the tensor's shape. Integer levels for the linear schemes
            (``dequantize = (values - zero_point) x scale``), or indices into ``codebook``.
        bits: bits per stored value.
        scheme: which quantizer produced it (e.g. ``"int_symmetric"``, ``"kmeans"``).
        scale: float64, broadcastable to ``values`` (per tensor or per channel).
        zero_point: int64, broadcastable to ``values``.
        codebook: float64 table for codebook schemes (log2, TTQ, k-means), else None.
        saturated: number of elements the quantizer clipped to its range.
    """

    values: np.ndarray
    bits: int
    scheme: str
    scale: np.ndarray
    zero_point: np.ndarray
    codebook: np.ndarray | None = None
    saturated: int = 0

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.values.shape)

    @property
    def code_bits(self) -> int:
        """Bits of the stored values (scales and codebook not included)."""
        return int(self.values.size) * self.bits

    def dequantize(self) -> np.ndarray:
        """The real values the codes stand for (float64)."""
        if self.codebook is not None:
            return self.codebook[self.values]
        return (self.values - self.zero_point) * self.scale


def check_rounding(rounding: str, seed: int | None) -> np.random.Generator | None:
    """Validate a rounding mode; the generator stochastic rounding draws from (seeded)."""
    if rounding not in ROUNDING_MODES:
        raise ValueError(f"rounding must be one of {ROUNDING_MODES}, got {rounding!r}")
    if rounding == "nearest":
        return None
    if seed is None:
        raise ValueError("seed is required when rounding='stochastic' (results must be reproducible)")
    return np.random.default_rng(seed)


def round_to_integer(y: np.ndarray, rng: np.random.Generator | None) -> np.ndarray:
    """Round to int64: nearest (halves to even, IEEE 754) without ``rng``, else stochastic
    ``floor(y + U[0, 1))``, which rounds up with probability equal to the fraction."""
    if rng is None:
        return np.rint(y).astype(np.int64)
    return np.floor(y + rng.random(np.shape(y))).astype(np.int64)


def clip_count(levels: np.ndarray, low: int | np.ndarray, high: int | np.ndarray) -> tuple[np.ndarray, int]:
    """``levels`` clipped to [low, high] and the number of elements the clip changed."""
    clipped = np.clip(levels, low, high)
    return clipped, int(np.count_nonzero(clipped != levels))


def reduce_axes(ndim: int, axis: int | None) -> tuple[int, ...] | None:
    """Axes to reduce for per-tensor (``axis=None``) or per-channel (channel ``axis``) statistics."""
    if axis is None:
        return None
    return tuple(i for i in range(ndim) if i != axis)
