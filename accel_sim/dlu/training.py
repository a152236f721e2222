"""A real training run on the simulated DLU: numerics and cycle / energy counts of each step.

The digits classifier (:mod:`accel_sim.nn`) trains with every tensor in the arch's data
type: float32 for ``fp32``, or dynamic fixed point (``int16`` / ``int8`` / ``int4``) with the
point chosen by the simulated statistics hardware (:class:`DynamicFixedPointUnit`, configured
from the arch's ``dlu`` section). Each training step's GEMMs (forward, weight gradients,
activation gradients) run on the DLU model; a re-run of a layer repeats its GEMM.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.arch.spec import ArchSpec
from accel_sim.dlu.dynamic_fixed_point import DynamicFixedPointUnit, UnitSettings
from accel_sim.dlu.model import dlu_spec, simulate_layer
from accel_sim.energy.cost import cost
from accel_sim.energy.table import load_energy_table
from accel_sim.nn.digits import DigitsData
from accel_sim.nn.mlp import MLP
from accel_sim.nn.number_format import Float32
from accel_sim.nn.training import DEFAULT_SCHEDULE, Schedule, TrainingRun, train

COMPUTE_COMPONENTS = ("datapath", "requantize", "statistics", "settings")
MEMORY_COMPONENTS = ("local_memory", "dram")
TRAINABLE_TYPES = ("fp32", "int16", "int8", "int4")


@dataclass(frozen=True)
class StepCost:
    """Cycles and energy of one training step (GEMMs only), re-runs averaged in."""

    cycles: float
    compute_energy_pj: float
    memory_energy_pj: float
    macs: int

    @property
    def energy_pj(self) -> float:
        return self.compute_energy_pj + self.memory_energy_pj


@dataclass(frozen=True)
class DLUTrainingRun:
    run: TrainingRun
    unit: DynamicFixedPointUnit | None
    step: StepCost

    @property
    def overflow_rate(self) -> float:
        return self.unit.overflow_rate if self.unit is not None else 0.0


def step_cost(arch: ArchSpec, model: MLP, batch: int, reruns: dict[str, float] | None = None) -> StepCost:
    """One training step's GEMMs on ``arch``; ``reruns`` gives re-runs per step of each GEMM."""
    table = load_energy_table(arch.energy_table)
    reruns = reruns or {}
    cycles = compute = memory = 0.0
    macs = 0
    for name, layer in model.training_gemms(batch):
        result = simulate_layer(arch, layer)
        energy = cost(result.actions, table).by_component_pj
        times = 1.0 + reruns.get(name, 0.0)
        cycles += times * result.cycles
        compute += times * sum(energy.get(c, 0.0) for c in COMPUTE_COMPONENTS)
        memory += times * sum(energy.get(c, 0.0) for c in MEMORY_COMPONENTS)
        macs += result.macs_issued
    return StepCost(cycles, compute, memory, macs)


def train_on_dlu(arch: ArchSpec, data: DigitsData, schedule: Schedule = DEFAULT_SCHEDULE, static: bool = False,
                 watch: tuple[str, ...] = ()) -> DLUTrainingRun:
    """Train the digits classifier in the arch's data type and cost its steps on the arch.

    ``static``: each tensor's point is set once from its first statistics and never updated.
    ``watch``: tensors whose histogram and point the unit records at every step.
    """
    spec = dlu_spec(arch)
    if spec.data_type not in TRAINABLE_TYPES:
        raise ValueError(f"training runs in {', '.join(TRAINABLE_TYPES)}; dlu.data_type is {spec.data_type}")
    unit = None
    if spec.is_fixed_point:
        unit = DynamicFixedPointUnit(UnitSettings.from_spec(spec, static=static), seed=schedule.seed, watch=watch)
    elif static:
        raise ValueError("static=True needs a fixed-point dlu.data_type")
    run = train(data, schedule, unit if unit is not None else Float32())
    reruns = {}
    if unit is not None and run.steps:
        reruns = {name: unit.reruns(name) / run.steps for name, _ in run.model.training_gemms(schedule.batch_size)}
    return DLUTrainingRun(run, unit, step_cost(arch, run.model, schedule.batch_size, reruns))
