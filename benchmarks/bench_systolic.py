"""Speed bar of issue 2: ResNet-18 (SCALE-Sim topology) on the 128x128 WS CALC config.

Bar: under 1.5 s of wall time and under 300 MB peak memory for the whole network
(SCALE-Sim 3.0.0 takes 131 s and 4.2 GB on this machine). Run:

    python benchmarks/bench_systolic.py [--repeat N]

The config and topology are SCALE-Sim's own files (``tests/data/scalesim/r18_tpu128_ws_calc``),
loaded as a user would (loading is reported separately). Wall time is the best of N passes
of ``simulate`` (fast path + energy costing) and, separately, of the bare per-layer model
(plan, fast path, accounting: ``FAMILY.layer_result``);
memory is the peak traced Python heap of one pass (tracemalloc) and the process's maximum
resident set (getrusage, imports included).
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accel_sim import load_arch, load_workload, simulate  # noqa: E402
from accel_sim.models.systolic.family import FAMILY  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "scalesim" / "r18_tpu128_ws_calc"
WALL_BAR_S = 1.5
MEMORY_BAR_MB = 300
BYTES_PER_MB = 1024 * 1024
KIB_PER_MB = 1024  # getrusage reports kilobytes on Linux


def best_time(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description="ResNet-18 on the 128x128 WS CALC systolic array")
    parser.add_argument("--repeat", type=int, default=3, help="passes; the best wall time is reported")
    args = parser.parse_args()
    start = time.perf_counter()
    arch = load_arch(next(DATA.glob("*.cfg")))
    network = load_workload(DATA / "Resnet18.csv")
    loaded = time.perf_counter()
    run = simulate(arch, network)
    wall = best_time(lambda: simulate(arch, network), args.repeat)
    model_only = best_time(lambda: [FAMILY.layer_result(arch, layer) for layer in network.layers], args.repeat)
    tracemalloc.start()
    simulate(arch, network)
    heap_mb = tracemalloc.get_traced_memory()[1] / BYTES_PER_MB
    tracemalloc.stop()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / KIB_PER_MB
    print(f"layers: {len(run.layers)}, total cycles: {sum(r.cycles for r in run.layers):,}")
    print(f"load: {loaded - start:.3f} s, simulate: {wall:.3f} s (model only: {model_only:.3f} s; "
          f"bar {WALL_BAR_S} s)")
    print(f"peak traced heap: {heap_mb:.1f} MB, peak RSS: {rss_mb:.0f} MB (bar {MEMORY_BAR_MB} MB)")
    ok = wall < WALL_BAR_S and rss_mb < MEMORY_BAR_MB
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
