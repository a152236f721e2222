"""Sweep throughput: the 200-point dense systolic sweep with --jobs 1, --jobs 2 and a local Dask cluster.

    python benchmarks/bench_sweep.py [--sweep sweeps/systolic_resnet18_200.yaml] [--keep DIR]

Each executor runs into a fresh store, so every point is computed. Prints wall time and
points/s per executor, the jobs-2 / jobs-1 throughput ratio (bar: >= 1.7 on 2 cores) and
whether the three result tables are identical bit for bit; exits 1 if either check fails.
Timings include starting the pool or cluster workers. Run it on an otherwise idle machine:
the table also shows the mean time per point and how busy the workers were, which tells
executor overhead (workers idle) from CPU contention (points slower than with one job).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from accel_sim.pipeline.sweep import load_results, load_sweep, run_sweep  # noqa: E402

RATIO_BAR = 1.7


def timed_run(sweep, out: Path, jobs: int = 1, scheduler: str | None = None) -> float:
    start = time.perf_counter()
    summary = run_sweep(sweep, out, jobs=jobs, scheduler=scheduler)
    elapsed = time.perf_counter() - start
    assert summary.computed == summary.configs, summary
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", default=str(REPO / "sweeps" / "systolic_resnet18_200.yaml"))
    parser.add_argument("--keep", default=None, help="write the three stores here instead of a temp folder")
    args = parser.parse_args()

    import dask
    from distributed import LocalCluster

    sweep = load_sweep(args.sweep)
    n = len(sweep.points)
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench_sweep_"))
    times = {"jobs 1": timed_run(sweep, root / "jobs1", jobs=1),
             "jobs 2": timed_run(sweep, root / "jobs2", jobs=2)}
    start = time.perf_counter()
    # Dask's nanny starts workers with MALLOC_TRIM_THRESHOLD_=65536, which makes glibc hand
    # memory back to the OS on nearly every free; the model allocates large numpy temporaries
    # per layer, and with it each point runs ~1.8x slower (page faults). Start the workers with
    # glibc's default, as the local pool has (set the same in a real cluster's Dask config).
    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        started = time.perf_counter() - start
        times["dask 2 workers"] = timed_run(sweep, root / "dask", scheduler=cluster.scheduler_address)

    frames = {name: load_results(root / d) for name, d in zip(times, ("jobs1", "jobs2", "dask"))}
    csvs = {name: (root / d / "results.csv").read_bytes() for name, d in zip(times, ("jobs1", "jobs2", "dask"))}
    identical = all(f.equals(frames["jobs 1"]) for f in frames.values()) and len(set(csvs.values())) == 1

    print(f"{sweep.name}: {n} points, workload {sweep.network.name}, results in {root}")
    print("  executor           wall     rate          mean point   workers busy")
    for (name, seconds), folder, workers in zip(times.items(), ("jobs1", "jobs2", "dask"), (1, 2, 2)):
        point_s = load_results(root / folder, provenance=True)["elapsed_s"]
        print(f"  {name:16s} {seconds:6.1f} s  {n / seconds:5.2f} points/s  {point_s.mean():6.3f} s    "
              f"{point_s.sum() / (seconds * workers):5.0%}")
    print("  (a mean point slower than with jobs 1 means the workers competed for the CPU or memory,"
          " e.g. with other load on the machine; 'busy' below 100% is executor overhead)")
    print(f"  (local Dask cluster start-up, not included above: {started:.1f} s)")
    ratio = times["jobs 1"] / times["jobs 2"]
    print(f"throughput jobs 2 / jobs 1: {ratio:.2f}x (bar >= {RATIO_BAR}x): {'PASS' if ratio >= RATIO_BAR else 'FAIL'}")
    print(f"throughput dask / jobs 1:   {times['jobs 1'] / times['dask 2 workers']:.2f}x")
    print(f"identical results (frames and results.csv bytes), jobs 1 = jobs 2 = dask: "
          f"{'PASS' if identical else 'FAIL'}")
    return 0 if ratio >= RATIO_BAR and identical else 1


if __name__ == "__main__":
    sys.exit(main())
