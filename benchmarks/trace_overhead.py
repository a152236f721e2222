"""Tracing off costs nothing: each family's SimPy reference on its teaching-trace example, with the
recorder off, against the same reference in a checkout of the code before the recorder existed.
Bar: every family within 5 % (after / before CPU time <= 1.05). Run:

    git worktree add --detach /tmp/before <commit before the recorder>
    python benchmarks/trace_overhead.py --before /tmp/before [--rounds 5]

Both code trees run in their own worker process (started once, so imports are not timed) on the
same plans: this tree's examples (``accel_sim.pipeline.trace.files.SOURCES``: arch, workload
file, layer). Per family a sample is ``calls`` reference runs back to back (enough for about
0.5 s of CPU time, fixed for both trees); the two trees are sampled alternately (each first
in every other round), ``rounds`` times, and each keeps its fastest sample (the least disturbed
by other load). The ratio is of CPU time (time.process_time), printed with the load average.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
BAR = 1.05


def _worker(tree: str) -> None:
    """Serve requests ``family arch workload layer calls`` on stdin: the CPU seconds of ``calls`` runs."""
    sys.path.insert(0, tree)
    from accel_sim.foundations.workload.loader import load_workload
    from accel_sim.pipeline.catalog import MODELS, load_arch

    plans = {}
    for line in sys.stdin:
        family, arch, workload, layer, calls = line.split()
        model = next(m for m in MODELS if m.name == family)
        key = (family, arch, workload, layer)
        if key not in plans:
            layers = [l for l in load_workload(Path(workload)).layers if l.name == layer]
            plans[key] = model.plan(load_arch(arch), layers[0])
        start = time.process_time()
        for _ in range(int(calls)):
            model.reference(plans[key], None)
        print(json.dumps(time.process_time() - start), flush=True)


def _start(tree: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.Popen([sys.executable, __file__, "--worker", str(tree)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, cwd=tree, env=env)


def _ask(worker: subprocess.Popen, request: str) -> float:
    worker.stdin.write(request + "\n")
    worker.stdin.flush()
    return float(json.loads(worker.stdout.readline()))


def _examples() -> list[tuple[str, str, str, str]]:
    sys.path.insert(0, str(HERE))
    from accel_sim.foundations.workload.loader import load_workload
    from accel_sim.pipeline.trace.files import SOURCES

    out = []
    for family, source in sorted(SOURCES.items()):
        example = source.example
        path = HERE / "workloads" / f"{example.workload}.yaml"
        layer = example.layer or load_workload(path).layers[0].name
        out.append((family, example.arch, str(path), layer))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description="reference run time with the recorder off vs the code before it")
    parser.add_argument("--before", type=Path, help="a checkout of the code before the recorder")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=0.5, help="CPU seconds of one sample (about)")
    parser.add_argument("--families", nargs="*", help="only these families (default: every family)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args.worker)
        return 0
    if args.before is None:
        parser.error("--before is required")
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    after, before = _start(HERE), _start(args.before.resolve())
    worst = 0.0
    print(f"{'family':<12} {'calls':>5} {'before s':>9} {'after s':>9} {'after/before':>12}")
    for family, arch, workload, layer in _examples():
        if args.families and family not in args.families:
            continue
        request = f"{family} {arch} {workload} {layer}"
        _ask(after, request + " 1"), _ask(before, request + " 1")                     # warm-up
        once = max(min(_ask(after, request + " 1") for _ in range(3)), 1e-4)            # calibration
        calls = max(1, round(args.seconds / once))
        samples = {"before": [], "after": []}
        for round_ in range(args.rounds):   # alternate which tree goes first
            order = (("before", before), ("after", after))[::1 if round_ % 2 == 0 else -1]
            for name, worker in order:
                samples[name].append(_ask(worker, f"{request} {calls}"))
        b, a = min(samples["before"]), min(samples["after"])
        worst = max(worst, a / b)
        print(f"{family:<12} {calls:>5} {b:>9.3f} {a:>9.3f} {a / b:>12.3f}")
    for worker in (after, before):
        worker.stdin.close()
        worker.wait()
    print(f"worst after/before {worst:.3f} (bar <= {BAR:.2f}) {'OK' if worst <= BAR else 'OVER'}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0 if worst <= BAR else 1


if __name__ == "__main__":
    sys.exit(main())
