"""Time `accel-sim reproduce all`: each study's CPU seconds (own process each), then the whole gallery
with --jobs N (wall clock and CPU of all its processes).

    python benchmarks/bench_reproduce_all.py [--jobs 2] [--studies-only | --all-only] [--out DIR]

Issue 21's bar: `reproduce all` under 5 minutes of wall time on a quiet 2-core machine (issue 22: 2 minutes).
The per-study CPU seconds are the `cpu_s=` hints of the `@study` decorators (they order the studies,
longest first). Prints the machine's load average, since wall time on a loaded machine says little.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(command: list[str]) -> tuple[float, float, int]:
    cpu, wall = _children_cpu(), time.monotonic()
    code = subprocess.run(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return time.monotonic() - wall, _children_cpu() - cpu, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--studies-only", action="store_true", help="only time each study on its own")
    parser.add_argument("--all-only", action="store_true", help="only time the whole gallery")
    parser.add_argument("--out", default=None, help="folder for the outputs (default: a temporary one)")
    args = parser.parse_args()
    from accel_sim.studies.registry import all_studies

    out = Path(args.out or tempfile.mkdtemp(prefix="bench_reproduce_"))
    cli = [sys.executable, "-m", "accel_sim", "reproduce"]
    print(f"load average before: {os.getloadavg()[0]:.2f} (2-core machine: above ~0.5 the wall times are not quiet)")
    if not args.all_only:
        print(f"{'study':28s} {'wall s':>8s} {'CPU s':>8s} {'cpu_s hint':>10s}")
        rows = []
        for name, s in all_studies().items():
            wall, cpu, code = _timed(cli + [name, "--out", str(out / "each" / name), "--force"])
            rows.append((name, wall, cpu, s.cpu_s, code))
            print(f"{name:28s} {wall:8.1f} {cpu:8.1f} {s.cpu_s:10g}" + ("" if code == 0 else f"  (exit {code})"),
                  flush=True)
        print(f"\nsorted by CPU (the order `reproduce all` starts them in follows the cpu_s hints):")
        for name, wall, cpu, hint, code in sorted(rows, key=lambda row: -row[2]):
            print(f"{name:28s} {wall:8.1f} {cpu:8.1f} {hint:10g}" + ("" if code == 0 else f"  (exit {code})"))
        print(f"{'sum':28s} {'':8s} {sum(row[2] for row in rows):8.1f}")
    if not args.studies_only:
        wall, cpu, code = _timed(cli + ["all", "--jobs", str(args.jobs), "--out", str(out / "all"), "--force",
                                        "--quiet"])
        print(f"reproduce all --jobs {args.jobs}: {wall:.1f} s wall, {cpu:.1f} s CPU (exit {code}); "
              f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
