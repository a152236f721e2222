"""Benchmark: the full sparsity-ladder study (issue 6 bar: under 60 s).

Run: ``python benchmarks/bench_sparsity_ladder.py``. Prints the measured wall time next
to the bar; no assertion (timings depend on the machine).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BAR_SECONDS = 60.0


def main() -> None:
    import matplotlib
    matplotlib.use("Agg")
    from accel_sim.studies.sparsity_ladder import sparsity_ladder

    start = time.perf_counter()
    output = sparsity_ladder()
    elapsed = time.perf_counter() - start
    print(f"sparsity-ladder study: {len(output.results)} points in {elapsed:.1f} s (bar: < {BAR_SECONDS:.0f} s)")


if __name__ == "__main__":
    main()
