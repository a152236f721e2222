"""Bars of issue 18, measured: the ``distributed-training`` study (1-64 devices, every technique on and off,
AlexNet and ResNet-50, precision and power cap) under 60 s, its 1.8x row, the range of that row over
the unpublished settings (``distributed-training-unknowns``), and the training-memory bars.

Runs the studies as ``accel-sim reproduce`` does into a temporary folder and prints CPU seconds
(time.process_time) and wall seconds, then each bar with the measured figure.

    python benchmarks/bench_training_cluster.py
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import matplotlib  # noqa: E402

matplotlib.use("Agg")

from accel_sim.studies.registry import all_studies, write_study  # noqa: E402

TIME_BAR_S = 60.0


def main() -> None:
    studies = all_studies()
    with tempfile.TemporaryDirectory() as folder:
        for name in ("distributed-training", "distributed-training-unknowns", "training-memory"):
            cpu, wall = time.process_time(), time.perf_counter()
            output = write_study(studies[name], Path(folder) / name)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            bar = f" (bar < {TIME_BAR_S:.0f} s: {'met' if cpu < TIME_BAR_S else 'NOT met'})" \
                if name == "distributed-training" else ""
            print(f"{name}: {cpu:.1f} s CPU, {wall:.1f} s wall{bar}")
            for c in output.comparisons:
                verdict = "" if c.within_tolerance is None else (" met" if c.within_tolerance else " NOT met")
                published = "-" if c.published is None else f"{c.published:g}"
                print(f"  {c.quantity}: published {published}, simulated {c.simulated:.3f}{verdict}")


if __name__ == "__main__":
    main()
