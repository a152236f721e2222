"""Index decoders, vectorised: how each row's compressed weight stream splits into chunks.

One chunk per cycle per row (:mod:`..plan.decoder`); a chunk's *items* are the weights the
row's MACs must process: CSR entries (non-zeros), bitmap ones (an empty chunk still takes its
cycle) or N:M slots (stored zeros and slots past the reduction included).
:func:`chunk_items` gives, for every filter of a group, the items of each chunk in order, as a
``(filters, max_chunks)`` array padded with :data:`NO_CHUNK`.
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.models.pe_array.plan.decoder import chunk_size
from accel_sim.models.pe_array.spec import PEArraySpec

NO_CHUNK = -1


def chunk_items(spec: PEArraySpec, weights: np.ndarray) -> np.ndarray:
    """``(filters, max_chunks)`` items per chunk, :data:`NO_CHUNK` after a filter's last chunk."""
    k, n = weights.shape
    size = chunk_size(spec)
    if spec.weight_format == "bitmap":
        chunks = math.ceil(k / size)
        padded = np.zeros((n, chunks * size), dtype=np.int64)
        padded[:, :k] = (weights != 0).T
        return padded.reshape(n, chunks, size).sum(axis=2)
    if spec.weight_format == "nm":
        groups = math.ceil(k / spec.nm_m)
        chunks = math.ceil(groups / size)
        per_chunk = np.full(chunks, size * spec.nm_n, dtype=np.int64)
        per_chunk[-1] = (groups - (chunks - 1) * size) * spec.nm_n
        return np.broadcast_to(per_chunk, (n, chunks)).copy()
    nnz = np.count_nonzero(weights, axis=0).astype(np.int64)
    counts = -(-nnz // size)
    chunks = int(counts.max(initial=0))
    index = np.arange(chunks)
    items = np.where(index < counts[:, None], np.minimum(size, nnz[:, None] - index * size), NO_CHUNK)
    return items.astype(np.int64)


def nm_real_slots(spec: PEArraySpec, k: int) -> int:
    """Slots of one filter that fall on real reduction positions (spare slots fill the lowest free
    positions, so only a last partial group shorter than N loses slots to padding)."""
    full, rest = divmod(k, spec.nm_m)
    return full * spec.nm_n + min(spec.nm_n, rest)


def processed_positions(spec: PEArraySpec, weights: np.ndarray) -> int:
    """Reduction positions (of real weights) the decoding rows process, summed over filters."""
    if spec.weight_format == "nm":
        return nm_real_slots(spec, weights.shape[0]) * weights.shape[1]
    return int(np.count_nonzero(weights))


def padding_slots(spec: PEArraySpec, k: int) -> int:
    """N:M slots of one filter past the reduction length (zero padding of the last group)."""
    return math.ceil(k / spec.nm_m) * spec.nm_n - nm_real_slots(spec, k)
