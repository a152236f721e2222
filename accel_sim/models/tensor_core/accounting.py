"""Tensor-core counters -> actions and bytes.

Memory hierarchy, per element: DRAM -> L2 (written once per DRAM read) -> shared memory (cp.async
fills: an L2 read and a shared-memory write) -> registers (ldmatrix: a shared-memory read and a
register write) -> tensor core (register reads of A, metadata, B and C per MMA; D written back).
Outputs go through L2 to DRAM. With 2:4 weights the metadata rides with A at every level and the
core selects B by it (one operand select per product); so do group-wise quantization scales (a scale and
zero point per ``quant_group_size`` weights along K, W4A16's). Split-K partial tiles stay in L2: each
slice but the last writes its FP32 partial there and each but the first reads the running one
(as many reads as writes). Products counted are the executed ones
(padding included); ``macs_issued`` the useful ones (kept positions inside K).
"""
from __future__ import annotations

import math
from types import MappingProxyType

from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.models.tensor_core.counters import LATENCY_BOUND, PATHS, TensorCoreCounters
from accel_sim.models.tensor_core.plan import TensorCorePlan
from accel_sim.models.tensor_core.plan.mma import (
    REGISTER_BITS,
    macs_per_cycle,
    mma_bits,
    mma_read_bits,
    products_per_mma,
    scale_applications,
)
from accel_sim.models.tensor_core.plan.problem import BITS_PER_BYTE
from accel_sim.models.tensor_core.plan.tiling import stage_fill_bits


def _bytes(bits: int) -> int:
    return math.ceil(bits / BITS_PER_BYTE)


def _moved(component: str, component_class: str, action: str, *parts: tuple[int, int],
           capacity: int = 0) -> list[ActionCount]:
    """One action per width of the (count, bits) parts; parts of one width are one action."""
    widths: dict[int, int] = {}
    for count, bits in parts:
        widths[bits] = widths.get(bits, 0) + count
    return [ActionCount(component, component_class, action, count, bits, capacity) for bits, count in widths.items()]


def _math_classes(integer: bool) -> tuple[str, str]:
    return ("mult_int", "add_int") if integer else ("mult_fp", "add_fp")


def _block_scale_actions(plan: TensorCorePlan, counters: TensorCoreCounters) -> list[ActionCount]:
    """Block scales (MX / NVFP4): 8-bit scales ride with A and B at every level; the tensor core combines
    a block's two scales (E8M0: an exponent add; E4M3: a multiply) and aligns its partial sum (a shift)."""
    spec, bits, scaling = plan.spec, plan.bits, plan.problem.scaling
    if scaling is None:
        return []
    sb, l2_size, smem_size = bits.scale_bits, spec.l2_size, spec.shared_memory_size

    def s(elements: int) -> int:   # scales of whole blocks of K (the plan checked divisibility)
        return elements // bits.block

    applied = counters.mmas * scale_applications(spec, plan.problem)
    combine = ("add_int", 8) if scaling.scale_kind == "e8m0" else ("mult_fp", 8)
    return [
        ActionCount("dram", "dram", "read", s(counters.dram_a) + s(counters.dram_b), sb),
        ActionCount("l2", "sram", "write", s(counters.dram_a) + s(counters.dram_b), sb, l2_size),
        ActionCount("l2", "sram", "read", s(counters.fill_a) + s(counters.fill_b), sb, l2_size),
        ActionCount("shared_memory", "sram", "write", s(counters.fill_a) + s(counters.fill_b), sb, smem_size),
        ActionCount("shared_memory", "sram", "read", s(counters.read_a) + s(counters.read_b), sb, smem_size),
        ActionCount("scale_unit", combine[0], "op", applied, combine[1]),
        ActionCount("scale_unit", "shift", "op", applied, spec.accumulator_bits),
    ]


def _group_scale_actions(plan: TensorCorePlan, counters: TensorCoreCounters) -> list[ActionCount]:
    """Group-wise quantization scales (W4A16's scale and zero point per group of K of a weight row) ride with
    A at every level: DRAM, L2, shared memory (counted in groups of ``a_group_bits``; the dequantization that
    applies them happens in registers, with the weights')."""
    bits, spec = plan.bits, plan.spec
    if not bits.a_group or plan.problem.precision is not None:   # W8A8 / FP8 scales: _channel_scale_actions
        return []
    gb, l2_size, smem_size = bits.a_group_bits, spec.l2_size, spec.shared_memory_size

    def g(slots: int) -> int:   # groups (whole, or a share rounded up) of ``slots`` A slots
        return -(-bits.group_stream(slots) // gb)

    return [
        ActionCount("dram", "dram", "read", g(counters.dram_a), gb),
        ActionCount("l2", "sram", "write", g(counters.dram_a), gb, l2_size),
        ActionCount("l2", "sram", "read", g(counters.fill_a), gb, l2_size),
        ActionCount("shared_memory", "sram", "write", g(counters.fill_a), gb, smem_size),
        ActionCount("shared_memory", "sram", "read", g(counters.read_a), gb, smem_size),
    ]


def _channel_scale_actions(plan: TensorCorePlan, counters: TensorCoreCounters) -> list[ActionCount]:
    """W8A8 / FP8 scales: an fp32 scale per A row and per B column rides with its operand at every level
    (counted in whole scales, a share rounded up); the epilogue applies both to every output (two multiplies)."""
    bits, spec, precision = plan.bits, plan.spec, plan.problem.precision
    if precision is None:
        return []
    sb, l2_size, smem_size = precision.scale_bits, spec.l2_size, spec.shared_memory_size

    def s(a_slots: int, b_elements: int) -> int:
        return -(-bits.group_stream(a_slots) // sb) + -(-bits.b_group_stream(b_elements) // sb)

    return [
        ActionCount("dram", "dram", "read", s(counters.dram_a, counters.dram_b), sb),
        ActionCount("l2", "sram", "write", s(counters.dram_a, counters.dram_b), sb, l2_size),
        ActionCount("l2", "sram", "read", s(counters.fill_a, counters.fill_b), sb, l2_size),
        ActionCount("shared_memory", "sram", "write", s(counters.fill_a, counters.fill_b), sb, smem_size),
        ActionCount("shared_memory", "sram", "read", s(counters.read_a, counters.read_b), sb, smem_size),
        ActionCount("scale_unit", "mult_fp", "op", 2 * counters.c, sb),
    ]


def account(plan: TensorCorePlan, counters: TensorCoreCounters) -> LayerResult:
    spec, problem, bits, layer = plan.spec, plan.problem, plan.bits, plan.layer
    tile = plan.kernels[counters.kernel]
    w, meta = problem.word_bits, bits.a_metadata
    mma = mma_bits(spec, problem)
    products = counters.mmas * products_per_mma(spec, problem)   # executed, padding included
    rf_reads = math.ceil(counters.mmas * mma_read_bits(spec, problem) / REGISTER_BITS)
    rf_writes = math.ceil((bits.a_stream(counters.read_a) + bits.b_stream(counters.read_b)
                           + counters.mmas * mma["d"]) / REGISTER_BITS)
    l2_size, smem_size = spec.l2_size, spec.shared_memory_size
    scaling = problem.scaling
    precision = problem.precision
    integer = precision.integer if precision is not None else (w == 8 if scaling is None else scaling.integer)
    mult, add = _math_classes(integer)   # INT8 / MXINT8 / W8A8: integer math
    operand_bits = precision.element_bits if precision is not None else (w if scaling is None else scaling.element_bits)
    a = bits.a_value  # = w unless the weights are quantized (then A and B move at their own widths)
    b, c = bits.b_value, bits.c_value   # = w unless block-scaled (narrow elements, C at the word width)
    actions = [
        *_moved("dram", "dram", "read", (counters.dram_a, a), (counters.dram_b, b)),
        ActionCount("dram", "dram", "write", counters.c, c),
        *_moved("l2", "sram", "write", (counters.dram_a, a), (counters.dram_b, b), (counters.c, c), capacity=l2_size),
        *_moved("l2", "sram", "read", (counters.fill_a, a), (counters.fill_b, b), capacity=l2_size),
        *_moved("shared_memory", "sram", "write", (counters.fill_a, a), (counters.fill_b, b), capacity=smem_size),
        *_moved("shared_memory", "sram", "read", (counters.read_a, a), (counters.read_b, b), capacity=smem_size),
        ActionCount("register_file", "register_file", "read", rf_reads, REGISTER_BITS, spec.register_file_size),
        ActionCount("register_file", "register_file", "write", rf_writes, REGISTER_BITS, spec.register_file_size),
        *([ActionCount("l2", "sram", "write", counters.partial // 2, spec.accumulator_bits, l2_size),
           ActionCount("l2", "sram", "read", counters.partial // 2, spec.accumulator_bits, l2_size)]
          if counters.partial else []),
        ActionCount("tensor_core", mult, "op", products, operand_bits),
        ActionCount("tensor_core", add, "op", products, spec.accumulator_bits),
    ]
    if problem.sparse:  # metadata rides with A at every level; the core selects B by it
        actions += [
            ActionCount("dram", "dram", "read", counters.dram_a, meta),
            ActionCount("l2", "sram", "write", counters.dram_a, meta, l2_size),
            ActionCount("l2", "sram", "read", counters.fill_a, meta, l2_size),
            ActionCount("shared_memory", "sram", "write", counters.fill_a, meta, smem_size),
            ActionCount("shared_memory", "sram", "read", counters.read_a, meta, smem_size),
            ActionCount("operand_select", "mux", "select", products, w),
        ]
    actions += _block_scale_actions(plan, counters) + _group_scale_actions(plan, counters) \
        + _channel_scale_actions(plan, counters)
    useful = problem.m * problem.n * problem.groups * problem.useful_products_per_row()
    bound = counters.bound
    metrics = {f"{p}_busy_cycles": float(counters.busy(p)) for p in PATHS}
    # one 0 / 1 column per possible limiter: summed over a network, layers limited by each path
    metrics.update({f"bound_{p}": float(bound == p) for p in PATHS + (LATENCY_BOUND,)})
    metrics.update({
        "sparse": float(problem.sparse),
        "tile_m": float(tile.m), "tile_n": float(tile.n), "tile_k": float(tile.k),
        "warp_m": float(tile.warp_m), "warp_n": float(tile.warp_n),
        # the kernel's software pipeline: its stages and the shared memory one stage fills (A with metadata, B)
        "stages": float(tile.stages), "stage_fill_bits": float(stage_fill_bits(spec, problem, tile)),
        "waves": float(counters.waves), "ctas": float(counters.ctas), "split_k": float(counters.split),
        "executed_macs": float(products), "padding_macs": float(products - useful),
        "l2_resident": float(plan.l2_resident),
        "dram_metadata_bytes": float(_bytes(counters.dram_a * meta)),
    })
    if scaling is not None:   # only block-scaled runs carry these columns (shipped results unchanged)
        metrics.update({"element_bits": float(scaling.element_bits), "block_size": float(scaling.block),
                        "dram_scale_bytes": float(_bytes(bits.scale_stream(counters.dram_a)
                                                         + bits.scale_stream(counters.dram_b)))})
    if precision is not None:   # only W8A8 / FP8 runs carry these columns (shipped results unchanged)
        metrics.update({"element_bits": float(precision.element_bits),
                        "dram_weight_scale_bytes": float(_bytes(bits.group_stream(counters.dram_a))),
                        "dram_activation_scale_bytes": float(_bytes(bits.b_group_stream(counters.dram_b)))})
    elif bits.a_group:   # only runs with group-wise scales carry these columns (shipped results unchanged)
        metrics.update({"quant_group_size": float(problem.a_group),
                        "dram_group_scale_bytes": float(_bytes(bits.group_stream(counters.dram_a)))})
    return LayerResult(
        layer=layer.name,
        cycles=counters.cycles,
        compute_cycles=counters.compute_cycles,
        stall_cycles=counters.cycles - counters.compute_cycles,
        macs_dense=layer.macs,
        macs_issued=useful,
        peak_macs_per_cycle=spec.sms * spec.tensor_cores_per_sm * macs_per_cycle(spec, problem),
        dram_read_bytes=_bytes(bits.a_stream(counters.dram_a) + bits.b_stream(counters.dram_b)),
        dram_write_bytes=_bytes(counters.c * bits.c_value),
        sram_read_bytes=_bytes(bits.a_stream(counters.fill_a + counters.read_a)
                               + bits.b_stream(counters.fill_b + counters.read_b)
                               + counters.partial // 2 * spec.accumulator_bits),
        sram_write_bytes=_bytes(bits.a_stream(counters.dram_a + counters.fill_a)
                                + bits.b_stream(counters.dram_b + counters.fill_b) + counters.c * bits.c_value
                                + counters.partial // 2 * spec.accumulator_bits),
        actions=tuple(actions),
        metrics=MappingProxyType(metrics),
        operand_hashes=plan.operand_hashes,
    )
