"""The MMA instruction: what one warp-level matrix multiply covers, reads and costs in time.

PTX ``mma.sync`` (dense) and ``mma.sp`` (2:4) of shape ``mma_m x mma_n``: the dense one covers
``mma_k`` of K; the sparse one takes the same stored A fragment (``mma_m x mma_k`` kept values
with their metadata) and covers ``M / N`` times more dense K, in the dense one's cycles. Every
MMA reads its A fragment, metadata, B fragment and C accumulators from the register file and
writes D. Every warp computes its full warp tile (padding included).
"""
from __future__ import annotations

import math

from accel_sim.models.tensor_core.plan.problem import TCProblem, element_bits
from accel_sim.models.tensor_core.spec import KernelTile, TensorCoreSpec

REGISTER_BITS = 32        # register-file actions are counted in 32-bit registers


def mma_k(spec: TensorCoreSpec, problem: TCProblem) -> int:
    """K of the stored A fragment of one MMA: ``mma_k``, or the block-scaled or 8-bit MMA's (more K, same cycles)."""
    if problem.precision is not None:
        return problem.precision.mma_k
    return problem.scaling.mma_k if problem.scaling is not None else spec.mma_k


def k_span_per_mma(spec: TensorCoreSpec, problem: TCProblem) -> int:
    """Dense K one MMA covers: ``mma_k`` dense; ``mma_k * M / N`` sparse (same A fragment, twice the K)."""
    if not problem.sparse:
        return mma_k(spec, problem)
    return mma_k(spec, problem) * problem.nm_m // problem.nm_n


def macs_per_cycle(spec: TensorCoreSpec, problem: TCProblem) -> int:
    """Dense MACs per cycle of one tensor core at the problem's operand width."""
    if problem.precision is not None:
        return problem.precision.macs_per_cycle
    return problem.scaling.macs_per_cycle if problem.scaling is not None else spec.dense_macs_per_cycle


def products_per_mma(spec: TensorCoreSpec, problem: TCProblem) -> int:
    """Products one MMA executes (padding included): ``mma_m x mma_n x`` its stored K at the operand width."""
    return spec.mma_m * spec.mma_n * mma_k(spec, problem)


def cycles_per_mma(spec: TensorCoreSpec, problem: TCProblem) -> int:
    """Cycles one tensor core is busy with one MMA (the sparse one takes the dense one's time)."""
    return math.ceil(products_per_mma(spec, problem) / macs_per_cycle(spec, problem))


def scale_applications(spec: TensorCoreSpec, problem: TCProblem) -> int:
    """Block scales one MMA applies: one per C element per block of its K (0 without block scaling)."""
    if problem.scaling is None:
        return 0
    return spec.mma_m * spec.mma_n * -(-mma_k(spec, problem) // problem.scaling.block)


def mma_bits(spec: TensorCoreSpec, problem: TCProblem) -> dict[str, int]:
    """Register-file operand bits one MMA reads (A, metadata, block scales, B, C) and writes (D)."""
    bits = element_bits(spec, problem)
    k = mma_k(spec, problem)
    a_values = spec.mma_m * k  # the stored A fragment: the same size dense and 2:4
    blocks = -(-k // bits.block) if bits.block else 0    # scales per A row / B column of the fragment
    parts = {"a": a_values * bits.a_value, "metadata": a_values * bits.a_metadata,
             "b": k_span_per_mma(spec, problem) * spec.mma_n * bits.b_value,
             "c": spec.mma_m * spec.mma_n * spec.accumulator_bits,
             "d": spec.mma_m * spec.mma_n * spec.accumulator_bits}
    if blocks:   # block-scaled: the A rows' and B columns' scales of the fragment
        parts["scales"] = (spec.mma_m + spec.mma_n) * blocks * bits.scale_bits
    return parts


def mma_read_bits(spec: TensorCoreSpec, problem: TCProblem) -> int:
    b = mma_bits(spec, problem)
    return b["a"] + b["metadata"] + b.get("scales", 0) + b["b"] + b["c"]


def mmas_per_warp(spec: TensorCoreSpec, problem: TCProblem, tile: KernelTile, extent: int) -> int:
    """MMAs one warp issues for one stage of K extent ``extent`` (every warp computes its full tile)."""
    return (tile.warp_m // spec.mma_m) * (tile.warp_n // spec.mma_n) * -(-extent // k_span_per_mma(spec, problem))
