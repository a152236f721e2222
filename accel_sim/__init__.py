"""accel_sim: cycle-level simulator of sparse and low-precision deep-learning accelerators.

The Python API is what the command line calls::

    from accel_sim import load_arch, load_workload, simulate
    run = simulate(load_arch("tpu_like_128x128_ws"), load_workload("resnet18"))
    run.layers_frame()

and for design-space sweeps (``accel-sim sweep``)::

    from accel_sim import run_sweep, load_results, pareto_front
    run_sweep("sweeps/systolic_small.yaml", "out/small")
    pareto_front(load_results("out/small"))
"""
__version__ = "0.1.0"  # first: accel_sim.sweep reads it (it is part of every sweep point's key)

from accel_sim.config.loader import REPO_ROOT, load_arch  # noqa: E402
from accel_sim.errors import InputError  # noqa: E402
from accel_sim.simulate import simulate  # noqa: E402
from accel_sim.workload.loader import load_workload  # noqa: E402

# The sweep API needs pandas: imported on first use, so a run (``accel-sim run``) never loads it.
_SWEEP_NAMES = ("load_results", "pareto_front", "run_sweep")


def __getattr__(name: str):
    if name in _SWEEP_NAMES:
        import accel_sim.sweep as sweep
        return getattr(sweep, name)
    raise AttributeError(f"module 'accel_sim' has no attribute {name!r}")

__all__ = ["REPO_ROOT", "InputError", "__version__", "load_arch", "load_results", "load_workload", "pareto_front",
           "run_sweep", "simulate"]
