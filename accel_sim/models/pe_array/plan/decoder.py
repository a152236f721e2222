"""Index decoder, the format side: what one decode action covers and what the compressed
weights weigh (pure numpy; the decoders themselves run in :mod:`..fast.decoder` and
:mod:`..reference.decoder`).

A row's decoder delivers one *chunk* per cycle: ``csr_entries_per_cycle`` (value, index)
entries (CSR), ``bitmap_bits_per_cycle`` presence bits and the values they mark (bitmap,
empty chunks included), or ``nm_groups_per_cycle`` M-groups of N slots (N:M, the stored zero
slots included). The weights are stored per filter, along the reduction, in the formats of
:mod:`accel_sim.foundations.compress` (CSR, Bitmap, NOfM), which give the footprint.
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.foundations.compress import CSR, Bitmap, NOfM
from accel_sim.foundations.errors import InputError
from accel_sim.models.pe_array.spec import PEArraySpec


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


def footprint(spec: PEArraySpec, weights: np.ndarray, word_bits: int) -> tuple[int, int]:
    """(total, index + pointer + metadata) bits of one group's compressed weights (filters as rows)."""
    if spec.weight_format == "csr":   # its size follows from the count of non-zeros: nothing encoded
        stored = CSR.dense_storage(weights.T, word_bits)
        return stored.total_bits, stored.total_bits - stored.values_bits - stored.padding_bits
    per_filter = np.ascontiguousarray(weights.T)
    if spec.weight_format == "bitmap":
        stored = Bitmap.from_dense(per_filter).storage(word_bits)
    else:
        stored = NOfM.from_dense(per_filter, n=spec.nm_n, m=spec.nm_m, axis=1).storage(word_bits)
    return stored.total_bits, stored.total_bits - stored.values_bits - stored.padding_bits

