"""The one path from specs to results: plan, count (fast path or reference), account, cost.

Every caller (the CLI, sweeps, studies, notebooks) goes through :func:`simulate_layer` or
:func:`simulate`; models never load energy tables themselves.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.arch.spec import ArchSpec
from accel_sim.energy.cost import EnergyBreakdown, cost
from accel_sim.energy.table import EnergyTable, load_energy_table
from accel_sim.family.registry import family_of
from accel_sim.results.layer_result import LayerResult
from accel_sim.results.run_result import RunResult
from accel_sim.workload.layer import Layer, Network


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
    :class:`~accel_sim.errors.SimulationError` instead of running on.
    """
    result = family_of(arch).layer_result(arch, layer, reference=reference, max_cycles=max_cycles)
    return LayerRun(result, cost(result.actions, table if table is not None else load_energy_table(arch.energy_table)))


def simulate(arch: ArchSpec, network: Network, reference: bool = False) -> RunResult:
    """Simulate every layer of ``network`` on ``arch`` and apply the arch's energy table."""
    table = load_energy_table(arch.energy_table)
    runs = tuple(simulate_layer(arch, layer, table, reference) for layer in network.layers)
    return RunResult(arch=arch, network=network, layers=tuple(r.result for r in runs),
                     energy=tuple(r.energy for r in runs))
