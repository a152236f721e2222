"""CPU cost of SCNN's scatter network choices on whole networks (conv layers): ``scatter: serialise``
(arch_configs/scnn.yaml), ``fifo`` (depth 4, the field default) and ``fifo_unbounded``. Run:

    python benchmarks/bench_scnn_scatter.py [--networks alexnet googlenet vgg16] [--repeat 1]

Each (network, choice) runs in its own Python process, one after the other (choices interleaved per
network), so caches and the JIT start from the same point. Printed per run, in CPU seconds of that
process (time.process_time, less sensitive than wall time to the other jobs on a shared machine):
``simulate`` (the simulation alone) and ``numba`` (importing numba and loading the compiled FIFO loops
from its disk cache, or compiling them on a first run, measured on a tiny warm-up layer; 0 for
serialise, which never loads numba), then the ratio of
each FIFO choice to serialise with and without that load. The load average is printed before and after.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHOICES = (("serialise", {}), ("fifo", {"scatter": "fifo", "scatter_fifo_depth": 4}),
           ("fifo_unbounded", {"scatter": "fifo_unbounded"}))
CHILD = """
import json, sys, time
from accel_sim import simulate
from accel_sim.studies.scnn_common import conv_network, scnn_variant
network, overrides = sys.argv[1], json.loads(sys.argv[2])
arch, layers = scnn_variant(overrides), conv_network(network)
start = time.process_time()
loops = None
if overrides:   # load numba and the compiled loops (its disk cache) on a tiny layer first
    from accel_sim.models.scnn.fast.scatter_fifo_kernel import compiled
    from accel_sim.foundations.workload import ConvLayer, Network
    loops = compiled()
    simulate(arch, Network("warm-up", (ConvLayer("warm-up", in_h=4, in_w=4, in_channels=2, out_channels=2,
                                                 kernel_h=3, kernel_w=3),)))
loaded = time.process_time()
run = simulate(arch, layers)
done = time.process_time()
print(json.dumps({"numba": loaded - start, "simulate": done - loaded, "loops": loops is not None,
                  "cycles": int(run.summary_frame().iloc[0]["cycles"])}))
"""


def run_child(network: str, overrides: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, network, json.dumps(overrides)], cwd=ROOT, check=True,
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                             [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])))
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description="SCNN scatter network choices: CPU seconds per network")
    parser.add_argument("--networks", nargs="+", default=["alexnet", "googlenet", "vgg16"])
    parser.add_argument("--repeat", type=int, default=1, help="runs per (network, choice); the least is kept")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    rows = []
    for network in args.networks:
        best: dict[str, dict] = {}
        for _ in range(args.repeat):
            for name, overrides in CHOICES:
                result = run_child(network, overrides)
                if name not in best or result["simulate"] < best[name]["simulate"]:
                    best[name] = result
        base = best["serialise"]
        for name, _ in CHOICES:
            r = best[name]
            rows.append((network, name, r["simulate"], r["numba"], r["simulate"] / base["simulate"],
                         (r["simulate"] + r["numba"]) / base["simulate"], r["cycles"], r["loops"]))
            print(f"{network:10s} {name:15s} simulate {r['simulate']:7.2f} CPU-s  numba load {r['numba']:5.2f}  "
                  f"x serialise {rows[-1][4]:5.2f} (with load {rows[-1][5]:5.2f})  cycles {r['cycles']:,}"
                  + ("" if r["loops"] or name == "serialise" else "  [numpy path: numba not installed]"),
                  flush=True)
    for name, _ in CHOICES[1:]:
        total = sum(r[2] for r in rows if r[1] == name)
        base = sum(r[2] for r in rows if r[1] == "serialise")
        print(f"all networks, {name}: {total:.2f} CPU-s vs serialise {base:.2f}: x {total / base:.2f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
