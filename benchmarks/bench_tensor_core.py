"""Run time of the ampere-2to4 study (issue 6): 216 GEMM shapes x dense and 2:4 x every kernel.

No bar is set by the issue for this study; the figure printed next to it is the sparsity-ladder
bar of the same issue (a full study in under 60 s). Also printed: the fast path against the
per-stage SimPy reference on one mid-sized GEMM (the speed-up the fast path buys). Run:

    python benchmarks/bench_tensor_core.py [--repeat N]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from accel_sim import load_arch  # noqa: E402
from accel_sim.studies.ampere_2to4 import SIZES, TWO_FOUR, ampere_2to4  # noqa: E402
from accel_sim.models.tensor_core.family import FAMILY  # noqa: E402
from accel_sim.foundations.workload import GemmLayer  # noqa: E402

STUDY_BAR_S = 60.0          # issue 6's bar for a full study (sparsity-ladder), applied here too
REFERENCE_SHAPE = (1024, 1024, 1024)


def best_time(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
        if hasattr(result, "figure"):
            plt.close(result.figure)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    study = best_time(ampere_2to4, args.repeat)
    print(f"ampere-2to4 study ({len(SIZES) ** 3} shapes, dense + 2:4): {study:.2f} s  (bar {STUDY_BAR_S:.0f} s)")
    arch = load_arch("ampere_a100")
    m, n, k = REFERENCE_SHAPE
    layer = GemmLayer("gemm", m=m, k=k, n=n, weight_sparsity=TWO_FOUR)
    fast = best_time(lambda: FAMILY.counters(arch, layer), args.repeat)
    reference = best_time(lambda: FAMILY.counters(arch, layer, reference=True), 1)
    print(f"one {m}x{n}x{k} 2:4 GEMM, every kernel: fast path {1000 * fast:.1f} ms, "
          f"SimPy reference {1000 * reference:.1f} ms ({reference / fast:.0f}x)")
    return 0 if study < STUDY_BAR_S else 1


if __name__ == "__main__":
    sys.exit(main())
