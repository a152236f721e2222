"""SCNN under DNNsim's rules on DNNsim's 19-layer SCNN preset shapes: the whole `accel-sim run` process
against DNNsim's own single-thread time on that preset (4.8 s of CPU, C++; bar: at least 2x faster).

    python benchmarks/bench_scnn_dnnsim_preset.py [--runs 5]

Runs ``accel-sim run --arch scnn_dnnsim --workload benchmarks/scnn_dnnsim_preset.yaml`` in N fresh
processes (after one warm-up run that fills numba's on-disk cache) and prints each one's CPU seconds
(user + system of the child, from getrusage: the machine may be shared, so wall time says little), their
median and the ratio DNNsim / accel_sim. The workload has the preset's shapes (AlexNet conv1-5, the
two-group layers one group per layer, and the GoogLeNet inception 4a and 5b convolutions: 20 layers listed,
a superset of the preset's 19) with generated operands at DNNsim-like densities: DNNsim's tensors are not
available here.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

from child_process import timed_run

REPO = Path(__file__).resolve().parents[1]
WORKLOAD = REPO / "benchmarks" / "scnn_dnnsim_preset.yaml"
DNNSIM_CPU_S = 4.8   # DNNsim (isakedo/DNNsim 4748a60), single thread, on its SCNN preset
BAR_RATIO = 2.0


def run_once() -> float:
    """CPU seconds of one fresh `accel-sim run` process."""
    command = [sys.executable, "-m", "accel_sim", "run", "--arch", "scnn_dnnsim", "--workload", str(WORKLOAD)]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    _, cpu, _ = timed_run(command, cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes timed (median reported)")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    run_once()   # warm-up: numba's cache on disk
    times = [run_once() for _ in range(args.runs)]
    median = statistics.median(times)
    ratio = DNNSIM_CPU_S / median
    print("CPU s per process: " + ", ".join(f"{t:.2f}" for t in times))
    print(f"median {median:.2f} s CPU; DNNsim {DNNSIM_CPU_S:.1f} s: {ratio:.2f}x faster "
          f"(bar: >= {BAR_RATIO:.0f}x) {'OK' if ratio >= BAR_RATIO else 'UNDER'}")
    return 0 if ratio >= BAR_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
