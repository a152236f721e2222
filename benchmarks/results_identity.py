"""Snapshot every shipped arch x workload pair's per-layer frame, and compare two snapshots.

Used to prove a restructuring changed no result (issue 14):

    python benchmarks/results_identity.py snapshot OUT_DIR [--max-seconds 120] [--arch-glob 'eie*']
    python benchmarks/results_identity.py compare BEFORE_DIR AFTER_DIR   # pairs of BEFORE only
        [--ignore-columns weight_hash input_hash]

``snapshot`` writes ``<arch>__<workload>.csv`` per pair that runs (and ``errors.csv`` with the
pairs that are refused, with their messages); a pair that takes longer than ``--max-seconds``
is recorded in ``skipped.csv`` (it runs in a child process that is stopped). ``compare`` checks
that the same pairs ran and that every frame is identical, column for column, bit for bit.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's accel_sim, not whichever one is installed


def _run_pair(arch_name: str, workload_name: str, out: str, queue) -> None:
    from accel_sim import InputError, load_arch, load_workload, simulate
    try:
        run = simulate(load_arch(arch_name), load_workload(workload_name))
        run.layers_frame().to_csv(out, index=False, float_format="%.17g")
        queue.put(("ok", ""))
    except (InputError, ValueError) as err:
        queue.put(("error", str(err).splitlines()[0]))


def snapshot(out_dir: Path, max_seconds: float, arch_glob: str = "*", workload_glob: str = "*") -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    archs = sorted(p.stem for p in (ROOT / "arch_configs").glob(f"{arch_glob}.yaml"))
    workloads = sorted(p.stem for p in (ROOT / "workloads").glob(f"{workload_glob}.yaml"))
    errors, skipped = [], []
    ctx = mp.get_context("fork")
    for arch in archs:
        for workload in workloads:
            out = out_dir / f"{arch}__{workload}.csv"
            queue = ctx.Queue()
            proc = ctx.Process(target=_run_pair, args=(arch, workload, str(out), queue))
            proc.start()
            proc.join(max_seconds)
            if proc.is_alive():
                proc.kill()
                proc.join()
                skipped.append({"arch": arch, "workload": workload})
                print(f"skipped (> {max_seconds} s): {arch} x {workload}", flush=True)
                continue
            status, message = queue.get() if not queue.empty() else ("crash", f"exit code {proc.exitcode}")
            if status != "ok":
                errors.append({"arch": arch, "workload": workload, "status": status, "message": message})
            print(f"{status}: {arch} x {workload}", flush=True)
    pd.DataFrame(errors, columns=["arch", "workload", "status", "message"]).to_csv(out_dir / "errors.csv", index=False)
    pd.DataFrame(skipped, columns=["arch", "workload"]).to_csv(out_dir / "skipped.csv", index=False)


def compare(before: Path, after: Path, arch_glob: str = "*", ignore: tuple[str, ...] = ()) -> int:
    names = sorted(p.name for p in before.glob(f"{arch_glob}__*.csv"))
    for listing in ("errors.csv",):  # the same pairs must be refused, with the same message
        if (before / listing).exists() and (after / listing).exists():
            a, b = pd.read_csv(before / listing), pd.read_csv(after / listing)
            if not a.equals(b):
                print(f"{listing} differs:\n{a.compare(b) if a.shape == b.shape else (a, b)}")
    problems = []
    for name in names:
        other = after / name
        if not other.exists():
            problems.append(f"{name}: missing after")
            continue
        a, b = pd.read_csv(before / name), pd.read_csv(other)
        a, b = a.drop(columns=[c for c in ignore if c in a]), b.drop(columns=[c for c in ignore if c in b])
        try:
            pd.testing.assert_frame_equal(a, b, check_exact=True)
        except AssertionError as err:
            problems.append(f"{name}: {str(err).splitlines()[0]} {str(err).splitlines()[-1]}")
    for name in problems:
        print(name)
    print(f"{len(names)} pairs compared, {len(problems)} differ")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    snap = sub.add_parser("snapshot")
    snap.add_argument("out_dir", type=Path)
    snap.add_argument("--max-seconds", type=float, default=120.0)
    snap.add_argument("--arch-glob", default="*", help="only the arch configs whose name matches, e.g. 'eie*'")
    snap.add_argument("--workload-glob", default="*", help="only the workloads whose name matches")
    cmp_ = sub.add_parser("compare")
    cmp_.add_argument("before", type=Path)
    cmp_.add_argument("after", type=Path)
    cmp_.add_argument("--arch-glob", default="*", help="only the pairs of the arch configs whose name matches")
    cmp_.add_argument("--ignore-columns", nargs="*", default=[],
                      help="columns left out of the comparison, e.g. weight_hash input_hash when the hash scheme "
                           "changed (issue 22: generated operands hashed from their spec)")
    args = parser.parse_args(argv)
    if args.command == "snapshot":
        snapshot(args.out_dir, args.max_seconds, args.arch_glob, args.workload_glob)
        return 0
    return compare(args.before, args.after, args.arch_glob, tuple(args.ignore_columns))


if __name__ == "__main__":
    sys.exit(main())
