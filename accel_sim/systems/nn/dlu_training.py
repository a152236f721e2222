"""A real training run on a ``dlu`` arch: numerics and cycle / energy counts of each step.

The digits classifier (:mod:`accel_sim.systems.nn`) trains with every tensor in the arch's data
type: float32 for ``fp32``, or dynamic fixed point (``int16`` / ``int8`` / ``int4``) with the
point chosen by the simulated statistics hardware (:class:`DynamicFixedPointUnit`, configured
from the arch's ``dlu`` section). Each training step's GEMMs (forward, weight gradients,
activation gradients) are simulated and costed on the arch (:func:`accel_sim.pipeline.simulate.simulate_layer`);
a re-run of a layer repeats its GEMM.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.foundations.compress.quantization.leading_bit_statistics import PointRange
from accel_sim.models.dlu.accounting import COMPUTE_COMPONENTS, MEMORY_COMPONENTS
from accel_sim.models.dlu.spec import DLUSpec
from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.systems.nn.digits import DigitsData
from accel_sim.systems.nn.dynamic_fixed_point import DynamicFixedPointUnit, UnitSettings
from accel_sim.systems.nn.mlp import MLP
from accel_sim.systems.nn.number_format import Float32
from accel_sim.systems.nn.training import DEFAULT_SCHEDULE, Schedule, TrainingRun, train
from accel_sim.pipeline.simulate import simulate_layer

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


def unit_settings(spec: DLUSpec, static: bool = False) -> UnitSettings:
    """The number unit a ``dlu`` section describes (a fixed-point data type)."""
    if not spec.is_fixed_point:
        raise ValueError(f"dlu.data_type {spec.data_type} is not a fixed-point type")
    return UnitSettings(bits=spec.bits, rule=spec.update_rule, rounding=spec.rounding,
                        accumulator_bits=spec.accumulator_bits, initial_point=spec.initial_point,
                        point_range=PointRange(spec.min_fraction_bits, spec.max_fraction_bits),
                        max_overflow_rate=spec.max_overflow_rate, percentile=spec.percentile,
                        update_interval=spec.update_interval, rerun_threshold=spec.rerun_threshold,
                        split_by_sign=spec.split_by_sign, static=static)


def step_cost(arch: ArchSpec, model: MLP, batch: int, reruns: dict[str, float] | None = None) -> StepCost:
    """One training step's GEMMs on ``arch``; ``reruns`` gives re-runs per step of each GEMM."""
    table = load_energy_table(arch.energy_table)
    reruns = reruns or {}
    cycles = compute = memory = 0.0
    macs = 0
    for name, layer in model.training_gemms(batch):
        run = simulate_layer(arch, layer, table)
        energy = run.energy.by_component_pj
        times = 1.0 + reruns.get(name, 0.0)
        cycles += times * run.result.cycles
        compute += times * sum(energy.get(c, 0.0) for c in COMPUTE_COMPONENTS)
        memory += times * sum(energy.get(c, 0.0) for c in MEMORY_COMPONENTS)
        macs += run.result.macs_issued
    return StepCost(cycles, compute, memory, macs)


def train_on_dlu(arch: ArchSpec, data: DigitsData, schedule: Schedule = DEFAULT_SCHEDULE, static: bool = False,
                 watch: tuple[str, ...] = (), per_epoch_accuracy: bool = True) -> DLUTrainingRun:
    """Train the digits classifier in the arch's data type and cost its steps on the arch.

    ``static``: each tensor's point is set once from its first statistics and never updated.
    ``watch``: tensors whose histogram and point the unit records at every step.
    ``per_epoch_accuracy``: see :func:`accel_sim.systems.nn.training.train`.
    """
    spec: DLUSpec = arch.section("dlu")
    if spec.data_type not in TRAINABLE_TYPES:
        raise ValueError(f"training runs in {', '.join(TRAINABLE_TYPES)}; dlu.data_type is {spec.data_type}")
    unit = None
    if spec.is_fixed_point:
        unit = DynamicFixedPointUnit(unit_settings(spec, static=static), seed=schedule.seed, watch=watch)
    elif static:
        raise ValueError("static=True needs a fixed-point dlu.data_type")
    run = train(data, schedule, unit if unit is not None else Float32(), per_epoch_accuracy=per_epoch_accuracy)
    reruns = {}
    if unit is not None and run.steps:
        reruns = {name: unit.reruns(name) / run.steps for name, _ in run.model.training_gemms(schedule.batch_size)}
    return DLUTrainingRun(run, unit, step_cost(arch, run.model, schedule.batch_size, reruns))
