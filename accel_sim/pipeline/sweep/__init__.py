"""Design-space sweeps: vary arch config paths, run every point, keep results in a durable store.

::

    from accel_sim.pipeline.sweep import run_sweep, load_results, pareto_front, sensitivity
    summary = run_sweep("sweeps/systolic_small.yaml", "out/small", jobs=2)
    frame = load_results("out/small")            # one row per point, pandas
    front = pareto_front(frame)                  # minimise energy_pj and cycles
    sensitivity(frame, "edp_pj_cycles")          # how much each axis moves a metric

Modules: :mod:`~accel_sim.pipeline.sweep.spec` (sweep files), :mod:`~accel_sim.pipeline.sweep.expand`
(grid / zip / random / explicit points), :mod:`~accel_sim.pipeline.sweep.keys` (point identity),
:mod:`~accel_sim.pipeline.sweep.store` (SQLite store, CSV / Parquet export, loader),
:mod:`~accel_sim.pipeline.sweep.executor` (serial, process pool, Dask),
:mod:`~accel_sim.pipeline.sweep.runner` (:func:`run_sweep`), :mod:`~accel_sim.pipeline.sweep.metrics`
(derived metrics), :mod:`~accel_sim.pipeline.sweep.analysis` (Pareto front, sensitivity).
"""
from __future__ import annotations

import importlib

# names -> defining module, imported on first use so that ``accel_sim.pipeline.sweep.progress`` (used by
# ``accel-sim run``) does not pull in pandas through the analysis module
_EXPORTS = {
    "pareto_front": "analysis", "pareto_mask": "analysis", "sensitivity": "analysis",
    "PointFunction": "executor", "simulate_point": "executor", "METRICS": "metrics",
    "SweepSummary": "runner", "run_sweep": "runner", "Sweep": "spec", "load_sweep": "spec",
    "sweep_from_mapping": "spec", "ResultStore": "store", "load_results": "store",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'accel_sim.pipeline.sweep' has no attribute {name!r}")
    return getattr(importlib.import_module(f"accel_sim.pipeline.sweep.{_EXPORTS[name]}"), name)
