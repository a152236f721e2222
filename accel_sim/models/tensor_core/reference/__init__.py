"""Discrete-event reference of the tensor-core kernel (SimPy; for tests and small GEMMs).

Hardware agents are processes (:mod:`.gpu`: the CTA scheduler; :mod:`.sm`: each SM's loader,
shared-memory path and tensor cores; :mod:`.memory`: the L2, DRAM and SM ports serving rounds of
requests), linked by stores, with events per CTA, per stage of K and per round, never per MAC.
Each transfer's whole cycles come from a :class:`~accel_sim.hardware.link.Link`; pipelining,
the wave's slowest SM, DRAM reads of slices the L2 lacks and waves come from the interactions.

Every candidate kernel runs; one that has not finished when the best so far did loses (ties
keep the first), and every run stops at the ``max_cycles`` guard.
"""
from __future__ import annotations

from accel_sim.foundations.errors import SimulationError
from accel_sim.models.tensor_core.counters import TensorCoreCounters
from accel_sim.models.tensor_core.plan import TensorCorePlan
from accel_sim.hardware.recorder import Recorder
from accel_sim.models.tensor_core.reference.gpu import run_kernel


def reference(plan: TensorCorePlan, max_cycles: int | None = None,
              recorder: Recorder | None = None) -> TensorCoreCounters:
    """The fastest candidate's counters; ``recorder`` (teaching traces) records a second run of it:
    each SM's stages on its tensor cores (their MACs, padding included) and shared memory, the
    wave barrier, the L2 rounds and DRAM reads."""
    if recorder is not None:
        return run_kernel(plan, reference(plan, max_cycles).kernel, None, recorder)
    best = None
    for index in range(len(plan.kernels)):
        limit = best.cycles if best is not None else (None if max_cycles is None else max_cycles + 1)
        run = run_kernel(plan, index, limit)
        if run is not None:
            best = run
    if best is None:
        raise SimulationError(f"{plan.layer.name}: every kernel ran past the max_cycles guard {max_cycles}")
    return best
