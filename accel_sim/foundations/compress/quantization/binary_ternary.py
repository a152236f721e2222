"""Binary (XNOR-Net BWN) and ternary (TWN, TTQ) weights."""
from __future__ import annotations

import math

import numpy as np

from accel_sim.foundations.compress._checks import as_finite_array, check_axis
from accel_sim.foundations.compress.quantization.tensor import QuantizedTensor, reduce_axes

BINARY_BITS = 1
TERNARY_BITS = 2
TWN_THRESHOLD_FACTOR = 0.7  # delta = 0.7 x mean|W| (Li & Liu, "Ternary Weight Networks", 2016)
TTQ_THRESHOLD_FACTOR = 0.05  # delta = 0.05 x max|W| (Zhu et al., "Trained Ternary Quantization", ICLR 2017)


def quantize_binary(weights: np.ndarray, *, axis: int | None = 0) -> QuantizedTensor:
    """XNOR-Net BWN (Rastegari et al. 2016): ``B = sign(W)`` (sign(0) = +1), ``alpha = mean|W|``.

    ``axis`` is the filter axis (one alpha per filter, the paper's choice); None gives one
    alpha for the tensor. Values are -1 / +1, dequantized as ``alpha x B``.
    """
    weights = as_finite_array(weights, "weights", nonempty=True)
    axes = reduce_axes(weights.ndim, None if axis is None else check_axis(axis, weights.ndim))
    alpha = np.mean(np.abs(weights.astype(np.float64)), axis=axes, keepdims=True)
    values = np.where(weights >= 0, 1, -1).astype(np.int64)
    return QuantizedTensor(values, BINARY_BITS, "binary", alpha, np.zeros((), dtype=np.int64))


def quantize_ternary(
    weights: np.ndarray, *, axis: int | None = None, threshold_factor: float = TWN_THRESHOLD_FACTOR
) -> QuantizedTensor:
    """Ternary weight networks: ``delta = threshold_factor x mean|W|``, values in {-1, 0, +1},
    ``alpha = mean |w| over |w| > delta`` (0 when no weight passes).

    ``axis=None`` (the paper: one delta and alpha per layer) or a channel axis.
    """
    weights = as_finite_array(weights, "weights", nonempty=True)
    axes = reduce_axes(weights.ndim, None if axis is None else check_axis(axis, weights.ndim))
    kept, alpha = ternary_scale(weights, axes, _factor(threshold_factor))
    values = (np.sign(weights) * kept).astype(np.int64)
    return QuantizedTensor(values, TERNARY_BITS, "ternary", alpha, np.zeros((), dtype=np.int64))


def ternary_scale(weights: np.ndarray, axes: tuple[int, ...] | None, factor: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`quantize_ternary`'s kept weights (``|w| > factor x mean|W|`` over ``axes``) and ``alpha`` (float64,
    keepdims), for checked finite, non-empty ``weights`` (a training loop's lean form builds the values itself)."""
    magnitude, kept = _twn_kept(weights, axes, factor)
    count = np.sum(kept, axis=axes, keepdims=True)
    alpha = np.where(count > 0, np.sum(magnitude * kept, axis=axes, keepdims=True) / np.maximum(count, 1), 0.0)
    return kept, alpha


def ternary_kept(weights: np.ndarray, *, threshold_factor: float = TWN_THRESHOLD_FACTOR) -> np.ndarray:
    """Where :func:`quantize_ternary` (one delta per tensor) keeps a weight (a non-zero code), as a
    boolean array, without building the codes or alpha (a zero-skipping datapath's work needs only this)."""
    weights = as_finite_array(weights, "weights", nonempty=True)
    return _twn_kept(weights, reduce_axes(weights.ndim, None), _factor(threshold_factor))[1]


def _twn_kept(weights: np.ndarray, axes: tuple[int, ...] | None, factor: float) -> tuple[np.ndarray, np.ndarray]:
    """(|W| in float64, |W| > delta) with TWN's ``delta = factor x mean|W|`` over ``axes``."""
    magnitude = np.abs(weights.astype(np.float64))
    return magnitude, magnitude > factor * np.mean(magnitude, axis=axes, keepdims=True)


def quantize_ttq(
    weights: np.ndarray,
    *,
    threshold_factor: float = TTQ_THRESHOLD_FACTOR,
    positive_scale: float | None = None,
    negative_scale: float | None = None,
) -> QuantizedTensor:
    """Trained ternary quantization: threshold ``delta = threshold_factor x max|W|`` and two scales.

    TTQ learns the positive scale W_p and negative scale W_n during training; pass them if
    known. Without training they default to the mean of the weights above ``delta`` and
    the mean magnitude of those below ``-delta`` (0 when there are none).
    Codes 0 / 1 / 2 index the codebook ``[-W_n, 0, +W_p]``.
    """
    weights = as_finite_array(weights, "weights", nonempty=True)
    data = weights.astype(np.float64)
    delta = _factor(threshold_factor) * float(np.max(np.abs(data)))
    positive, negative = data > delta, data < -delta
    w_p = _scale(positive_scale, "positive_scale", data[positive])
    w_n = _scale(negative_scale, "negative_scale", -data[negative])
    codes = np.ones(weights.shape, dtype=np.int64)
    codes[positive], codes[negative] = 2, 0
    codebook = np.array([-w_n, 0.0, w_p])
    return QuantizedTensor(codes, TERNARY_BITS, "ttq", np.ones(()), np.zeros((), dtype=np.int64), codebook=codebook)


def _factor(threshold_factor: float) -> float:
    factor = float(threshold_factor)
    if not math.isfinite(factor) or factor < 0:
        raise ValueError(f"threshold_factor must be a finite number >= 0, got {threshold_factor!r}")
    return factor


def _scale(given: float | None, name: str, magnitudes: np.ndarray) -> float:
    if given is None:
        return float(magnitudes.mean()) if magnitudes.size else 0.0
    value = float(given)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {given!r}")
    return value
