"""Design points over one workload, batched against one by one (the sweep issue's shared-plan batch path).

    python benchmarks/bench_sweep_batch.py [--sweep sweeps/eie_fifo_depth.yaml] [--sweep ...]

Each sweep runs twice into fresh stores, in this process, serially: ``batch=1`` (every point simulated
alone) and the default batch (points simulated together, layer by layer, ``simulate_many``: each layer's
operands and the plan pieces the points share made once). Prints both wall times, their ratio and whether
the two result tables are identical bit for bit (exits 1 if not). The batched run goes second, so it
cannot profit from a warmer process than the first: operand caches are cleared between the runs.
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

SWEEPS = ("sweeps/eie_fifo_depth.yaml", "sweeps/systolic_small.yaml")


def clear_process_caches() -> None:
    """Forget operands and shape results a previous run left in this process."""
    import functools
    import gc

    from accel_sim.pipeline.simulate import SHAPE_RUNS
    SHAPE_RUNS.clear()
    for obj in gc.get_objects():
        if isinstance(obj, functools._lru_cache_wrapper) and getattr(obj, "__module__", "").startswith("accel_sim"):
            obj.cache_clear()


def timed(sweep, out: Path, batch: int | None) -> float:
    clear_process_caches()
    start = time.perf_counter()
    summary = run_sweep(sweep, out, batch=batch)
    assert summary.computed == summary.configs, summary
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", action="append", default=None, help=f"sweep files (default {', '.join(SWEEPS)})")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench_sweep_batch_"))
    ok = True
    print(f"{'sweep':<24} {'points':>6} {'one by one s':>13} {'batched s':>10} {'ratio':>6}  identical")
    for file in args.sweep or SWEEPS:
        sweep = load_sweep(REPO / file)
        alone = timed(sweep, root / f"{sweep.name}_1", 1)
        batched = timed(sweep, root / f"{sweep.name}_batch", None)
        same = load_results(root / f"{sweep.name}_1").equals(load_results(root / f"{sweep.name}_batch"))
        ok &= same
        print(f"{sweep.name:<24} {len(sweep.points):>6} {alone:>13.2f} {batched:>10.2f} {alone / batched:>6.2f}  {same}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
