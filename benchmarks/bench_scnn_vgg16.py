"""Issue 22's SCNN bar: VGG-16 with its FC layers on SCNN in < 8 CPU-s and < 600 MB peak RSS. Run:

    python benchmarks/bench_scnn_vgg16.py [--repeat 3] [--arch scnn] [--workload vgg16] [--layers fc6 ...]

Each measurement is a fresh process (``python -c`` of :func:`child`): it imports accel_sim,
loads the arch and workload and runs ``simulate`` on every layer (or only ``--layers``). The
child prints its CPU seconds (``resource.getrusage(RUSAGE_SELF)`` user + system, over the
whole process: imports, operand generation, simulation; and of the ``simulate`` call alone)
and its peak RSS (``ru_maxrss``, the whole process). The bar is read on the whole process. The median over ``--repeat`` runs is compared with the bars, next to the
machine's load average (the CPU figures of a loaded shared machine move by 20-30 %).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CPU_BAR_S = 8.0
RSS_BAR_MB = 600.0

CHILD = """
import json, resource, sys
sys.path.insert(0, {root!r})
from accel_sim import load_arch, load_workload, simulate
import dataclasses
def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
arch, network = load_arch({arch!r}), load_workload({workload!r})
layers = {layers!r}
if layers:
    network = dataclasses.replace(network, layers=tuple(layer for layer in network.layers if layer.name in layers))
start = cpu()
run = simulate(arch, network)
simulated = cpu() - start
cycles = int(run.summary_frame().iloc[0]["cycles"])
print(json.dumps({{"cpu_s": cpu(), "simulate_cpu_s": simulated, "cycles": cycles,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def child(arch: str, workload: str, layers: list[str]) -> dict:
    """CPU seconds, peak RSS (MB) and total cycles of one fresh process running the network."""
    code = CHILD.format(root=str(ROOT), arch=arch, workload=workload, layers=layers)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description="SCNN on VGG-16 with FC layers: CPU seconds and peak RSS")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--arch", default="scnn")
    parser.add_argument("--workload", default="vgg16")
    parser.add_argument("--layers", nargs="*", default=[], help="only these layers (default: all)")
    args = parser.parse_args()
    runs = []
    for i in range(args.repeat):
        load = os.getloadavg()[0]
        runs.append(child(args.arch, args.workload, args.layers))
        print(f"run {i + 1}: {runs[-1]['cpu_s']:.2f} CPU-s (simulate alone {runs[-1]['simulate_cpu_s']:.2f}), "
              f"{runs[-1]['rss_mb']:.0f} MB peak RSS, "
              f"{runs[-1]['cycles']:,} cycles (load average {load:.2f} on {os.cpu_count()} CPUs)")
    cpu = statistics.median(r["cpu_s"] for r in runs)
    rss = statistics.median(r["rss_mb"] for r in runs)
    print(f"{args.arch} x {args.workload}{' ' + ' '.join(args.layers) if args.layers else ''}: median "
          f"{cpu:.2f} CPU-s (bar < {CPU_BAR_S:.0f}: {'OK' if cpu < CPU_BAR_S else 'OVER'}), "
          f"{rss:.0f} MB (bar < {RSS_BAR_MB:.0f}: {'OK' if rss < RSS_BAR_MB else 'OVER'})")
    return 0 if cpu < CPU_BAR_S and rss < RSS_BAR_MB else 1


if __name__ == "__main__":
    sys.exit(main())
