"""Measured binary-CPU cases (``measured_hardware/binary_cpu.yaml``) on the CPU SIMD model.

A case whose device names a CPU preset (:data:`DEVICES`) runs here instead of through ``load_arch``: every
layer of its workload (or the one it names) takes the binary kernel's time or the fp32 GEMM's, one after the
other, on ``conditions.threads`` threads (default: every core). A layer is fp32 when the device is an fp32
baseline, when the workload says so (``precision: fp32``) or when ``conditions.full_precision_layers`` names it;
else binary, with the binary kernel ``conditions.kernel`` (``direct`` or ``bgemm``). With
``conditions.binarize_input`` each binary layer first packs its fp32 input (a network's Binarize layers, or
BMXNet's GEMM with its input binarized, at BMXNet's x86 cost). ``conditions.binary_layer_passes`` and
``fp32_layer_passes`` name the element-wise passes the library runs around each binary / fp32 layer (packing the
input's signs, batch norm, Bi-Real Net's shortcut add: :mod:`accel_sim.systems.cpu_simd.elementwise`), each timed
over that convolution's input or output tensor; ``conditions.layer_passes`` adds passes around named layers (the
pools next to them). Activations and the final global pool are not timed.
"""
from __future__ import annotations

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.measured import MeasuredCase, RunRef
from accel_sim.foundations.workload.layer import Layer
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.pipeline.measured import SimulatedCase
from accel_sim.systems.cpu_simd.elementwise import PASSES, pass_time
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


def passes_cycles(cpu: CpuSpec, layer: Layer, passes: tuple[str, ...], threads: int) -> float:
    """Cycles of the element-wise passes around one convolution, each over its input or output tensor (a
    classifier, the network's last layer, has none)."""
    if layer.kind != "conv":
        return 0.0
    elements = {"input": layer.input_elements, "output": layer.output_elements}
    return sum(pass_time(cpu, name, round(elements[PASSES[name].on] * PASSES[name].per_value), threads).cycles
               for name in passes)


def layer_cycles(cpu: CpuSpec, layer: Layer, fp32: bool, threads: int, kernel: str, pack: bool,
                 passes: tuple[str, ...] = ()) -> float:
    """Cycles of one layer: its GEMM view (groups one after the other), plus packing its input when asked and
    the element-wise ``passes`` around it."""
    gemm = layer.gemm()
    if fp32:
        return gemm.groups * fp32_gemm(cpu, gemm.m, gemm.k, gemm.n, threads).cycles + passes_cycles(
            cpu, layer, passes, threads)
    cycles = gemm.groups * binary_gemm(cpu, gemm.m, gemm.k, gemm.n, threads, kernel).cycles
    cycles += passes_cycles(cpu, layer, passes, threads)
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
    passes = {precision: _passes(run, conditions, f"{precision}_layer_passes") for precision in ("binary", "fp32")}
    named = conditions.get("layer_passes", {}) or {}
    if not isinstance(named, dict):
        raise InputError.single(run.device, "conditions.layer_passes", "expected a mapping of layer name to passes")
    layers = _layers(run)
    missing = sorted(set(named) - {layer.name for layer in layers})
    if missing:
        raise InputError.single(run.device, "conditions.layer_passes", f"no layer named {', '.join(missing)} in the run")
    cycles = 0.0
    for layer in layers:
        fp32 = baseline or layer.precision == "fp32" or layer.name in full
        around = passes["fp32" if fp32 else "binary"] + _passes(run, named, layer.name, "layer_passes.")
        cycles += layer_cycles(cpu, layer, fp32, threads, kernel, pack, around)
    return cycles / cpu.clock


def _passes(run: RunRef, conditions: dict, key: str, prefix: str = "") -> tuple[str, ...]:
    names = tuple(str(name) for name in conditions.get(key, ()))
    unknown = [name for name in names if name not in PASSES]
    if unknown:
        raise InputError.single(run.device, f"conditions.{prefix}{key}",
                                f"expected passes among {', '.join(PASSES)}, got {', '.join(unknown)}")
    return names


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
