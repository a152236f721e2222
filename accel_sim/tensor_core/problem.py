"""What one kernel run is: the tensor-core GEMM of a layer, its mode, and per-element widths.

Pure functions shared by the fast path and the reference: how many bits an A (2:4)
or B (dense) slice of a given size occupies, how many MMA instructions a warp issues
for a stage, and what each MMA reads from the register file. No timing here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from accel_sim.tensor_core.spec import KernelTile, TensorCoreSpec

BITS_PER_BYTE = 8
REGISTER_BITS = 32        # register-file actions are counted in 32-bit registers
SUPPORTED_WORD_BITS = (8, 16, 32)  # INT8, FP16 / BF16, TF32 (brief)


@dataclass(frozen=True)
class TCProblem:
    """C (m x n) = A (m x k, the weights transposed; 2:4 when ``sparse``) x B (k x n), ``groups`` times.

    ``m`` is the layer's ``n`` (output features), ``n`` the layer's ``m`` (batch x pixels).
    """

    m: int
    n: int
    k: int
    groups: int
    word_bits: int
    sparse: bool
    nm_n: int          # hardware pattern kept per group (used when sparse)
    nm_m: int          # hardware pattern group length

    def slots(self, extent: int) -> int:
        """Stored A values per row for a K extent: all of them dense; ``ceil(extent / M) * N`` 2:4."""
        if not self.sparse:
            return extent
        return -(-extent // self.nm_m) * self.nm_n

    def useful_products_per_row(self) -> int:
        """Products per (A row, B column) pair the sparse core does usefully (kept positions inside K)."""
        if not self.sparse:
            return self.k
        full, tail = divmod(self.k, self.nm_m)
        return full * self.nm_n + min(self.nm_n, tail)


@dataclass(frozen=True)
class ElementBits:
    """Widths: an A slot (value; metadata separately), a B element, an output element."""

    a_value: int
    a_metadata: int
    b_value: int
    c_value: int

    @property
    def a_slot(self) -> int:
        return self.a_value + self.a_metadata


def element_bits(spec: TensorCoreSpec, problem: TCProblem) -> ElementBits:
    meta = spec.metadata_bits_per_value if problem.sparse else 0
    w = problem.word_bits
    return ElementBits(a_value=w, a_metadata=meta, b_value=w, c_value=w)


def hardware_pattern(spec: TensorCoreSpec, word_bits: int) -> tuple[int, int]:
    """The sparse pattern of the tensor core at this word width: 1:2 for 32-bit (TF32), else 2:4."""
    return (spec.nm_n_32bit, spec.nm_m_32bit) if word_bits == 32 else (spec.nm_n, spec.nm_m)


def k_span_per_mma(spec: TensorCoreSpec, problem: TCProblem) -> int:
    """Dense K one MMA covers: ``mma_k`` dense; ``mma_k * M / N`` sparse (same A fragment, twice the K)."""
    if not problem.sparse:
        return spec.mma_k
    return spec.mma_k * problem.nm_m // problem.nm_n


def cycles_per_mma(spec: TensorCoreSpec) -> int:
    """Cycles one tensor core is busy with one MMA (the sparse one takes the dense one's time)."""
    return math.ceil(spec.mma_m * spec.mma_n * spec.mma_k / spec.dense_macs_per_cycle)


def mma_bits(spec: TensorCoreSpec, problem: TCProblem) -> dict[str, int]:
    """Register-file operand bits one MMA reads (A, metadata, B, C) and writes (D)."""
    bits = element_bits(spec, problem)
    a_values = spec.mma_m * spec.mma_k  # the stored A fragment: the same size dense and 2:4
    return {"a": a_values * bits.a_value, "metadata": a_values * bits.a_metadata,
            "b": k_span_per_mma(spec, problem) * spec.mma_n * bits.b_value,
            "c": spec.mma_m * spec.mma_n * spec.accumulator_bits,
            "d": spec.mma_m * spec.mma_n * spec.accumulator_bits}


def mma_read_bits(spec: TensorCoreSpec, problem: TCProblem) -> int:
    b = mma_bits(spec, problem)
    return b["a"] + b["metadata"] + b["b"] + b["c"]


def mmas_per_warp(spec: TensorCoreSpec, problem: TCProblem, tile: KernelTile, extent: int) -> int:
    """MMAs one warp issues for one stage of K extent ``extent`` (every warp computes its full tile)."""
    return (tile.warp_m // spec.mma_m) * (tile.warp_n // spec.mma_n) * -(-extent // k_span_per_mma(spec, problem))


def warps_per_tensor_core(spec: TensorCoreSpec, tile: KernelTile) -> int:
    """Warps are bound to SM sub-partitions round robin: the busiest tensor core has this many."""
    return -(-tile.warps // spec.tensor_cores_per_sm)


def stage_fill_bits(spec: TensorCoreSpec, problem: TCProblem, tile: KernelTile) -> int:
    """Shared memory one full pipeline stage occupies (A slots with metadata, B elements)."""
    bits = element_bits(spec, problem)
    return tile.m * problem.slots(tile.k) * bits.a_slot + tile.k * tile.n * bits.b_value


def fits_shared_memory(spec: TensorCoreSpec, problem: TCProblem, tile: KernelTile) -> bool:
    return tile.stages * stage_fill_bits(spec, problem, tile) <= spec.shared_memory_size * BITS_PER_BYTE


def transfer_cycles(bits: int, bytes_per_cycle: float) -> int:
    """Whole cycles a path moving ``bytes_per_cycle`` needs for ``bits`` (0 for nothing)."""
    return math.ceil(bits / (BITS_PER_BYTE * bytes_per_cycle))
