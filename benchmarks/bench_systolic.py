"""Speed bar of issue 2: ResNet-18 (SCALE-Sim topology) on the 128x128 WS CALC config.

Bar: under 1.5 s of wall time and under 300 MB peak memory for the whole network
(SCALE-Sim 3.0.0 takes 131 s and 4.2 GB on this machine). Run:

    python benchmarks/bench_systolic.py

Wall time is measured around `simulate` (loading excluded, reported separately); peak
memory is the process's maximum resident set (imports included), from getrusage.
"""
from __future__ import annotations

import resource
import time
from pathlib import Path

from accel_sim import load_arch, load_workload, simulate

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "scalesim" / "r18_tpu128_ws_calc"
WALL_BAR_S = 1.5
MEMORY_BAR_MB = 300


def main() -> None:
    start = time.perf_counter()
    arch = load_arch(next(DATA.glob("*.cfg")))
    network = load_workload(DATA / "Resnet18.csv")
    loaded = time.perf_counter()
    run = simulate(arch, network)
    done = time.perf_counter()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    wall = done - loaded
    print(f"layers: {len(run.layers)}, total cycles: {sum(r.cycles for r in run.layers):,}")
    print(f"load: {loaded - start:.3f} s, simulate: {wall:.3f} s (bar {WALL_BAR_S} s), "
          f"peak RSS: {peak_mb:.0f} MB (bar {MEMORY_BAR_MB} MB)")
    print("PASS" if wall < WALL_BAR_S and peak_mb < MEMORY_BAR_MB else "FAIL")


if __name__ == "__main__":
    main()
