"""Plan of a tensor-core layer (pure): the GEMM, its mode, the candidate kernels and their CTAs.

A layer runs as one GEMM kernel on the GPU (conv layers as implicit GEMM on their GEMM view, B
being the im2col matrix). Blocks, one module each: :mod:`.problem` (the GEMM, widths, L2
residency), :mod:`.sparsity` (does the layer run on the 2:4 path: declaration and weights),
:mod:`.mma` (the MMA instruction), :mod:`.tiling` (eligible kernels, CTAs in launch order), :mod:`.split`
(each kernel's split-K factor, chosen as TensorRT-LLM and FlashAttention choose it), :mod:`.block_scaling`
(MX / NVFP4 operands: narrow elements, scales per block of K), :mod:`.precision` (a layer's W8A8 / FP8
GEMM: 8-bit A and B at the 8-bit rate, fp32 per-channel and per-token scales). A layer's group-wise quantization scales
(``quant_group_size``: a scale and zero point per group of K of an A row, W4A16's) ride with A at every level
(:class:`.problem.ElementBits`).

The kernel that runs is chosen like cuBLAS / cuSPARSELt heuristics do: of the eligible
kernels, the fastest (the first on ties). Each tile is a candidate unsplit and, when the library's rule
(:mod:`.split`) splits K for it, split: the rule proposes the factor, and the split kernel runs when it is
the faster, as TensorRT-LLM's GEMM profiler picks among its split-K tactics. That takes timing, so the plan lists the candidates
and each counting path (:mod:`..fast`, :mod:`..reference`) times them all and keeps the best.

The operand tensors are not needed to count a GEMM: the plan hashes them (and checks weights
loaded from a payload and marked N:M against the hardware pattern) on first use of
:attr:`TensorCorePlan.operand_hashes`, which accounting asks for. Generated weights are pruned to the
declared pattern by the operand generator, and :func:`.sparsity.runs_sparse` has checked that pattern
guarantees the hardware's, so they are never drawn just to be checked: a run on generated operands
(a shape study, a large GEMM) never allocates them.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType

import dataclasses

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.errors import InputError
from accel_sim.models.tensor_core.plan.block_scaling import block_scaling, check_layer
from accel_sim.models.tensor_core.plan.precision import layer_precision
from accel_sim.models.tensor_core.plan.problem import (
    ElementBits,
    TCProblem,
    check_groups,
    element_bits,
    gemm_problem,
    l2_resident,
    tensor_core_spec,
)
from accel_sim.models.tensor_core.plan.sparsity import check_weights, hardware_pattern, runs_sparse
from accel_sim.models.tensor_core.plan.split import split_factor
from accel_sim.models.tensor_core.plan.tiling import CtaGrid, cta_grid, eligible_kernels
from accel_sim.models.tensor_core.spec import KernelTile, TensorCoreSpec
from accel_sim.foundations.workload.layer import Layer, group_scale_bits
from accel_sim.foundations.workload.operands import layer_operands, weight_matrix


@dataclass(frozen=True, eq=False)
class TensorCorePlan:
    arch: ArchBase
    spec: TensorCoreSpec
    layer: Layer
    problem: TCProblem
    bits: ElementBits
    kernels: tuple[KernelTile, ...]     # the candidate kernels: each eligible tile in config order, unsplit, then
                                        # split as the library's split-K rule says (when it splits)
    grids: tuple[CtaGrid, ...]          # each kernel's CTAs in launch order (its split-K slices included)
    l2_resident: bool                   # A and B fit the L2 together

    @cached_property
    def operand_hashes(self) -> Mapping[str, str]:
        """The layer's operand hashes; weights of a sparse run given in a payload are checked N:M first
        (InputError)."""
        ops = layer_operands(self.layer)
        if self.problem.sparse and self.layer.operands.payload is not None:
            check_weights(self.spec, self.arch.word_bits, self.layer, weight_matrix(self.layer, ops.weights))
        return MappingProxyType(dict(ops.hashes))


def plan(arch: ArchBase, layer: Layer) -> TensorCorePlan:
    spec = tensor_core_spec(arch)
    gemm = layer.gemm()
    problem = gemm_problem(arch.word_bits, gemm.m, gemm.n, gemm.k, gemm.groups, runs_sparse(spec, arch.word_bits, layer),
                           hardware_pattern(spec, arch.word_bits), layer.quantized_weight_bits,
                           layer.quant_group_size or 0, group_scale_bits(layer), gemm.shared)
    check_groups(problem, layer.name)
    precision = layer_precision(spec, arch.name, layer)
    if precision is not None:   # W8A8 / FP8: 8-bit A and B at the 8-bit rate, fp32 per-row / per-column scales
        problem = dataclasses.replace(problem, precision=precision, a_bits=0)
        check_groups(dataclasses.replace(problem, a_group=problem.k), layer.name)
    scaling = block_scaling(spec, arch.name)
    if scaling is not None:   # block-scaled A and B (:mod:`.block_scaling`)
        check_layer(scaling, layer, problem.sparse)
        if problem.a_group:
            raise InputError.single(layer.name, "quant_group_size", f"block-scaled operands ({scaling.name}) carry "
                                    "their own scales per block; leave quant_group_size out")
        problem = dataclasses.replace(problem, scaling=scaling)   # its elements replace any weight-only width
    bits = element_bits(spec, problem)
    eligible = eligible_kernels(spec, problem)
    candidates = [(tile, split) for tile in eligible for split in dict.fromkeys((1, split_factor(spec, problem, tile)))]
    kernels = tuple(tile for tile, _ in candidates)
    grids = tuple(cta_grid(problem, tile, split) for tile, split in candidates)
    return TensorCorePlan(arch, spec, layer, problem, bits, kernels, grids,
                          l2_resident(spec, problem, bits))
