"""A sweep point that is one training step (``evaluate: training_step`` in a sweep file): every layer's
forward, input-error and weight-gradient GEMMs simulated on the point's arch, at the workload's batch."""
from __future__ import annotations

from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.systems.training.timing import network_timing
from accel_sim.foundations.workload.layer import Network


def training_step_point(arch: ArchSpec, network: Network) -> dict[str, float | int]:
    """Numbers stored per point: the step's cycles and seconds (forward, backward), energy and MACs (the
    sweep's derived metrics read ``cycles``, ``energy_pj`` and ``macs_dense``)."""
    timing = network_timing(arch, network, batch=1)
    forward = sum(t.forward_s for t in timing.layers)
    backward = sum(t.backward_s for t in timing.layers)
    return {"cycles": round((forward + backward) * arch.clock), "step_s": forward + backward,
            "forward_s": forward, "backward_s": backward, "energy_pj": timing.energy_pj,
            "macs_dense": sum(t.macs for t in timing.layers), "gradient_elements": timing.weights}
