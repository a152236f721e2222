"""Shared set-up of the EIE studies: the shipped config, the nine benchmark layers, sweeps."""
from __future__ import annotations

from collections.abc import Callable, Iterator

from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.pipeline.catalog import load_arch
from accel_sim.models.eie.family import FAMILY
from accel_sim.models.eie.plan import retime
from accel_sim.foundations.energy.cost import cost
from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.pipeline.simulate import LayerRun, energy_factor
from accel_sim.foundations.workload.layer import Layer
from accel_sim.foundations.workload.loader import load_workload

ARCH = "eie"
WORKLOAD = "eie_benchmarks"
EIE_PAPER = "Han et al., EIE, ISCA 2016 (brief: shared/papers/eie.md)"


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


def timing_sweep(field: str, values: tuple, layers: tuple[str, ...] | None = None) -> Iterator[tuple[Layer, object, LayerResult]]:
    """(layer, value, result) for every benchmark layer and every value of one ``eie`` field that
    does not change what is stored (FIFO depth, SRAM width, ...: ``accel_sim.models.eie.plan.TIMING_FIELDS``):
    each layer is planned once, then counted (fast path) and accounted per value. No energy."""
    arch = eie_arch()
    for layer in benchmark_layers(layers):
        plan = FAMILY.plan(arch, layer)
        for value in values:
            timed = retime(plan, field, value)
            yield layer, value, FAMILY.account(timed, FAMILY.fast(timed))


def costed(arch: ArchSpec) -> Callable[[LayerResult], LayerRun]:
    """A result with its energy on ``arch``'s table, as ``simulate_layer`` costs it."""
    table = load_energy_table(arch.energy_table)
    factor = energy_factor(arch, table)
    return lambda result: LayerRun(result, cost(result.actions, table, factor))


def timing_sweep_runs(field: str, values: tuple, layers: tuple[str, ...] | None = None) -> Iterator[tuple[Layer, object, LayerRun]]:
    """:func:`timing_sweep` with each result's energy: what ``simulate_layer`` gives for the arch with
    ``eie.<field>`` set to each value, with each layer planned (encoded) once instead of per value."""
    with_energy = costed(eie_arch())
    for layer, value, result in timing_sweep(field, values, layers):
        yield layer, value, with_energy(result)
