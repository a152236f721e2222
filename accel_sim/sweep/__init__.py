"""Design-space sweeps: vary arch config paths, run every point, keep results in a durable store.

::

    from accel_sim.sweep import run_sweep, load_results, pareto_front, sensitivity
    summary = run_sweep("sweeps/systolic_small.yaml", "out/small", jobs=2)
    frame = load_results("out/small")            # one row per point, pandas
    front = pareto_front(frame)                  # minimise energy_pj and cycles
    sensitivity(frame, "edp_pj_cycles")          # how much each axis moves a metric

Modules: :mod:`~accel_sim.sweep.spec` (sweep files), :mod:`~accel_sim.sweep.expand`
(grid / zip / random / explicit points), :mod:`~accel_sim.sweep.keys` (point identity),
:mod:`~accel_sim.sweep.store` (SQLite store, CSV / Parquet export, loader),
:mod:`~accel_sim.sweep.executor` (serial, process pool, Dask),
:mod:`~accel_sim.sweep.runner` (:func:`run_sweep`), :mod:`~accel_sim.sweep.metrics`
(derived metrics), :mod:`~accel_sim.sweep.analysis` (Pareto front, sensitivity).
"""
from accel_sim.sweep.analysis import pareto_front, pareto_mask, sensitivity
from accel_sim.sweep.executor import PointFunction, simulate_point
from accel_sim.sweep.metrics import METRICS
from accel_sim.sweep.runner import SweepSummary, run_sweep
from accel_sim.sweep.spec import Sweep, load_sweep, sweep_from_mapping
from accel_sim.sweep.store import ResultStore, load_results

__all__ = ["METRICS", "PointFunction", "ResultStore", "Sweep", "SweepSummary", "load_results", "load_sweep",
           "pareto_front", "pareto_mask", "run_sweep", "sensitivity", "simulate_point", "sweep_from_mapping"]
