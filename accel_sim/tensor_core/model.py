"""Ampere-style sparse tensor core: one layer in, one :class:`LayerResult` out.

A layer is run as one GEMM kernel on the GPU (conv layers as implicit GEMM on their GEMM
view, B being the im2col matrix). The kernel's tile shape is chosen like cuBLAS /
cuSPARSELt heuristics do: of the config's ``kernels`` that fit shared memory, the fastest
(first on ties), separately for the dense and the sparse run. Per-cycle behaviour:
:mod:`accel_sim.tensor_core.kernel_run`. Which layers run sparse:
:mod:`accel_sim.tensor_core.sparsity` (declared N:M checked against the hardware pattern,
actual weights checked with the ``NOfM`` format; no automatic pruning).

Two implementations give identical cycles and counts: :func:`simulate_layer` (per-CTA
numpy arrays and the pipeline's closed form, :mod:`timing`) and
:func:`simulate_layer_reference` (CTA by CTA, SimPy per stage, :mod:`reference`).

Why real 2:4 speed-ups stay below 2x, in this model's terms: the math per stage halves,
but only A shrinks (to ``(w + 2) / 2w`` of its bits with metadata); the dense operand B,
the warps' shared-memory reads of B and the C epilogue do not. A stage that was
math-bound dense becomes shared-memory- (or L2-, DRAM-) bound sparse; a GEMM whose
traffic is mostly B (few weights, many activations) gains nothing. ``bound`` names the
limiting path.
"""
from __future__ import annotations

import math
from types import MappingProxyType

from accel_sim.arch.spec import ArchSpec
from accel_sim.errors import InputError, SimulationError
from accel_sim.results.counts import ActionCount
from accel_sim.results.layer_result import LayerResult
from accel_sim.tensor_core.kernel_run import LATENCY_BOUND, PATHS, KernelRun
from accel_sim.tensor_core.problem import (
    BITS_PER_BYTE,
    REGISTER_BITS,
    SUPPORTED_WORD_BITS,
    TCProblem,
    element_bits,
    fits_shared_memory,
    hardware_pattern,
    k_span_per_mma,
    mma_bits,
    mma_read_bits,
)
from accel_sim.tensor_core.sparsity import check_weights, runs_sparse
from accel_sim.tensor_core.spec import KernelTile, TensorCoreSpec
from accel_sim.tensor_core.timing import kernel_timing
from accel_sim.workload.layer import Layer
from accel_sim.workload.operands import layer_operands, weight_matrix


def tensor_core_spec(arch: ArchSpec) -> TensorCoreSpec:
    spec = arch.section("tensor_core")
    if arch.word_bits not in SUPPORTED_WORD_BITS:
        raise InputError.single(arch.name, "word_bits", f"the tensor core runs {', '.join(map(str, SUPPORTED_WORD_BITS))}"
                                f"-bit words (INT8, FP16 / BF16, TF32), got {arch.word_bits}")
    return spec


def gemm_problem(spec: TensorCoreSpec, word_bits: int, m: int, n: int, k: int, sparse: bool,
                 groups: int = 1) -> TCProblem:
    """The tensor-core problem of a layer GEMM (output m x n = input m x k @ weights k x n)."""
    hw_n, hw_m = hardware_pattern(spec, word_bits)
    return TCProblem(m=n, n=m, k=k, groups=groups, word_bits=word_bits, sparse=sparse, nm_n=hw_n, nm_m=hw_m)


def eligible_kernels(spec: TensorCoreSpec, problem: TCProblem) -> tuple[KernelTile, ...]:
    """Kernels whose stages fit shared memory and whose stage K is whole MMAs of the mode."""
    span = k_span_per_mma(spec, problem)
    return tuple(t for t in spec.kernels if t.k % span == 0 and fits_shared_memory(spec, problem, t))


def best_kernel(spec: TensorCoreSpec, problem: TCProblem, reference: bool = False) -> KernelRun:
    """The fastest eligible kernel's run (the first one on ties)."""
    kernels = eligible_kernels(spec, problem)
    if not kernels:
        mode = "sparse" if problem.sparse else "dense"
        raise InputError.single("tensor_core", "kernels", f"no kernel fits shared memory "
                                f"({spec.shared_memory_size} B) with whole {mode} MMAs per stage")
    if reference:
        from accel_sim.tensor_core.reference import reference_kernel_timing as timing
    else:
        timing = kernel_timing
    runs = [timing(spec, problem, tile, spec.memory_latency) for tile in kernels]
    return min(runs, key=lambda r: r.cycles)  # min keeps the first of equal ones


def gemm_run(arch: ArchSpec, m: int, n: int, k: int, sparse: bool, reference: bool = False) -> KernelRun:
    """A plain GEMM on the arch (no operand tensors: for shape studies)."""
    spec = tensor_core_spec(arch)
    return best_kernel(spec, gemm_problem(spec, arch.word_bits, m, n, k, sparse and spec.sparse_support), reference)


def _bytes(bits: int) -> int:
    return math.ceil(bits / BITS_PER_BYTE)


def _math_classes(word_bits: int) -> tuple[str, str]:
    return ("mult_int", "add_int") if word_bits == 8 else ("mult_fp", "add_fp")


def layer_result(arch: ArchSpec, layer: Layer, run: KernelRun, hashes: dict[str, str]) -> LayerResult:
    spec, problem, totals = tensor_core_spec(arch), run.problem, run.totals
    bits = element_bits(spec, problem)
    w, meta = problem.word_bits, bits.a_metadata
    mma = mma_bits(spec, problem)
    products = totals["mmas"] * spec.mma_m * spec.mma_n * spec.mma_k   # executed, padding included
    dram_values = totals["dram_a"] + totals["dram_b"]
    l2_reads = totals["fill_a"] + totals["fill_b"]
    smem_reads = totals["read_a"] + totals["read_b"]
    rf_reads = math.ceil(totals["mmas"] * mma_read_bits(spec, problem) / REGISTER_BITS)
    rf_writes = math.ceil((totals["read_a"] * bits.a_slot + totals["read_b"] * bits.b_value
                           + totals["mmas"] * mma["d"]) / REGISTER_BITS)
    l2_size, smem_size = spec.l2_size, spec.shared_memory_size
    mult, add = _math_classes(w)
    actions = [
        ActionCount("dram", "dram", "read", dram_values, w),
        ActionCount("dram", "dram", "write", totals["c"], bits.c_value),
        ActionCount("l2", "sram", "write", dram_values + totals["c"], w, l2_size),
        ActionCount("l2", "sram", "read", l2_reads, w, l2_size),
        ActionCount("shared_memory", "sram", "write", l2_reads, w, smem_size),
        ActionCount("shared_memory", "sram", "read", smem_reads, w, smem_size),
        ActionCount("register_file", "register_file", "read", rf_reads, REGISTER_BITS, spec.register_file_size),
        ActionCount("register_file", "register_file", "write", rf_writes, REGISTER_BITS, spec.register_file_size),
        ActionCount("tensor_core", mult, "op", products, w),
        ActionCount("tensor_core", add, "op", products, spec.accumulator_bits),
    ]
    if problem.sparse:  # metadata rides with A at every level; the core selects B by it
        actions += [
            ActionCount("dram", "dram", "read", totals["dram_a"], meta),
            ActionCount("l2", "sram", "write", totals["dram_a"], meta, l2_size),
            ActionCount("l2", "sram", "read", totals["fill_a"], meta, l2_size),
            ActionCount("shared_memory", "sram", "write", totals["fill_a"], meta, smem_size),
            ActionCount("shared_memory", "sram", "read", totals["read_a"], meta, smem_size),
            ActionCount("operand_select", "mux", "select", products, w),
        ]
    groups = problem.groups
    useful = problem.m * problem.n * groups * problem.useful_products_per_row()
    a_bits = totals["dram_a"] * bits.a_slot
    metrics = {f"{p}_busy_cycles": float(run.busy[p]) for p in PATHS}
    # one 0 / 1 column per possible limiter: summed over a network, layers limited by each path
    metrics.update({f"bound_{p}": float(run.bound == p) for p in PATHS + (LATENCY_BOUND,)})
    metrics.update({
        "sparse": float(problem.sparse),
        "tile_m": float(run.tile.m), "tile_n": float(run.tile.n), "tile_k": float(run.tile.k),
        "warp_m": float(run.tile.warp_m), "warp_n": float(run.tile.warp_n),
        "waves": float(run.waves), "ctas": float(run.ctas),
        "executed_macs": float(products), "padding_macs": float(products - useful),
        "l2_resident": float(run.l2_resident),
        "dram_metadata_bytes": float(_bytes(totals["dram_a"] * meta)),
    })
    return LayerResult(
        layer=layer.name,
        cycles=run.cycles,
        compute_cycles=run.compute_cycles,
        stall_cycles=run.cycles - run.compute_cycles,
        macs_dense=layer.macs,
        macs_issued=useful,
        peak_macs_per_cycle=spec.sms * spec.tensor_cores_per_sm * spec.dense_macs_per_cycle,
        dram_read_bytes=_bytes(a_bits + totals["dram_b"] * bits.b_value),
        dram_write_bytes=_bytes(totals["c"] * bits.c_value),
        sram_read_bytes=_bytes((totals["fill_a"] + totals["read_a"]) * bits.a_slot
                               + (totals["fill_b"] + totals["read_b"]) * bits.b_value),
        sram_write_bytes=_bytes((totals["dram_a"] + totals["fill_a"]) * bits.a_slot
                                + (totals["dram_b"] + totals["fill_b"]) * bits.b_value + totals["c"] * bits.c_value),
        actions=tuple(actions),
        metrics=MappingProxyType(metrics),
        operand_hashes=MappingProxyType(dict(hashes)),
    )


def _run_layer(arch: ArchSpec, layer: Layer, reference: bool, max_cycles: int | None) -> LayerResult:
    spec = tensor_core_spec(arch)
    sparse = runs_sparse(spec, arch.word_bits, layer)
    ops = layer_operands(layer)
    if sparse:
        check_weights(spec, arch.word_bits, layer, weight_matrix(layer, ops.weights))
    gemm = layer.gemm()
    run = best_kernel(spec, gemm_problem(spec, arch.word_bits, gemm.m, gemm.n, gemm.k, sparse, gemm.groups), reference)
    if max_cycles is not None and run.cycles > max_cycles:
        raise SimulationError(f"{layer.name}: {run.cycles} cycles exceed the max_cycles guard {max_cycles}")
    return layer_result(arch, layer, run, ops.hashes)


def simulate_layer(arch: ArchSpec, layer: Layer, max_cycles: int | None = None) -> LayerResult:
    """Fast path: per-CTA numpy arrays and the pipeline's closed form."""
    return _run_layer(arch, layer, reference=False, max_cycles=max_cycles)


def simulate_layer_reference(arch: ArchSpec, layer: Layer, max_cycles: int | None = None) -> LayerResult:
    """Per-CTA, per-stage SimPy reference (slow; same results as :func:`simulate_layer`)."""
    return _run_layer(arch, layer, reference=True, max_cycles=max_cycles)
