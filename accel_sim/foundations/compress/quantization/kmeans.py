"""k-means weight sharing (Deep Compression, Han et al., ICLR 2016, Sec. 3).

Weights of a layer are clustered in 1-D; each weight is replaced by the index of its
centroid (``ceil(log2(k))`` bits) and the layer keeps a k-entry codebook. Centroids start
linearly spaced between the smallest and largest weight (the initialisation the paper
found best) and follow Lloyd's iterations until no assignment changes. Deterministic; the learned
centroids come out in ascending order.
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.foundations.compress._checks import as_finite_array, bits_to_address, check_int
from accel_sim.foundations.compress.quantization.tensor import QuantizedTensor

KMEANS_MAX_ITERATIONS = 300  # Lloyd iteration cap (scikit-learn's KMeans default)
ZERO_CODE = 0  # with reserve_zero, code 0 is the exact zero (pruned weight, EIE padding entry)


def quantize_kmeans(
    weights: np.ndarray, *, n_clusters: int, reserve_zero: bool = True, max_iterations: int = KMEANS_MAX_ITERATIONS
) -> QuantizedTensor:
    """Weight sharing with a ``n_clusters``-entry codebook (16 = 4 bit in EIE, 32 fc, 256 conv).

    Args:
        n_clusters: codebook size k; codes take ``ceil(log2(k))`` bits.
        reserve_zero: keep pruned weights exactly zero: zeros are left out of the
            clustering and get code 0 whose centroid is 0 (so k - 1 centroids are learned).
            Without it every weight, zero or not, is clustered.
        max_iterations: cap on Lloyd iterations.

    The codebook always has exactly ``n_clusters`` entries; a centroid that loses all its
    weights keeps its last position.
    """
    weights = as_finite_array(weights, "weights", nonempty=True)
    n_clusters = check_int(n_clusters, "n_clusters", minimum=2 if reserve_zero else 1)
    max_iterations = check_int(max_iterations, "max_iterations", minimum=1)
    data = weights.astype(np.float64).ravel()
    clustered = data != 0 if reserve_zero else np.ones(data.size, dtype=bool)
    n_learned = n_clusters - 1 if reserve_zero else n_clusters
    # float32 weights sorted as float32 (several times faster), then widened: the same array as sorting the
    # widened values, the widening being exact and monotone
    ordered = np.sort(weights.ravel()[clustered]).astype(np.float64) if weights.dtype == np.float32 else None
    centroids, assignment = _lloyd(data[clustered], n_learned, max_iterations, ordered)
    offset = 1 if reserve_zero else 0
    codes = np.full(data.size, ZERO_CODE, dtype=np.int64)
    codes[clustered] = assignment + offset
    codebook = np.concatenate(([0.0], centroids)) if reserve_zero else centroids
    return QuantizedTensor(
        codes.reshape(weights.shape),
        max(bits_to_address(n_clusters), 1),
        "kmeans",
        np.ones(()),
        np.zeros((), dtype=np.int64),
        codebook=codebook,
    )


def linear_centroids(values: np.ndarray, n_clusters: int) -> np.ndarray:
    """``n_clusters`` centroids evenly spaced over [min, max] of ``values`` (zeros if empty)."""
    if values.size == 0:
        return np.zeros(n_clusters)
    return np.linspace(values.min(), values.max(), n_clusters)


def weight_sharing_compression_rate(n_weights: int, n_clusters: int, weight_bits: int) -> float:
    """Deep Compression's rate ``r = n b / (n log2 k + k b)`` for n weights of b bits shared over k."""
    n = check_int(n_weights, "n_weights", minimum=1)
    k = check_int(n_clusters, "n_clusters", minimum=1)
    b = check_int(weight_bits, "weight_bits", minimum=1)
    return n * b / (n * math.log2(k) + k * b)


def _lloyd(values: np.ndarray, n_clusters: int, max_iterations: int,
           ordered: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """1-D Lloyd iterations on sorted data (``ordered``: ``values`` sorted, if the caller has them): clusters
    are intervals, their sums come from prefix sums."""
    if ordered is None:
        ordered = np.sort(values)
    prefix = np.concatenate(([0.0], np.cumsum(ordered)))
    centroids = linear_centroids(values, n_clusters)
    bounds = _bounds(ordered, centroids)
    for _ in range(max_iterations):
        counts = np.diff(bounds)
        sums = prefix[bounds[1:]] - prefix[bounds[:-1]]
        centroids = np.sort(np.where(counts > 0, sums / np.maximum(counts, 1), centroids))
        updated = _bounds(ordered, centroids)
        if np.array_equal(updated, bounds):
            break
        bounds = updated
    return centroids, _assign(values, centroids)


def _bounds(ordered: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Cluster i holds ``ordered[bounds[i]:bounds[i+1]]`` (centroids ascending)."""
    inner = np.searchsorted(ordered, (centroids[1:] + centroids[:-1]) / 2, side="right")
    return np.concatenate(([0], inner, [ordered.size]))


def _assign(values: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Index of the nearest of the ascending ``centroids``; a value halfway between two goes to the lower."""
    return np.searchsorted((centroids[1:] + centroids[:-1]) / 2, values, side="left")
