"""Index decoders: how a row's compressed weight stream splits into per-cycle chunks.

A row's decoder delivers one chunk per cycle: ``csr_entries_per_cycle`` (value, index)
entries (CSR), ``bitmap_bits_per_cycle`` presence bits and the values they mark (bitmap,
empty chunks included), or ``nm_groups_per_cycle`` M-groups of N slots (N:M, the stored
zero slots included). A chunk's items are the weights the row's MACs must process.

:func:`chunk_items` gives, for every filter of a group, the items of each chunk in order,
as a ``(filters, max_chunks)`` array padded with :data:`NO_CHUNK`.
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.compress import CSR, Bitmap, NOfM
from accel_sim.compress.storage import StorageBreakdown
from accel_sim.errors import InputError
from accel_sim.pe_array.spec import PEArraySpec

NO_CHUNK = -1


def chunk_size(spec: PEArraySpec) -> int:
    """Positions (bitmap), entries (CSR) or groups (N:M) one chunk covers."""
    return {"csr": spec.csr_entries_per_cycle, "bitmap": spec.bitmap_bits_per_cycle,
            "nm": spec.nm_groups_per_cycle}[spec.weight_format]


def chunk_index_bits(spec: PEArraySpec, k: int) -> int:
    """Index / metadata bits one chunk carries (the width of one decode action)."""
    if spec.weight_format == "bitmap":
        return spec.bitmap_bits_per_cycle
    if spec.weight_format == "csr":
        return spec.csr_entries_per_cycle * max(1, math.ceil(math.log2(max(k, 2))))
    return spec.nm_groups_per_cycle * spec.nm_n * max(1, math.ceil(math.log2(spec.nm_m)))


def check_nm(spec: PEArraySpec, weights: np.ndarray, layer_name: str) -> None:
    """A layer read through the N:M decoder must already be N:M: an error, never silent pruning."""
    k, n = weights.shape
    groups = math.ceil(k / spec.nm_m)
    padded = np.zeros((groups * spec.nm_m, n), dtype=bool)
    padded[:k] = weights != 0
    per_group = padded.reshape(groups, spec.nm_m, n).sum(axis=1)
    worst = int(per_group.max(initial=0))
    if worst > spec.nm_n:
        bad = int((per_group > spec.nm_n).sum())
        raise InputError.single(layer_name, "weights", (
            f"pe_array.weight_format 'nm' needs {spec.nm_n}:{spec.nm_m} weights along the reduction, but {bad} "
            f"groups of {spec.nm_m} hold up to {worst} non-zeros; prune the layer to {spec.nm_n}:{spec.nm_m} "
            "first (workload weight_sparsity) or choose weight_format csr / bitmap (no automatic pruning)"))


def nm_real_slots(spec: PEArraySpec, k: int) -> int:
    """Slots of one filter that fall on real reduction positions (spare slots fill the lowest free
    positions, so only a last partial group shorter than N loses slots to padding)."""
    full, rest = divmod(k, spec.nm_m)
    return full * spec.nm_n + min(spec.nm_n, rest)


def chunk_items(spec: PEArraySpec, weights: np.ndarray) -> np.ndarray:
    """``(filters, max_chunks)`` items per chunk, :data:`NO_CHUNK` after a filter's last chunk."""
    k, n = weights.shape
    nz = weights != 0
    size = chunk_size(spec)
    if spec.weight_format == "bitmap":
        chunks = math.ceil(k / size)
        padded = np.zeros((n, chunks * size), dtype=np.int64)
        padded[:, :k] = nz.T
        return padded.reshape(n, chunks, size).sum(axis=2)
    if spec.weight_format == "nm":
        groups = math.ceil(k / spec.nm_m)
        chunks = math.ceil(groups / size)
        per_chunk = np.full(chunks, size * spec.nm_n, dtype=np.int64)
        per_chunk[-1] = (groups - (chunks - 1) * size) * spec.nm_n
        return np.broadcast_to(per_chunk, (n, chunks)).copy()
    nnz = nz.sum(axis=0, dtype=np.int64)
    counts = -(-nnz // size)
    chunks = int(counts.max(initial=0))
    index = np.arange(chunks)
    items = np.where(index < counts[:, None], np.minimum(size, nnz[:, None] - index * size), NO_CHUNK)
    return items.astype(np.int64)


def processed_positions(spec: PEArraySpec, weights: np.ndarray) -> int:
    """Reduction positions (of real weights) the decoding rows process, summed over filters."""
    if spec.weight_format == "nm":
        return nm_real_slots(spec, weights.shape[0]) * weights.shape[1]
    return int(np.count_nonzero(weights))


def storage(spec: PEArraySpec, weights: np.ndarray, word_bits: int) -> StorageBreakdown:
    """Footprint of a group's compressed weights (filters as rows), from :mod:`accel_sim.compress`."""
    per_filter = np.ascontiguousarray(weights.T)
    if spec.weight_format == "csr":
        return CSR.from_dense(per_filter).storage(word_bits)
    if spec.weight_format == "bitmap":
        return Bitmap.from_dense(per_filter).storage(word_bits)
    return NOfM.from_dense(per_filter, n=spec.nm_n, m=spec.nm_m, axis=1).storage(word_bits)
