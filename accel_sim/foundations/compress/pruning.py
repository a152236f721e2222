"""Deterministic pruning: each function returns a boolean keep-mask of the weights' shape.

Granularities follow Mao et al. 2017 ("Exploring the granularity of sparsity in CNNs"):
element (0-D), vector (1-D), kernel (2-D), filter / channel (3-D); plus N:M along the
reduction axis, b x b blocks, and EIE/ESE-style load-balance-aware pruning.

Rules shared by every function:

- Importance is magnitude: ``|w|`` for elements, the L1 norm (sum of ``|w|``) for groups.
- Ties are broken by position: the group that comes first in C order is kept.
- Density targets count whole groups: ``round(density x n_groups)``, with halves rounded
  up, groups are kept. The element density is then exact whenever the groups tile the
  tensor evenly (edge groups of a tensor that is not a multiple of the group are smaller).
- A mask may keep elements that are already zero; the mask density is the target, the
  non-zero count after :func:`apply_mask` can only be lower.

Only :func:`random_mask` draws random numbers (``np.random.default_rng(seed)``).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from accel_sim.foundations.compress._checks import (
    as_finite_array,
    check_axis,
    check_block_shape,
    check_density,
    check_int,
    check_shape,
    count_for_density,
)
from accel_sim.foundations.compress._grouping import from_groups, to_groups
from accel_sim.foundations.compress._selection import keep_top, rank_in_groups

_PADDING_SCORE = -1.0  # below any magnitude: a padded slot is chosen only when nothing else is left


def apply_mask(weights: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``weights`` with the elements outside ``mask`` set to zero (same dtype)."""
    weights = as_finite_array(weights, "weights", min_ndim=0)
    mask = np.asarray(mask)
    if mask.dtype != np.bool_ or mask.shape != weights.shape:
        raise ValueError(f"mask must be a boolean array of shape {weights.shape}, got {mask.dtype} {mask.shape}")
    return np.where(mask, weights, np.zeros((), dtype=weights.dtype))


def magnitude_mask(weights: np.ndarray, *, density: float) -> np.ndarray:
    """Unstructured magnitude pruning: keep the ``round(density x size)`` largest ``|w|``."""
    weights = as_finite_array(weights, "weights")
    return keep_top(_magnitude(weights).ravel(), count_for_density(check_density(density), weights.size)).reshape(
        weights.shape
    )


def threshold_mask(weights: np.ndarray, *, quality: float) -> np.ndarray:
    """Deep Compression's rule (Han et al. 2015/2016): keep ``|w| > quality x std(weights)``.

    ``std`` is the population standard deviation of the whole layer.
    """
    weights = as_finite_array(weights, "weights")
    quality = float(quality)
    if not math.isfinite(quality) or quality < 0:
        raise ValueError(f"quality must be a finite number >= 0, got {quality!r}")
    return _magnitude(weights) > quality * float(np.std(weights.astype(np.float64)))


def random_mask(shape: Sequence[int], *, density: float, seed: int) -> np.ndarray:
    """Uniformly random mask with exactly ``round(density x size)`` kept elements."""
    dims = check_shape(shape)
    size = math.prod(dims)
    keep = count_for_density(check_density(density), size)
    mask = np.zeros(size, dtype=bool)
    mask[np.random.default_rng(seed).choice(size, size=keep, replace=False)] = True
    return mask.reshape(dims)


def nm_mask(weights: np.ndarray, *, n: int, m: int, axis: int = -1) -> np.ndarray:
    """N:M pruning: in every group of ``m`` consecutive elements along ``axis`` keep the ``n`` largest.

    A last, shorter group (axis length not a multiple of ``m``) keeps ``min(n, its length)``.
    """
    weights = as_finite_array(weights, "weights")
    m = check_int(m, "m", minimum=1)
    n = check_int(n, "n", minimum=1, maximum=m)
    axis = check_axis(axis, weights.ndim)
    scores = to_groups(_magnitude(weights), axis, m, fill=_PADDING_SCORE)
    return from_groups(rank_in_groups(scores) < n, axis, weights.shape[axis])


def block_mask(weights: np.ndarray, *, block_size: int | tuple[int, int], density: float) -> np.ndarray:
    """Block pruning of a 2-D matrix: keep the blocks (b x b, or a (rows, cols) pair) of largest L1 norm."""
    weights = as_finite_array(weights, "weights", ndim=2)
    return _tile_mask(weights, check_block_shape(block_size), check_density(density))


def vector_mask(weights: np.ndarray, *, density: float, axis: int = -1, length: int | None = None) -> np.ndarray:
    """Vector (1-D) pruning: keep the runs of ``length`` elements along ``axis`` of largest L1 norm.

    ``length=None`` takes the whole axis: the rows of a matrix for ``axis=-1``, or the
    kernel rows (length S) of a (K, C, R, S) convolution weight (Mao et al.'s 1-D grain).
    """
    weights = as_finite_array(weights, "weights")
    axis = check_axis(axis, weights.ndim)
    run = weights.shape[axis] if length is None else check_int(length, "length", minimum=1)
    tile = tuple(max(run, 1) if i == axis else 1 for i in range(weights.ndim))
    return _tile_mask(weights, tile, check_density(density))


def kernel_mask(weights: np.ndarray, *, density: float) -> np.ndarray:
    """Kernel (2-D) pruning of a (K, C, R, S) weight: keep the R x S kernels of largest L1 norm."""
    weights = as_finite_array(weights, "weights", ndim=4)
    return _tile_mask(weights, (1, 1, max(weights.shape[2], 1), max(weights.shape[3], 1)), check_density(density))


def filter_mask(weights: np.ndarray, *, density: float, axis: int = 0) -> np.ndarray:
    """Filter (``axis=0``, output channels) or channel (``axis=1``, input channels) pruning.

    Keeps the slices along ``axis`` of largest L1 norm; any array with >= 2 dimensions.
    """
    weights = as_finite_array(weights, "weights", min_ndim=2)
    axis = check_axis(axis, weights.ndim)
    tile = tuple(1 if i == axis else max(d, 1) for i, d in enumerate(weights.shape))
    return _tile_mask(weights, tile, check_density(density))


def load_balanced_mask(weights: np.ndarray, *, density: float, n_pes: int) -> np.ndarray:
    """Load-balance-aware magnitude pruning of a 2-D matrix (rows = outputs), as in ESE.

    Row i lives on PE ``i mod n_pes``. The ``round(density x size)`` kept elements are
    shared so that PE counts differ by at most one (a PE holding fewer elements than its
    share keeps all of them and the rest is shared among the others); each PE keeps its
    largest magnitudes.
    """
    weights = as_finite_array(weights, "weights", ndim=2)
    n_pes = check_int(n_pes, "n_pes", minimum=1)
    total = count_for_density(check_density(density), weights.size)
    capacities = np.array([weights[pe::n_pes].size for pe in range(n_pes)])
    mask = np.zeros(weights.shape, dtype=bool)
    for pe, keep in enumerate(_balanced_counts(total, capacities)):
        rows = weights[pe::n_pes]
        mask[pe::n_pes] = keep_top(_magnitude(rows).ravel(), keep).reshape(rows.shape)
    return mask


def _magnitude(weights: np.ndarray) -> np.ndarray:
    """``|w|`` as floats (exact for float inputs; integers go through float64, so int8's -128 is 128)."""
    return np.abs(weights if weights.dtype.kind == "f" else weights.astype(np.float64))


def _tile_mask(weights: np.ndarray, tile: tuple[int, ...], density: float) -> np.ndarray:
    """Keep whole tiles of shape ``tile`` (edge tiles cropped) ranked by L1 norm."""
    grid = tuple(-(-d // t) for d, t in zip(weights.shape, tile))
    padded = np.zeros(tuple(g * t for g, t in zip(grid, tile)))
    padded[tuple(slice(0, d) for d in weights.shape)] = _magnitude(weights)
    interleaved = padded.reshape(tuple(x for pair in zip(grid, tile) for x in pair))
    scores = interleaved.sum(axis=tuple(range(1, 2 * weights.ndim, 2)))
    keep = keep_top(scores.ravel(), count_for_density(density, scores.size)).reshape(grid)
    for axis, t in enumerate(tile):
        keep = np.repeat(keep, t, axis=axis)
    return keep[tuple(slice(0, d) for d in weights.shape)].copy()


def _balanced_counts(total: int, capacities: np.ndarray) -> list[int]:
    """Split ``total`` over bins as evenly as the ``capacities`` allow (differences <= 1 when none binds)."""
    counts = [0] * capacities.size
    remaining = total
    for done, pe in enumerate(np.argsort(capacities, kind="stable")):
        share = -(-remaining // (capacities.size - done))
        counts[pe] = min(int(capacities[pe]), share)
        remaining -= counts[pe]
    return counts


GRANULARITIES = ("unstructured", "vector", "kernel", "filter", "channel")  # Mao et al. 2017, finest first


def granularity_mask(weights: np.ndarray, granularity: str, *, density: float, run: int = 4) -> np.ndarray:
    """Keep-mask of a layer's weights at one of Mao et al.'s :data:`GRANULARITIES`.

    ``weights`` in the stored layout: a convolution ``(K, C, R, S)`` or a matrix ``(k, n)``
    (reduction first, outputs second). Vector: a conv's kernel rows (length S), a matrix's
    runs of ``run`` weights along the reduction; kernel: a conv's R x S kernels (convolutions
    only); filter: output channels (``K`` / ``n``); channel: input channels (``C`` / ``k``).
    """
    weights = as_finite_array(weights, "weights")
    conv = weights.ndim == 4
    if weights.ndim not in (2, 4):
        raise ValueError(f"weights must be (K, C, R, S) or (k, n), got shape {weights.shape}")
    if granularity == "unstructured":
        return magnitude_mask(weights, density=density)
    if granularity == "vector":
        return (vector_mask(weights, density=density, axis=-1) if conv
                else vector_mask(weights, density=density, axis=0, length=run))
    if granularity == "kernel":
        if not conv:
            raise ValueError("kernel granularity needs (K, C, R, S) convolution weights")
        return kernel_mask(weights, density=density)
    if granularity in ("filter", "channel"):
        axis = {"filter": (0, 1), "channel": (1, 0)}[granularity][0 if conv else 1]
        return filter_mask(weights, density=density, axis=axis)
    raise ValueError(f"granularity must be one of {', '.join(GRANULARITIES)}, got {granularity!r}")
