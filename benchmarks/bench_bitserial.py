"""Speed bar of issue 40: the bitserial fast path >= 100x its SimPy reference on a benchmark layer, both
measured in this one run on the same plan; and the fast path's cost per step across DNNsim's AlexNet
layers (cost grows no faster than the work). Run:

    python benchmarks/bench_bitserial.py [--config bitserial_dnnsim_bitpragmatic_b2_cr1_booth] [--layer conv5_g0]

The benchmark layer is DNNsim's AlexNet conv5 (group 0) on its quantized tensor set B
(tests/data/dnnsim_bitserial): 192 x 13 x 13 inputs, 128 filters of 192 x 3 x 3, 1188 steps of 16 windows;
the default design, Bit-Pragmatic with Booth terms and one column register, runs the two-stage shifter per
window and the run-ahead timeline. The ratio is of CPU time (time.process_time; the fast path's best of 5\nruns), printed beside wall time, with the load average.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accel_sim import load_arch, load_workload  # noqa: E402
from accel_sim.models.bitserial.family import FAMILY  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "dnnsim_bitserial"
RATIO_BAR = 100.0


def cpu_seconds() -> float:
    return time.process_time()


def timed(function):
    wall, cpu = time.perf_counter(), cpu_seconds()
    value = function()
    return value, time.perf_counter() - wall, cpu_seconds() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description="bitserial fast path vs reference")
    parser.add_argument("--config", default="bitserial_dnnsim_bitpragmatic_b2_cr1_booth")
    parser.add_argument("--layer", default="conv5_g0")
    parser.add_argument("--set", default="B", choices=("A", "B"))
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    arch = load_arch(args.config)
    layers = {layer.name: layer for layer in load_workload(DATA / f"{args.set}_alexnet_split.yaml").layers}
    plan = FAMILY.plan(arch, layers[args.layer])
    runs = [timed(lambda: FAMILY.fast(plan)) for _ in range(5)]     # the best of 5: the fast path is short
    fast, fast_wall, fast_cpu = min(runs, key=lambda run: run[2])
    ref, ref_wall, ref_cpu = timed(lambda: FAMILY.reference(plan))
    assert fast == ref, "fast and reference disagree"
    ratio = ref_cpu / fast_cpu
    print(f"{args.config} on {args.set} {args.layer}: {fast.cycles:,} cycles, {fast.steps:,} steps")
    print(f"  fast      wall {fast_wall:.3f} s, cpu {fast_cpu:.3f} s")
    print(f"  reference wall {ref_wall:.2f} s, cpu {ref_cpu:.2f} s")
    print(f"  ratio (cpu) {ratio:.0f}x, (wall) {ref_wall / fast_wall:.0f}x   (bar: >= {RATIO_BAR:.0f}x) "
          f"{'OK' if ratio >= RATIO_BAR else 'UNDER'}")
    print("fast path cost per step across the layers (same design):")
    for name, layer in layers.items():
        layer_plan = FAMILY.plan(arch, layer)
        counters, wall, cpu = timed(lambda: FAMILY.fast(layer_plan))
        print(f"  {name:9s} {counters.steps:6d} steps  cpu {cpu:.3f} s  {1e6 * cpu / counters.steps:7.1f} us/step")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0 if ratio >= RATIO_BAR else 1


if __name__ == "__main__":
    raise SystemExit(main())
