"""Shared set-up of the EIE studies: the shipped config, the nine benchmark layers, one run."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from accel_sim.arch.spec import ArchSpec
from accel_sim.config.loader import load_arch
from accel_sim.eie import model
from accel_sim.energy.cost import EnergyBreakdown, cost
from accel_sim.energy.table import load_energy_table
from accel_sim.results.layer_result import LayerResult
from accel_sim.workload.layer import Layer
from accel_sim.workload.loader import load_workload

ARCH = "eie"
WORKLOAD = "eie_benchmarks"
EIE_PAPER = "Han et al., EIE, ISCA 2016 (brief: shared/papers/eie.md)"


@dataclass(frozen=True)
class EIERun:
    result: LayerResult
    energy: EnergyBreakdown


def benchmark_layers(layers: tuple[str, ...] | None = None, workload: str = WORKLOAD) -> tuple[Layer, ...]:
    """The benchmark layers (all nine, or those named, in file order)."""
    network = load_workload(workload)
    chosen = tuple(layer for layer in network.layers if layers is None or layer.name in layers)
    if layers is not None and len(chosen) != len(set(layers)):
        known = ", ".join(layer.name for layer in network.layers)
        raise ValueError(f"unknown layer in {layers}; {workload} has {known}")
    return chosen


def eie_arch(**overrides) -> ArchSpec:
    return load_arch(ARCH, {f"eie.{k}": v for k, v in overrides.items()})


def run_plan(arch: ArchSpec, plan: model.LayerPlan) -> EIERun:
    """Fast-path result and energy of a planned layer."""
    result = model.layer_result(arch, plan, model.fast_counts(plan))
    return EIERun(result, cost(result.actions, load_energy_table(arch.energy_table)))


def sweep_runs(field: str, values: tuple, layers: tuple[str, ...] | None = None) -> Iterator[tuple[Layer, object, EIERun]]:
    """(layer, value, run) for every benchmark layer and every value of one ``eie`` field that
    does not change the encoding (FIFO depth, SRAM width): each layer is planned once."""
    arch = eie_arch()
    for layer in benchmark_layers(layers):
        plan = model.plan_layer(arch, layer)
        for value in values:
            yield layer, value, run_plan(*model.replan(arch, plan, **{field: value}))
