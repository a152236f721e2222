"""Measured binary-CPU cases (``measured_hardware/binary_cpu.yaml``) on the CPU SIMD model.

A case whose device names a CPU preset (:data:`DEVICES`) runs here instead of through ``load_arch``: every
layer of its workload (or the one it names) takes the binary kernel's time or the fp32 GEMM's, one after the
other, on ``conditions.threads`` threads (default: every core). A layer is fp32 when the device is an fp32
baseline, when the workload says so (``precision: fp32``) or when ``conditions.full_precision_layers`` names it;
else binary, with the binary kernel ``conditions.kernel`` (``direct`` or ``bgemm``). With
``conditions.binarize_input`` each binary layer first packs its fp32 input (a network's Binarize layers, or
BMXNet's GEMM with its input binarized). Shortcuts, batch norm, pooling and activations are not timed.
"""
from __future__ import annotations

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.measured import MeasuredCase, RunRef
from accel_sim.foundations.workload.layer import Layer
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.pipeline.measured import SimulatedCase
from accel_sim.systems.cpu_simd.gemm import KERNELS, binarize, binary_gemm, fp32_gemm
from accel_sim.systems.cpu_simd.spec import HASWELL_SSE, PIXEL1_KRYO, RPI4_CORTEX_A72, CpuSpec

FAMILY = "cpu_simd"
# device name -> (core, every layer fp32: a baseline run)
DEVICES: dict[str, tuple[CpuSpec, bool]] = {
    "haswell_sse": (HASWELL_SSE, False), "haswell_sse_fp32": (HASWELL_SSE, True),
    "pixel1_kryo": (PIXEL1_KRYO, False), "rpi4_cortex_a72": (RPI4_CORTEX_A72, False),
}


def _layers(run: RunRef) -> tuple[Layer, ...]:
    network = load_workload(run.workload)
    if run.layer is None:
        return network.layers
    chosen = tuple(layer for layer in network.layers if layer.name == run.layer)
    if not chosen:
        raise InputError.single(run.workload, "layer", f"no layer named {run.layer!r} in {network.name}")
    return chosen


def layer_cycles(cpu: CpuSpec, layer: Layer, fp32: bool, threads: int, kernel: str, pack: bool) -> float:
    """Cycles of one layer: its GEMM view (groups one after the other), plus packing its input when asked."""
    gemm = layer.gemm()
    if fp32:
        return gemm.groups * fp32_gemm(cpu, gemm.m, gemm.k, gemm.n, threads).cycles
    cycles = gemm.groups * binary_gemm(cpu, gemm.m, gemm.k, gemm.n, threads, kernel).cycles
    if pack:
        channels = layer.input_elements // max(gemm.m, 1) if layer.kind != "conv" else layer.in_channels
        cycles += binarize(cpu, channels, layer.input_elements // channels, threads).cycles
    return cycles


def run_seconds(run: RunRef, conditions: dict) -> float:
    """Seconds of ``run`` on its CPU device under the case's conditions."""
    cpu, baseline = DEVICES[run.device]
    threads = int(conditions.get("threads", cpu.cores))
    kernel = str(conditions.get("kernel", "direct"))
    if kernel not in KERNELS:
        raise InputError.single(run.device, "conditions.kernel", f"expected one of {', '.join(KERNELS)}, got {kernel!r}")
    full = set(conditions.get("full_precision_layers", ()))
    pack = bool(conditions.get("binarize_input", False))
    cycles = sum(layer_cycles(cpu, layer, baseline or layer.precision == "fp32" or layer.name in full, threads,
                              kernel, pack) for layer in _layers(run))
    return cycles / cpu.clock


def simulate_cpu_case(case: MeasuredCase) -> SimulatedCase | None:
    """The simulated figure of a case on a CPU device; None when its device is no CPU preset."""
    if case.device not in DEVICES:
        return None
    seconds = run_seconds(case.run, case.conditions)
    if case.quantity == "speedup":
        return SimulatedCase(run_seconds(case.baseline, case.conditions) / seconds, FAMILY, seconds)
    if case.quantity != "time_s":
        raise InputError.single(case.name, "quantity", f"a CPU case measures time_s or speedup, got {case.quantity!r}")
    return SimulatedCase(seconds, FAMILY, seconds)
