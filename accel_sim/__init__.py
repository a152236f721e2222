"""accel_sim: cycle-level simulator of sparse and low-precision deep-learning accelerators.

The Python API is what the command line calls::

    from accel_sim import load_arch, load_workload, simulate
    run = simulate(load_arch("tpu_like_128x128_ws"), load_workload("resnet18"))
    run.layers_frame()
"""
from accel_sim.config.loader import load_arch
from accel_sim.errors import InputError
from accel_sim.simulate import simulate
from accel_sim.workload.loader import load_workload

__version__ = "0.1.0"
__all__ = ["InputError", "__version__", "load_arch", "load_workload", "simulate"]
