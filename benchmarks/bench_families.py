"""Every family's simulation time on a representative workload, against another checkout.

Issue 14's bar: after the restructuring onto the family contract, every family is within
10 % of its earlier speed. This measures both trees the same way, through the public API only
(``simulate(load_arch(a), load_workload(w))``, fast path, operands generated as a user's first
run does), each measurement in a fresh process, the two trees interleaved, and reports the
median CPU seconds and their ratio per family:

    python benchmarks/bench_families.py --baseline /path/to/other/checkout [--repeat 5]

Without ``--baseline`` it only measures this tree. The ratio is new / baseline (< 1.10 passes).
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BAR = 1.10
# family -> (arch config, workload): a whole network each, a few seconds at most
PAIRS = {
    "systolic": ("tpu_like_128x128_ws", "resnet18"),
    "systolic (USER bandwidth)": ("scalesim_32x32_ws", "tiny_conv"),
    "eie": ("eie", "lenet_300_100"),
    "scnn": ("scnn", "alexnet"),
    "pe_array": ("pe_array_reassignment", "alexnet"),
    "tensor_core": ("ampere_a100", "resnet50"),
    "cnvlutin": ("cnvlutin", "alexnet"),
    "dlu": ("dlu", "lenet5"),
}
CHILD = """
import sys, time
from accel_sim import load_arch, load_workload, simulate
arch, network = load_arch(sys.argv[1]), load_workload(sys.argv[2])
start = time.process_time()
simulate(arch, network)
print(time.process_time() - start)
"""


def measure(tree: Path, arch: str, workload: str) -> float:
    done = subprocess.run([sys.executable, "-c", CHILD, arch, workload], cwd=tree, capture_output=True, text=True,
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "HOME": str(Path.home())})
    if done.returncode:
        raise SystemExit(f"{tree}: {arch} x {workload} failed:\n{done.stderr[-2000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout of accel_sim to compare with")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", nargs="*", help="families to measure (default: all)")
    args = parser.parse_args(argv)
    pairs = {k: v for k, v in PAIRS.items() if not args.only or k.split(" ")[0] in args.only}
    print(f"{'family':28s} {'pair':40s} {'this s':>8s} {'base s':>8s} {'ratio':>6s}")
    worst = 0.0
    for family, (arch, workload) in pairs.items():
        ours, theirs = [], []
        for _ in range(args.repeat):
            if args.baseline:
                theirs.append(measure(args.baseline, arch, workload))
            ours.append(measure(ROOT, arch, workload))
        mine = statistics.median(ours)
        line = f"{family:28s} {arch + ' x ' + workload:40s} {mine:8.3f}"
        if theirs:
            base = statistics.median(theirs)
            worst = max(worst, mine / base)
            line += f" {base:8.3f} {mine / base:6.2f}"
        print(line, flush=True)
    if args.baseline:
        print(f"worst ratio {worst:.2f} (bar {BAR:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
