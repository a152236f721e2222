"""Each family's fast path against its discrete-event reference on one benchmark layer (CPU seconds).

    python benchmarks/bench_fast_vs_reference.py [--family NAME ...] [--repeat 3]

Issue 22's bar: every family's fast path at least 100x faster than its reference. The plan is made
once (outside both timings, as `Family.refinement` does); fast and reference each count it, the
counters are checked equal, and the median CPU seconds of each path and their ratio are printed.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# family -> (arch config, workload, layer name): one layer each, big enough that the work dominates
LAYERS = {
    "systolic": ("tpu_like_128x128_ws", "resnet18", "layer2_0_conv2"),
    "systolic (USER)": ("scalesim_32x32_ws", "resnet18", "layer3_0_conv2"),
    "eie": ("eie", "lenet_300_100", "ip1"),
    "scnn": ("scnn", "alexnet", "conv3"),
    "pe_array": ("pe_array_reassignment", "alexnet", "conv3"),
    "tensor_core": ("ampere_a100", "resnet50", "layer1_0_conv2"),
    "cnvlutin": ("cnvlutin", "alexnet", "conv3"),
    "dlu": ("dlu", "resnet18", "layer2_0_conv2"),
    "lowbit": ("lowbit", "resnet18", "layer2_0_conv2"),
    "simt": ("ampere_a100_simt", "alexnet", "fc7"),
}


def measure(arch_name: str, workload: str, layer_name: str, repeat: int) -> tuple[float, float]:
    from accel_sim.config.loader import load_arch
    from accel_sim.family.contract import counter_differences
    from accel_sim.family.registry import family_of
    from accel_sim.scnn.plan.shared import forget
    from accel_sim.workload.loader import load_workload

    arch = load_arch(arch_name)
    network = load_workload(workload)
    names = [layer.name for layer in network.layers]
    layer = network.layers[names.index(layer_name)]
    family = family_of(arch)
    plan = family.plan(arch, layer)
    times = {"fast": [], "reference": []}
    results = {}
    for _ in range(repeat):
        for path, count in (("fast", family.fast), ("reference", family.reference)):
            forget()   # SCNN's per-layer memo would hand a repeated count its first run's vectors
            start = time.process_time()
            results[path] = count(plan, None)
            times[path].append(time.process_time() - start)
    differences = counter_differences(results["fast"], results["reference"])
    if differences:
        raise SystemExit(f"{arch_name} x {layer.name}: fast and reference differ: {differences[:3]}")
    return statistics.median(times["fast"]), statistics.median(times["reference"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", action="append", choices=sorted(LAYERS), help="only these (repeatable)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'family':18s} {'arch x workload:layer':48s} {'fast s':>9s} {'reference s':>12s} {'ratio':>8s}")
    for family in args.family or LAYERS:
        arch, workload, layer = LAYERS[family]
        fast, reference = measure(arch, workload, layer, args.repeat)
        ratio = reference / fast if fast > 0 else float("inf")
        print(f"{family:18s} {f'{arch} x {workload}:{layer}':48s} {fast:9.4f} {reference:12.3f} {ratio:8.0f}x"
              + ("" if ratio >= 100 else "  (below 100x)"), flush=True)


if __name__ == "__main__":
    main()
