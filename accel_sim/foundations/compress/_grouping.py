"""Groups of M consecutive elements along one axis, as N:M sparsity needs them."""
from __future__ import annotations

import numpy as np


def to_groups(array: np.ndarray, axis: int, m: int, fill: float | int | bool = 0) -> np.ndarray:
    """``array`` with ``axis`` moved last, padded with ``fill`` to a multiple of ``m`` and
    split into groups: shape ``(*other_dims, ceil(length / m), m)``."""
    moved = np.moveaxis(array, axis, -1)
    length = moved.shape[-1]
    n_groups = -(-length // m)
    padded = np.full((*moved.shape[:-1], n_groups * m), fill, dtype=array.dtype)
    padded[..., :length] = moved
    return padded.reshape(*moved.shape[:-1], n_groups, m)


def from_groups(grouped: np.ndarray, axis: int, length: int) -> np.ndarray:
    """Inverse of :func:`to_groups`: merge groups, crop the padding to ``length`` and move the axis back."""
    merged = grouped.reshape(*grouped.shape[:-2], grouped.shape[-2] * grouped.shape[-1])[..., :length]
    return np.ascontiguousarray(np.moveaxis(merged, -1, axis))
