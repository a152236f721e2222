"""Sweeps whose points may be system models: the point function a sweep file's ``evaluate`` names.

The run pipeline's :func:`~accel_sim.pipeline.sweep.run_sweep` knows only its own point function
(``simulate``); this is where the others are listed, above the models they run on.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from accel_sim.pipeline.sweep import PointFunction, Sweep, SweepSummary, load_sweep, simulate_point
from accel_sim.pipeline.sweep import run_sweep as run_pipeline_sweep
from accel_sim.systems.training.sweep_point import training_step_point

POINT_FUNCTIONS: dict[str, PointFunction] = {"simulate": simulate_point, "training_step": training_step_point}


def run_sweep(sweep: str | Path | Sweep, out_dir: str | Path, **options: Any) -> SweepSummary:
    """:func:`accel_sim.pipeline.sweep.run_sweep` with the point function the sweep's ``evaluate`` names
    (unless ``evaluate=`` gives one)."""
    if not isinstance(sweep, Sweep):
        sweep = load_sweep(sweep)
    if options.get("evaluate") is None:
        options["evaluate"] = POINT_FUNCTIONS[sweep.evaluate]
    return run_pipeline_sweep(sweep, out_dir, **options)
