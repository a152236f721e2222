"""A cluster config to its results: step time and breakdown, scaling, energy and power.

The device's per-layer forward / backward times come from simulating its GEMMs
(:func:`accel_sim.systems.training.timing.network_timing`); the step is then run on the discrete-event model
(:mod:`accel_sim.systems.cluster.reference`), whose result is checked against the closed form where one exists
(every step ending in a barrier) and against the two bounds.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

from accel_sim.systems.cluster.fast import barrier_step_s, no_overlap_s, perfect_overlap_s
from accel_sim.systems.cluster.plan import StepPlan, Techniques, plan_step
from accel_sim.systems.cluster.reference import run_reference
from accel_sim.systems.cluster.spec import ClusterSpec, LoadedCluster
from accel_sim.foundations.memo import ShapeMemo, content_key
from accel_sim.foundations.errors import SimulationError
from accel_sim.systems.training.memory import largest_batch, plan_memory
from accel_sim.systems.training.timing import NetworkTiming, network_timing, scaled_timing
from accel_sim.foundations.workload.layer import Network

CLOSED_FORM_TOLERANCE = 1e-9   # relative: the two paths add the same times in different orders
BITS_PER_BYTE = 8


@dataclass(frozen=True)
class ClusterResult:
    devices: int
    hosts: int
    techniques: Techniques
    gradient_bits: int
    step_s: float
    compute_s: float               # one device's forward + backward
    update_s: float                # one device's optimizer update (0: not modelled)
    copy_busy_s: float             # device->host and host->device copies of one step
    reduce_busy_s: float           # host reduction and network all-reduce of one step
    memory_busy_s: float           # host memory at full bandwidth for one step's communication (0: not modelled)
    buckets: int
    chunks: int
    samples_per_s: float
    speedup: float                 # samples per second over one device's
    energy_j: float                # boards and hosts at their power for one step
    power_w: float
    compute_energy_j: float        # simulated dynamic energy of every device's GEMMs (energy table)
    devices_in_power_cap: int | None
    peak_memory_bytes: int         # one device, data-parallel step (gradients kept for the all-reduce)
    largest_batch: int             # in the device memory, same schedule

    @property
    def exposed_communication_s(self) -> float:
        """Step time the device neither computes nor updates (0 within rounding when all communication is
        hidden)."""
        return max(0.0, self.step_s - self.compute_s - self.update_s)

    @property
    def scaling_efficiency(self) -> float:
        return self.speedup / self.devices

    def row(self) -> dict:
        data = {k: v for k, v in dataclasses.asdict(self).items() if k != "techniques"}
        data.update(dataclasses.asdict(self.techniques))
        data["exposed_communication_s"] = self.exposed_communication_s
        data["scaling_efficiency"] = self.scaling_efficiency
        return data


def step_plan(spec: ClusterSpec, timing: NetworkTiming, devices: int, techniques: Techniques) -> StepPlan:
    gradient_bytes = [layer.weights * spec.gradients.bits / BITS_PER_BYTE for layer in timing.layers]
    device = spec.device
    update = None if device.update_bandwidth is None else \
        [layer.weights * device.update_bytes_per_weight / device.update_bandwidth for layer in timing.layers]
    return plan_step([t.forward_s for t in timing.layers], [t.backward_s for t in timing.layers], gradient_bytes,
                     spec.fabric(devices), techniques, spec.gradients.bucket, spec.gradients.chunk, update)


# step times of the plans simulated in this process: the studies meet some plans more than once (the same
# system in two tables or two studies); the model is deterministic, so a plan is simulated once
_STEPS = ShapeMemo(capacity=4096)


def modelled_step_s(plan: StepPlan, steps: int) -> float:
    """The discrete-event step time, held to the closed form and the bounds (a plan met before in this
    process: its step time then)."""
    return _STEPS.get((steps, content_key(plan)), lambda: _checked_step_s(plan, steps))


def _checked_step_s(plan: StepPlan, steps: int) -> float:
    step = run_reference(plan, steps).step_s
    low, high = perfect_overlap_s(plan), no_overlap_s(plan)
    if not low * (1 - CLOSED_FORM_TOLERANCE) <= step <= high * (1 + CLOSED_FORM_TOLERANCE):
        raise SimulationError(f"cluster step {step} s outside its bounds [{low}, {high}] s")
    if not plan.techniques.forward_overlap:
        closed = barrier_step_s(plan)
        if abs(step - closed) > CLOSED_FORM_TOLERANCE * closed:
            raise SimulationError(f"cluster step {step} s differs from the closed form {closed} s")
    return step


@functools.lru_cache(maxsize=64)
def device_memory(network: Network, batch: int, memory: int) -> tuple[int, int]:
    """Peak bytes of one device's data-parallel step (liveness schedule: weight gradients are kept for the
    all-reduce, so the fused update of the reordered schedule does not apply) and the largest batch in
    ``memory``."""
    return plan_memory(network, batch, "liveness").peak_bytes, largest_batch(network, memory, "liveness")


def device_timing(loaded: LoadedCluster) -> NetworkTiming:
    """One device's per-layer forward / backward times at its batch: simulated on its arch, or, where the
    config gives a measured whole-network time (``device.measured``), that time scaled linearly to the batch
    and split over the layers in the simulated proportions."""
    device = loaded.spec.device
    timing = network_timing(loaded.arch, loaded.network, device.batch)
    if device.measured is None:
        return timing
    per_sample = device.batch / device.measured.batch
    return scaled_timing(timing, device.measured.forward * per_sample, device.measured.backward * per_sample)


def run_cluster(loaded: LoadedCluster, devices: int | None = None, techniques: Techniques | None = None,
                timing: NetworkTiming | None = None) -> ClusterResult:
    """Simulate ``loaded`` (optionally at another device count or set of techniques; ``timing`` reuses a
    device's simulated layers)."""
    spec = loaded.spec
    devices = devices or spec.devices
    techniques = techniques or spec.techniques_switches()
    if timing is None:
        timing = device_timing(loaded)
    plan = step_plan(spec, timing, devices, techniques)
    step = modelled_step_s(plan, spec.steps)
    single = plan.device_busy_s                   # one device: compute and update, no communication
    fabric = spec.fabric(devices)
    power = devices * spec.device.power + fabric.hosts * spec.host.power
    per_device = spec.device.power + spec.host.power / spec.devices_per_host
    cap = None if spec.power_cap is None else math.floor(spec.power_cap / per_device)
    memory, batch_fits = device_memory(loaded.network, spec.device.batch, spec.device.memory)
    return ClusterResult(
        devices=devices, hosts=fabric.hosts, techniques=techniques, gradient_bits=spec.gradients.bits,
        step_s=step, compute_s=plan.compute_s, update_s=plan.update_total_s, copy_busy_s=float(plan.parts_s[:, [0, 2]].sum()),
        reduce_busy_s=float(plan.parts_s[:, 1].sum()), memory_busy_s=plan.memory_busy_s, buckets=plan.buckets, chunks=len(plan.stage_s),
        samples_per_s=devices * spec.device.batch / step, speedup=devices * single / step,
        energy_j=power * step, power_w=power, compute_energy_j=devices * timing.energy_pj * 1e-12,
        devices_in_power_cap=cap, peak_memory_bytes=memory,
        largest_batch=batch_fits)
