"""Plan of a SIMT layer (pure): the sparse operand, the kernel's warp schedule and its occupancy.

A layer runs as one kernel (``simt.kernel``) on its GEMM view: C (M x N) = A (M x K, the
weights transposed, the sparse operand) x B (K x N). The schedule is built from the real operand
(its row lengths, column indices, blocks), so load imbalance and coalescing are the operand's.
Blocks, one module each: :mod:`.machine` (the section plus the shared A100 constants),
:mod:`.problem` (A, B, C), :mod:`.sectors` (coalescing), :mod:`.schedule` (the warp-work data and
occupancy), and one module per kernel family (:mod:`.csr`, :mod:`.spmm`, :mod:`.csb`,
:mod:`.gemm`, :mod:`.gemv`).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType

import numpy as np

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.memo import ShapeMemo
from accel_sim.foundations.errors import InputError
from accel_sim.models.simt.plan.csb import csb_beta, csb_spmv
from accel_sim.models.simt.plan.csb_spmm import csb_spmm
from accel_sim.models.simt.plan.merge_spmv import merge_spmv
from accel_sim.models.simt.plan.csr import csr_spmv
from accel_sim.models.simt.plan.gemm import bsr_gemm, dense_gemm, tile_of
from accel_sim.models.simt.plan.gemv import dense_gemv
from accel_sim.models.simt.plan.machine import Machine, machine
from accel_sim.models.simt.plan.problem import SparseProblem, sparse_problem
from accel_sim.models.simt.plan.schedule import Schedule, atomic_demands, l1_lines, occupancy
from accel_sim.models.simt.plan.sparsert import sparsert, sparsert_widths
from accel_sim.models.simt.plan.spmm import merge, sputnik
from accel_sim.models.simt.spec import SimtSpec
from accel_sim.foundations.workload.layer import Layer
from accel_sim.foundations.workload.operands import layer_operands


@dataclass(frozen=True, eq=False)
class Candidate:
    """One way to run the layer (a kernel with one tile choice) and what the machine allows it."""

    schedule: Schedule
    ctas_per_sm: int                 # resident CTAs per SM (occupancy, capped by the grid)
    dram_read_bytes: int             # compulsory footprint (with l2_overflow the counting paths take the listed
                                     # reads' L2 misses and every other sector requested from L2)
    dram_write_bytes: int
    l1_lines: int                    # lines of the SM's L1 data cache the kernel's carveout leaves
    l2_overflow: bool                # the footprint exceeds the L2: the counting paths walk the L2 model
    machine: Machine                 # what the atomic demands are computed with

    @cached_property
    def _atomic_demands(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:func:`~.schedule.atomic_demands`, made when a counting path first asks (the fast path asks only a
        candidate that may still be the fastest: a split-K GEMM lists every sector of its C tiles)."""
        return atomic_demands(self.machine, self.schedule)

    @property
    def atomic_cta(self) -> np.ndarray:
        """Per (CTA, L2 slice) with atomic requests: the CTA, CTA-major then slice ..."""
        return self._atomic_demands[0]

    @property
    def atomic_slice(self) -> np.ndarray:
        """... the slice ..."""
        return self._atomic_demands[1]

    @property
    def atomic_cycles(self) -> np.ndarray:
        """... and the slice's atomic-unit cycles."""
        return self._atomic_demands[2]


@dataclass(frozen=True, eq=False)
class SimtPlan:
    """The layer's candidates: one for a sparse kernel, one per tile for a dense GEMM (both counting
    paths time every candidate and keep the fastest, the first on ties, as cuBLAS heuristics do)."""

    arch: ArchBase
    spec: SimtSpec
    layer: Layer
    machine: Machine
    problem: SparseProblem
    candidates: tuple[Candidate, ...]

    @cached_property
    def operand_hashes(self) -> Mapping[str, str]:
        return MappingProxyType(dict(layer_operands(self.layer).hashes))


def _check_block(spec: SimtSpec, m: Machine, problem: SparseProblem, where: str) -> None:
    b = spec.block
    if problem.m % b or problem.k % b:
        raise InputError.single(where, "simt.block", f"block {b} does not divide the {problem.m} x {problem.k} "
                                "sparse operand (outputs x reduction); pick a block that divides both")
    if b % m.mma_n or b % 8:
        raise InputError.single(where, "simt.block", f"block {b} must be a multiple of the MMA's n ({m.mma_n}) "
                                "and of 8 (ldmatrix's 8 x 8 fragments) to fill tensor-core instructions")


def _check_nm(m: Machine, layer: Layer, where: str) -> None:
    nm = layer.weight_sparsity
    if nm is None or (nm.n, nm.m) != m.nm:
        raise InputError.single(where, "weight_sparsity", f"kernel nm_tensor_core runs layers marked "
                                f"{m.nm[0]}:{m.nm[1]}; layer {layer.name} is marked {nm or 'dense'}")


def build_schedules(spec: SimtSpec, m: Machine, arch: ArchBase, problem: SparseProblem,
                    layer: Layer) -> tuple[Schedule, ...]:
    where = f"{arch.name} / {layer.name}"
    dense_weights = layer.weight_density >= 1.0 and layer.weight_sparsity is None
    kernel = spec.dense_layers_kernel if spec.dense_layers_kernel and dense_weights else spec.kernel
    if kernel == "csr_scalar" or kernel == "csr_vector":
        return (csr_spmv(problem, m, spec, per_warp_rows=kernel == "csr_vector"),)
    if kernel == "sputnik":
        return (sputnik(problem, m, spec),)
    if kernel == "merge":
        return (merge(problem, m, spec),)
    if kernel == "sparsert":     # autotuned per layer: every (rows, columns) kernel, the fastest kept
        return tuple(sparsert(problem, m, spec, r, t) for r in spec.sparsert_rows for t in sparsert_widths(problem, spec))
    if kernel == "sparsert_conv":
        return tuple(sparsert(problem, m, spec, r, t, implicit_conv=True) for r in spec.sparsert_rows
                     for t in sparsert_widths(problem, spec))
    if kernel == "merge_spmv":
        return (merge_spmv(problem, m, spec),)
    if kernel == "csb_spmm":
        return (csb_spmm(problem, m, spec),)
    if kernel == "csb":
        return (csb_spmv(problem, m, spec, csb_beta(problem, spec)),)
    if kernel == "bsr":
        _check_block(spec, m, problem, where)
        return (bsr_gemm(problem, m, spec),)
    if kernel == "dense_gemv":
        return (dense_gemv(problem, m, spec),)
    tc = arch.tensor_core
    if kernel == "dense_simt":
        tiles = spec.sgemm_tiles
    elif kernel == "nm_tensor_core":
        _check_nm(m, layer, where)
        tiles = tc.sparse_kernels or tc.kernels
    else:
        tiles = tc.kernels
    splits = sorted({s for s in spec.split_k if s <= -(-problem.k // tiles[0].k)} | {1})   # a slice holds a step
    return tuple(dense_gemm(problem, m, spec, tile_of(t), kernel, s) for t in tiles for s in splits)


def candidate(m: Machine, spec: SimtSpec, schedule: Schedule, where: str) -> Candidate:
    # resident CTAs per SM: the occupancy limit, or fewer when the grid does not fill every SM that often
    resident = min(occupancy(m, schedule, where), -(-schedule.ctas // m.sms))
    read, write = schedule.dram_read_bytes, schedule.dram_write_bytes
    overflow = read + write > m.l2_size
    if not overflow and spec.warm_l2:                 # B arrives in L2 (its producer wrote it there), C stays there
        read, write = read - schedule.dense_operand_bytes, 0
    return Candidate(schedule, resident, read, write, l1_lines(m, schedule, resident), overflow, m)


SCHEDULE_BYTES = 64 << 20   # arrays of the schedules a process keeps for the next plans (the oldest go first)
_schedules = ShapeMemo(capacity=None, max_bytes=SCHEDULE_BYTES)


def schedules(spec: SimtSpec, m: Machine, arch: ArchBase, problem: SparseProblem, layer: Layer) -> tuple[Schedule, ...]:
    """:func:`build_schedules`, kept for the next plans of the layer whose arch differs only in what the candidates
    read and the schedules never do (``simt.warm_l2``, the atomic units' turn): a study asks for the same kernel on the
    same layer under such what-ifs. Schedules are pure data nobody edits."""
    key = (dataclasses.replace(spec, warm_l2=False, l2_atomic_cycles=0), dataclasses.replace(m, l2_atomic_cycles=0),
           arch.tensor_core, problem.value_bytes, layer)
    return _schedules.get(key, lambda: build_schedules(spec, m, arch, problem, layer))


def plan(arch: ArchBase, layer: Layer) -> SimtPlan:
    spec: SimtSpec = arch.section("simt")
    m = machine(arch)
    problem = sparse_problem(layer, arch.word_bits)
    where = f"{arch.name} / {layer.name}"
    candidates = tuple(candidate(m, spec, s, where) for s in schedules(spec, m, arch, problem, layer))
    return SimtPlan(arch, spec, layer, m, problem, candidates)
