"""Run a sweep: resolve, skip what the store holds, compute the rest, commit each point, export.

:func:`run_sweep` is what ``accel-sim sweep`` calls. A run writes the sweep definition to
the store, computes only the configs whose key is not stored yet (each distinct config
once, even if several points resolve to it), commits every point the moment its chunk
comes back, and finally writes ``results.csv``. Killing a run at any moment loses no
committed point; running the same command again computes only what is missing.
"""
from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from accel_sim.foundations.errors import InputError
from accel_sim.pipeline.sweep.executor import DEFAULT_BATCH, Chunker, PointFunction, PointRefused, PointTask, \
    WorkerContext, evaluator_name, make_executor, simulate_point
from accel_sim.pipeline.sweep.progress import Progress
from accel_sim.pipeline.sweep.spec import Sweep, load_sweep
from accel_sim.pipeline.sweep.store import STORE_NAME, ResultStore, exclusive_run, export_results


@dataclass(frozen=True)
class SweepSummary:
    """What one run did."""

    name: str
    points: int              # points in the sweep
    configs: int             # distinct configs among them (store keys)
    already_stored: int      # configs found in the store and skipped
    computed: int            # configs this run computed and committed
    run_id: str
    elapsed_s: float
    store: Path
    csv: Path
    parquet: Path | None

    def line(self) -> str:
        return (f"sweep {self.name}: {self.points} points ({self.configs} distinct configs), {self.computed} "
                f"computed, {self.already_stored} already stored, in {self.elapsed_s:.1f} s")


def _executor_label(jobs: int, scheduler: str | None) -> str:
    return f"dask {scheduler}" if scheduler else ("serial" if jobs == 1 else f"process pool, {jobs} jobs")


def store_size_estimate(store_file: Path, todo: int) -> Callable[[int], str]:
    """``", store X MB, about Y MB when done"``: the store's size now and, from the bytes the points computed
    so far added to it (measured, not assumed), its size once all ``todo`` points are in."""
    start = store_file.stat().st_size if store_file.exists() else 0

    def line(computed: int) -> str:
        now = store_file.stat().st_size if store_file.exists() else 0
        if not computed:
            return f", store {now / 1e6:.1f} MB"
        final = now + (now - start) / computed * (todo - computed)
        return f", store {now / 1e6:.1f} MB, about {final / 1e6:.1f} MB when done"
    return line


def point_function(sweep: Sweep) -> PointFunction:
    """The point function a sweep file's ``evaluate`` names, where the pipeline has it (``simulate``); the
    system models' point functions (``training_step``) come from the caller
    (:func:`accel_sim.systems.sweep.run_sweep`, which ``accel_sim.run_sweep`` and ``accel-sim sweep`` call)."""
    if sweep.evaluate == "simulate":
        return simulate_point
    raise InputError.single(sweep.name, "evaluate", f"'{sweep.evaluate}' is a system model's point function: "
                            "run this sweep through accel_sim.run_sweep or accel-sim sweep")


def batch_size(batch: int | None, evaluate: PointFunction, todo: int, workers: int) -> int:
    """Points per automatic chunk: ``batch`` (default :data:`DEFAULT_BATCH` for simulate points, 1 for any
    other point function, which runs point by point), but never so many that a worker has no chunk."""
    if batch is None:
        batch = DEFAULT_BATCH if evaluate is simulate_point else 1
    return max(1, min(batch, -(-todo // workers)))


def run_sweep(sweep: str | Path | Sweep, out_dir: str | Path, jobs: int = 1, scheduler: str | None = None,
              progress: TextIO | None = None, evaluate: PointFunction | None = None,
              chunk_size: int | None = None, batch: int | None = None) -> SweepSummary:
    """Run ``sweep`` (a sweep file, or a :class:`Sweep`) into ``out_dir``.

    ``jobs`` worker processes on this machine (1: in this process), or the Dask cluster at
    ``scheduler`` (``tcp://host:port``). ``progress``: a stream for the progress line
    (``sys.stderr`` in the CLI; ``None`` is silent). ``evaluate`` maps (arch, network) to
    the numbers stored per point (default: what the sweep's ``evaluate`` names, the simulator's
    network summary unless it says ``training_step``); with
    ``jobs > 1`` or Dask it must be importable. ``chunk_size``: points per task on a pool
    or cluster (default: sized from the measured point cost, see
    :class:`~accel_sim.pipeline.sweep.executor.Chunker`). ``batch``: simulate points run together, layer by
    layer, at least this many per chunk (default :data:`~accel_sim.pipeline.sweep.executor.DEFAULT_BATCH`,
    fewer when a worker would otherwise wait; 1 runs each point alone); the results are the same.
    """
    if jobs < 1:
        raise InputError.single("--jobs", str(jobs), "expected a number of worker processes >= 1")
    if chunk_size is not None and chunk_size < 1:
        raise InputError.single("chunk_size", str(chunk_size), "expected a number of points >= 1")
    if batch is not None and batch < 1:
        raise InputError.single("--batch", str(batch), "expected a number of points >= 1")
    start = time.monotonic()
    if not isinstance(sweep, Sweep):
        sweep = load_sweep(sweep)
    if evaluate is None:
        evaluate = point_function(sweep)
    out = Path(out_dir)
    store_file = out / STORE_NAME
    run_id = uuid.uuid4().hex
    tasks_by_key: dict[str, PointTask] = {}
    for p in sweep.points:
        tasks_by_key.setdefault(p.key, PointTask(p.index, p.key, p.raw_arch))
    with exclusive_run(out), ResultStore(store_file) as store:
        store.write_definition(sweep, evaluator_name(evaluate))
        stored = store.stored_keys() & tasks_by_key.keys()
        todo = [task for key, task in tasks_by_key.items() if key not in stored]
        store.start_run(run_id, _executor_label(jobs, scheduler), len(todo))
        meter = Progress(f"sweep {sweep.name}", len(tasks_by_key), len(stored), progress,
                         extra=store_size_estimate(store_file, len(todo)))
        computed = 0
        if todo:
            context = WorkerContext(str(sweep.arch_file), sweep.network, evaluate)
            try:
                with make_executor(context, jobs, scheduler) as executor:
                    chunks = Chunker(todo, chunk_size, batch_size(batch, evaluate, len(todo), executor.workers))
                    for outcomes in executor.map_unordered(chunks):
                        for outcome in outcomes:   # one transaction per point, as soon as it is back
                            computed += store.put(outcome, run_id)
                        chunks.record(outcomes)
                        meter.advance(len(outcomes))
            except PointRefused as refused:
                point = next(p for p in sweep.points if p.index == refused.index)
                labels = ", ".join(f"{name}={label}" for name, label in point.labels)
                raise InputError.single(str(sweep.source), f"point {refused.index} ({labels})",
                                        f"{refused.message} ({computed} points computed before it are saved in "
                                        f"{store_file})") from None
        meter.finish()
        store.finish_run(run_id, computed)
        paths = export_results(store.frame(), out)
    return SweepSummary(name=sweep.name, points=len(sweep.points), configs=len(tasks_by_key),
                        already_stored=len(stored), computed=computed, run_id=run_id,
                        elapsed_s=time.monotonic() - start, store=store_file, csv=paths["csv"],
                        parquet=paths.get("parquet"))

