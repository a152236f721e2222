"""Split-K: how many slices of K each candidate kernel cuts the reduction into, chosen as libraries choose it.

A kernel with ``split`` > 1 runs one CTA per C tile and K slice; each slice is ``K / split`` of the
reduction, in stages of the tile's K (the last one shorter when the slice is not whole stages), and the
slices of a tile add their FP32 partial tiles in the epilogue (serial split-K). Two rules, both wave
quantization, pick the factor per kernel tile:

- **a single GEMM** (:func:`gemm_split`): TensorRT-LLM's ``estimate_best_config_from_occupancies``
  (``cpp/tensorrt_llm/kernels/cutlass_kernels/cutlass_heuristic.cpp``): for factors 1 .. ``split_k_limit``
  (its ``SPLIT_K_LIMIT`` is 7) that its ``is_valid_split_k_factor`` admits (:func:`library_slices`: K and
  every slice whole ``k_tile`` s of 64, whatever the tile's own K: a 128-deep tile may run slices of 192),
  the score is the idle fraction of the last wave, ``waves - CTAs / SMs``; a factor wins with a lower
  score, or with fewer waves and a score less than 0.1 worse; none when the output side (its ``n``, this
  family's ``M``) is at least 256 x SMs.
- **a batched GEMM** (``groups`` > 1: the attention kernels, one instance per sequence and KV head;
  :func:`batched_split`): FlashAttention's ``num_splits_heuristic`` (``csrc/flash_attn/flash_api.cpp``):
  no split when the unsplit CTAs fill 80 % of the SMs; else, over the splits up to
  min(``batched_split_limit``, SMs, K blocks) that change the blocks per split, the fewest whose wave
  efficiency ``w / ceil(w)`` (``w`` = CTAs x splits / SMs) is at least 85 % of the best. FlashAttention
  counts two CTAs per SM (128-thread CTAs); this family runs one CTA per SM, so ``SMs`` is the SM count.
"""
from __future__ import annotations

from fractions import Fraction

from accel_sim.models.tensor_core.plan.mma import k_span_per_mma
from accel_sim.models.tensor_core.plan.problem import TCProblem
from accel_sim.models.tensor_core.spec import KernelTile, TensorCoreSpec

NO_SPLIT_OUTPUT_PER_SM = 256        # cutlass_heuristic.cpp: max_split_k = 1 when n >= SMs x 256
K_TILE = 64                         # cutlass_heuristic.cpp, is_valid_split_k_factor: "All tile sizes have a k_tile of 64"
SCORE_SLACK = Fraction(1, 10)       # cutlass_heuristic.cpp: score_slack = 0.1f
FILLED_SHARE = Fraction(4, 5)       # flash_api.cpp: batch_nheads_mblocks >= 0.8f * num_SMs
EFFICIENCY_SHARE = Fraction(85, 100)  # flash_api.cpp: efficiency >= 0.85 * max_efficiency


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def tiles_per_slice(problem: TCProblem, tile: KernelTile) -> int:
    """C tiles of the kernel (every group): its CTAs without a split."""
    return problem.groups * _ceil(problem.m, tile.m) * _ceil(problem.n, tile.n)


def whole_slices(problem: TCProblem, tile: KernelTile, split: int) -> bool:
    """Whether ``split`` slices cut K into equal whole stages of ``tile.k``."""
    return split == 1 or problem.k % (split * tile.k) == 0


def library_slices(spec: TensorCoreSpec, problem: TCProblem, split: int) -> bool:
    """Whether TensorRT-LLM's ``is_valid_split_k_factor`` (its weight-only branch) admits ``split``: K and
    ``K / split`` whole multiples of ``K_TILE``; and a slice this family can run: whole MMAs of the mode."""
    if split == 1:
        return True
    part = problem.k // split
    return (problem.k % K_TILE == 0 and problem.k % split == 0 and part % K_TILE == 0
            and part % k_span_per_mma(spec, problem) == 0)


def gemm_split(spec: TensorCoreSpec, problem: TCProblem, tile: KernelTile) -> int:
    """TensorRT-LLM's split-K factor for one tile (see the module doc)."""
    limit = 1 if problem.m >= spec.sms * NO_SPLIT_OUTPUT_PER_SM else spec.split_k_limit
    tiles = tiles_per_slice(problem, tile)
    best, best_score, best_waves = 1, Fraction(1), None
    for split in range(1, limit + 1):
        if not library_slices(spec, problem, split):
            continue
        ctas = tiles * split
        waves = _ceil(ctas, spec.sms)
        score = waves - Fraction(ctas, spec.sms)
        if score < best_score or (best_waves is not None and best_waves > waves and score < best_score + SCORE_SLACK):
            best, best_score, best_waves = split, score, waves
    return best


def batched_split(spec: TensorCoreSpec, problem: TCProblem, tile: KernelTile) -> int:
    """FlashAttention's number of splits along K for one tile (see the module doc)."""
    blocks = tiles_per_slice(problem, tile)
    if blocks >= FILLED_SHARE * spec.sms:
        return 1
    k_blocks = _ceil(problem.k, tile.k)
    limit = min(spec.batched_split_limit, spec.sms, k_blocks)
    efficiency = {}
    for split in range(1, limit + 1):
        changes = split == 1 or _ceil(k_blocks, split) != _ceil(k_blocks, split - 1)
        if changes and whole_slices(problem, tile, split):
            waves = Fraction(blocks * split, spec.sms)
            efficiency[split] = waves / _ceil(waves.numerator, waves.denominator)
    best = max(efficiency.values())
    return min(split for split, value in efficiency.items() if value >= EFFICIENCY_SHARE * best)


def split_factor(spec: TensorCoreSpec, problem: TCProblem, tile: KernelTile) -> int:
    """The split of K a kernel of ``tile`` runs the problem with (1: no split)."""
    if problem.groups > 1:
        return batched_split(spec, problem, tile)
    return gemm_split(spec, problem, tile)
