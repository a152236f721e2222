"""The one path from specs to results: plan, count (fast path or reference), account, cost.

Every caller (the CLI, sweeps, studies, notebooks) goes through :func:`simulate_layer` or
:func:`simulate`; models never load energy tables themselves.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from accel_sim.arch.spec import ArchSpec
from accel_sim.energy.cost import EnergyBreakdown, cost
from accel_sim.energy.table import EnergyTable, load_energy_table
from accel_sim.family.contract import Family
from accel_sim.family.registry import family_of
from accel_sim.results.layer_result import LayerResult
from accel_sim.results.run_result import RunResult
from accel_sim.workload.layer import Layer, Network
from accel_sim.workload.work import check_work


def _checked_family(arch: ArchSpec, layer: Layer) -> Family:
    family = family_of(arch)
    check_work(layer, arch.name, None if family.work_elements is None else lambda lay: family.work_elements(arch, lay))
    return family


@dataclass(frozen=True)
class LayerRun:
    """One layer's result and its energy."""

    result: LayerResult
    energy: EnergyBreakdown


def simulate_layer(arch: ArchSpec, layer: Layer, table: EnergyTable | None = None, reference: bool = False,
                   max_cycles: int | None = None) -> LayerRun:
    """Simulate one layer on ``arch`` and cost it with ``table`` (default: the arch's energy table).

    ``reference=True`` counts with the family's discrete-event reference instead of its fast
    path (slow; same result). ``max_cycles`` stops a run that would go beyond it with a
    :class:`~accel_sim.errors.SimulationError` instead of running on. A layer too large to
    simulate is refused first (:func:`~accel_sim.workload.work.check_work`).
    """
    family = _checked_family(arch, layer)
    result = family.layer_result(arch, layer, reference=reference, max_cycles=max_cycles)
    return LayerRun(result, cost(result.actions, table if table is not None else load_energy_table(arch.energy_table)))


def simulate(arch: ArchSpec, network: Network, reference: bool = False,
             on_layer: Callable[[Layer], None] | None = None) -> RunResult:
    """Simulate every layer of ``network`` on ``arch`` and apply the arch's energy table.

    ``on_layer`` is called with each layer before it is simulated (progress, error context)."""
    for layer in network.layers:  # every layer's size, before the first is simulated
        _checked_family(arch, layer)
    table = load_energy_table(arch.energy_table)
    runs = []
    for layer in network.layers:
        if on_layer is not None:
            on_layer(layer)
        runs.append(simulate_layer(arch, layer, table, reference))
    return RunResult(arch=arch, network=network, layers=tuple(r.result for r in runs),
                     energy=tuple(r.energy for r in runs))
