"""Speed bars of issue 5: the whole VGG-16 conv stack at the pruned densities on SCNN (< 30 s)
and the density sweep (synthetic GoogLeNet, 10 densities x 5 designs, < 120 s). Run:

    python benchmarks/bench_scnn.py [--skip-sweep]

The sweep runs its densities in one process per CPU (``scnn_density_sweep``'s default; the
results equal a serial run). Wall time (time.perf_counter) and CPU time (this process and its
finished children, from os.times: less sensitive to other jobs on a shared machine) are printed
next to each bar, with the machine's load average so a loaded run can be recognised.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accel_sim import load_arch, simulate  # noqa: E402
from accel_sim.studies.scnn_common import conv_network  # noqa: E402

VGG_BAR_S = 30.0
SWEEP_BAR_S = 120.0


def cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def timed(function):
    wall, cpu = time.perf_counter(), cpu_seconds()
    value = function()
    return value, time.perf_counter() - wall, cpu_seconds() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description="SCNN speed bars")
    parser.add_argument("--skip-sweep", action="store_true", help="only the VGG-16 bar")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    arch, network = load_arch("scnn"), conv_network("vgg16")
    run, wall, cpu = timed(lambda: simulate(arch, network))
    total = run.summary_frame().iloc[0]
    print(f"VGG-16 conv (13 layers) on SCNN: {int(total['cycles']):,} cycles, {total['energy_pj'] / 1e6:.1f} uJ")
    print(f"  wall {wall:.1f} s, cpu {cpu:.1f} s   (bar: < {VGG_BAR_S:.0f} s) "
          f"{'OK' if wall < VGG_BAR_S else 'OVER'}")
    ok = wall < VGG_BAR_S
    if not args.skip_sweep:
        import matplotlib
        matplotlib.use("Agg")
        from accel_sim.studies.scnn_density_sweep import scnn_density_sweep
        out, wall, cpu = timed(scnn_density_sweep)
        print(f"density sweep ({len(out.results)} points): wall {wall:.1f} s, cpu {cpu:.1f} s   "
              f"(bar: < {SWEEP_BAR_S:.0f} s) {'OK' if wall < SWEEP_BAR_S else 'OVER'}")
        ok = ok and wall < SWEEP_BAR_S
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
