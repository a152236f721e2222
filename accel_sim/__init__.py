"""accel_sim: cycle-level simulator of sparse and low-precision deep-learning accelerators.

The Python API is what the command line calls::

    from accel_sim import load_arch, load_workload, simulate
    run = simulate(load_arch("tpu_like_128x128_ws"), load_workload("resnet18"))
    run.layers_frame()

and for design-space sweeps (``accel-sim sweep``)::

    from accel_sim import run_sweep, load_results, pareto_front
    run_sweep("sweeps/systolic_small.yaml", "out/small")
    pareto_front(load_results("out/small"))

The package is built in tiers, each importing only those below it (README, "Layout";
``tests/architecture/tiers.py`` declares them):
``cli`` and this API, ``studies``, ``systems``, ``pipeline``, ``models``, ``hardware``, ``foundations``.
Every name here is imported on first use, so importing one module of a lower tier loads no more.
"""
from __future__ import annotations

import importlib

from accel_sim.foundations.version import __version__

# name -> the module that defines it
_API = {
    "REPO_ROOT": "accel_sim.foundations.config.loader",
    "InputError": "accel_sim.foundations.errors",
    "load_arch": "accel_sim.pipeline.catalog",
    "load_workload": "accel_sim.foundations.workload.loader",
    "simulate": "accel_sim.pipeline.simulate",
    "simulate_many": "accel_sim.pipeline.simulate",
    "ArchSpec": "accel_sim.pipeline.catalog",
    # the sweep API needs pandas: a run (``accel-sim run``) never loads it
    "load_results": "accel_sim.pipeline.sweep",
    "pareto_front": "accel_sim.pipeline.sweep",
    "run_sweep": "accel_sim.systems.sweep",
}


def __getattr__(name: str):
    if name in _API:
        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module 'accel_sim' has no attribute {name!r}")


__all__ = ["__version__", *_API]
