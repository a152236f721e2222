"""Profile one study's CPU time (cProfile with a CPU-time clock, so other jobs on a shared machine do not
count): where a study spends its seconds, before speeding it up.

    python benchmarks/profile_study.py STUDY [--top 40] [--sort cumulative|tottime] [--save FILE.prof]

Runs ``accel-sim reproduce STUDY`` into a temporary folder in this process and prints the CPU seconds and the
``--top`` functions. Per-study CPU seconds of the whole gallery: benchmarks/bench_reproduce_all.py.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # as the CLI sets it (accel_sim/cli), before numpy loads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--sort", default="cumulative", choices=("cumulative", "tottime"))
    parser.add_argument("--save", default=None, help="also write the profile to this file (pstats format)")
    args = parser.parse_args()
    from accel_sim.studies.registry import all_studies, write_study

    chosen = all_studies()[args.study]
    profiler = cProfile.Profile(time.process_time)
    start = time.process_time()
    with tempfile.TemporaryDirectory(prefix="profile_study_") as out:
        profiler.runcall(write_study, chosen, Path(out))
    print(f"{args.study}: {time.process_time() - start:.1f} s CPU (profiled, after imports)")
    if args.save:
        profiler.dump_stats(args.save)
    pstats.Stats(profiler).sort_stats(args.sort).print_stats(args.top)


if __name__ == "__main__":
    main()
