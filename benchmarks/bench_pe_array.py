"""PE-array fast path against its discrete-event reference (issue 22 bar: >= 100x on the benchmark layer).

Benchmark layer: AlexNet fc8 as shipped (``workloads/alexnet.yaml``: 4096 -> 1000, weights 25 %,
inputs 37.5 %), batch 1: one pixel tile, so the reference runs no more tiles than the fast path
counts (the hardest case for the ratio; conv layers with many pixel tiles are far above it).
Also measured: the same layer with whole filters pruned (``channel``, the worst case for
reassignment: rows of pruned filters steal every cycle) and a small conv slice. Levels
``skipping`` and ``reassignment`` (the two whose rows run unequal streams).

CPU seconds (``time.process_time``; the machine is shared): the fast path is the median of
``--repeat`` runs on the same plan, the reference one run; the plan (shared by both) is not timed.
Every pair's counters are checked equal. Run:

    python benchmarks/bench_pe_array.py [--repeat 5]
"""
from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accel_sim import load_arch, load_workload  # noqa: E402
from accel_sim.models.pe_array.family import FAMILY  # noqa: E402
from accel_sim.foundations.workload import ConvLayer  # noqa: E402
from accel_sim.foundations.workload.layer import OperandSource  # noqa: E402

BAR = 100.0


def layers():
    fc8 = next(layer for layer in load_workload("alexnet").layers if layer.name == "fc8")
    return {
        "alexnet fc8 (benchmark layer)": fc8,
        "alexnet fc8, channel-pruned": dataclasses.replace(fc8, operands=OperandSource(weight_pattern="channel")),
        "conv 7x7x512 -> 64, 3x3": ConvLayer("c", in_h=7, in_w=7, in_channels=512, out_channels=64, kernel_h=3,
                                            kernel_w=3, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1,
                                            weight_density=0.25, input_density=0.5),
    }


def cpu(function):
    start = time.process_time()
    value = function()
    return time.process_time() - start, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"{'level':14s} {'layer':32s} {'fast ms':>9s} {'ref s':>8s} {'ratio':>7s}")
    for level in ("pe_array_skipping", "pe_array_reassignment"):
        arch = load_arch(level)
        for name, layer in layers().items():
            plan = FAMILY.plan(arch, layer)
            runs = [cpu(lambda plan=plan: FAMILY.fast(plan)) for _ in range(args.repeat)]
            fast_s, counters = statistics.median(t for t, _ in runs), runs[0][1]
            ref_s, reference = cpu(lambda plan=plan: FAMILY.reference(plan))
            if reference != counters:
                raise SystemExit(f"{level} x {name}: fast and reference counters differ")
            ratio = ref_s / fast_s
            flag = "" if ratio >= BAR else f"  (< {BAR:.0f}x)"
            print(f"{level.removeprefix('pe_array_'):14s} {name:32s} {fast_s * 1e3:9.2f} {ref_s:8.2f} {ratio:7.0f}{flag}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
