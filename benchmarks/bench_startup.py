"""Start-up, whole process: ``accel-sim --help`` and a small run (``tpu_like_128x128_ws`` on ``tiny_conv``, three
layers, report and figure), each a fresh process, medians of ``--repeat`` (wall and CPU of the child).

Bars (the speed issue): ``--help`` under 0.3 s, a one-layer run under 0.6 s (the run here has three layers, so it is
the harder case). Run:

    python benchmarks/bench_startup.py [--repeat 7]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from child_process import timed_run

HELP_BAR_S = 0.3
RUN_BAR_S = 0.6


def timed(command: list[str]) -> tuple[float, float]:
    wall, cpu, _ = timed_run(command, stdout=subprocess.DEVNULL, check=True)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    python = [sys.executable, "-m", "accel_sim"]
    helps = [timed(python + ["--help"]) for _ in range(args.repeat)]
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            shutil.rmtree(f"{tmp}/out", ignore_errors=True)
            runs.append(timed(python + ["run", "--arch", "tpu_like_128x128_ws", "--workload", "tiny_conv",
                                        "--out", f"{tmp}/out"]))
    print(f"load average {os.getloadavg()[0]:.2f}")
    for name, samples, bar in (("accel-sim --help", helps, HELP_BAR_S), ("a tiny_conv run", runs, RUN_BAR_S)):
        wall, cpu = statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)
        print(f"{name}: {wall:.3f} s wall, {cpu:.3f} s CPU (median of {args.repeat}); bar < {bar} s: "
              f"{'met' if wall < bar else 'missed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
