"""Synthetic post-ReLU activation tensors at an exact density, seeded.

Two spatial patterns:

- ``"uniform"``: the non-zero positions are a uniformly random subset.
- ``"clustered"``: non-zeros gather in blobs, as ReLU outputs of natural images do. A
  Gaussian noise field is smoothed with a box filter of side ``cluster_size`` over the
  last two axes (the spatial H x W plane; the only axis of a 1-D tensor) and the highest
  values of the smoothed field become the non-zeros. Leading axes (channels, batch) are
  independent.

Non-zero values are half-normal ``|N(0, 1)|``, floored at the smallest positive normal
number of the dtype so the count is exact. The number of non-zeros is
``round(density x size)`` with halves rounded up.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from accel_sim.foundations.compress._checks import check_density, check_int, check_shape, count_for_density
from accel_sim.foundations.compress._selection import keep_top

ActivationPattern = Literal["uniform", "clustered"]
PATTERNS: tuple[str, ...] = ("uniform", "clustered")
DEFAULT_CLUSTER_SIZE = 3  # box-filter side in elements; one 3 x 3 kernel footprint
_SPATIAL_AXES = 2


def activation_mask(
    shape: Sequence[int],
    *,
    density: float,
    seed: int,
    pattern: ActivationPattern = "uniform",
    cluster_size: int = DEFAULT_CLUSTER_SIZE,
) -> np.ndarray:
    """Boolean mask of the non-zero positions with exactly ``round(density x size)`` set."""
    dims = check_shape(shape)
    density = check_density(density)
    if pattern not in PATTERNS:
        raise ValueError(f"pattern must be one of {PATTERNS}, got {pattern!r}")
    cluster_size = check_int(cluster_size, "cluster_size", minimum=1)
    size = math.prod(dims)
    keep = count_for_density(density, size)
    rng = np.random.default_rng(seed)
    mask = np.zeros(size, dtype=bool)
    if pattern == "uniform":
        mask[rng.choice(size, size=keep, replace=False)] = True
        return mask.reshape(dims)
    field = rng.standard_normal(dims)
    for axis in range(max(len(dims) - _SPATIAL_AXES, 0), len(dims)):
        field = _box_smooth(field, cluster_size, axis)
    return keep_top(field.ravel(), keep).reshape(dims)


def synthetic_activations(
    shape: Sequence[int],
    *,
    density: float,
    seed: int,
    pattern: ActivationPattern = "uniform",
    cluster_size: int = DEFAULT_CLUSTER_SIZE,
    dtype: type[np.floating] = np.float32,
) -> np.ndarray:
    """Non-negative activations with exactly ``round(density x size)`` non-zeros (see module doc)."""
    mask = activation_mask(shape, density=density, seed=seed, pattern=pattern, cluster_size=cluster_size)
    kind = np.dtype(dtype)
    if kind.kind != "f":
        raise ValueError(f"dtype must be a floating dtype, got {kind}")
    rng = np.random.default_rng([seed, 1])  # a second stream, independent of the positions
    magnitudes = np.abs(rng.standard_normal(int(mask.sum()))).astype(kind)
    out = np.zeros(mask.shape, dtype=kind)
    out[mask] = np.maximum(magnitudes, np.finfo(kind).tiny)
    return out


def _box_smooth(field: np.ndarray, width: int, axis: int) -> np.ndarray:
    """Moving sum of ``width`` elements along ``axis`` (zero padded, same length)."""
    moved = np.moveaxis(field, axis, -1)
    left = (width - 1) // 2
    padded = np.pad(moved, [(0, 0)] * (moved.ndim - 1) + [(left + 1, width - 1 - left)])
    cumulative = np.cumsum(padded, axis=-1)
    smoothed = cumulative[..., width:] - cumulative[..., :-width]
    return np.moveaxis(smoothed, -1, axis)
