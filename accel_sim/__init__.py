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
from accel_sim.sweep import load_results, pareto_front, run_sweep  # noqa: E402
from accel_sim.workload.loader import load_workload  # noqa: E402

__all__ = ["REPO_ROOT", "InputError", "__version__", "load_arch", "load_results", "load_workload", "pareto_front",
           "run_sweep", "simulate"]
