"""Energy = action counts x table, applied after the run."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from accel_sim.foundations.energy.table import EnergyTable
from accel_sim.foundations.results.counts import ActionCount


@dataclass(frozen=True)
class EnergyBreakdown:
    """Energy in pJ per component instance; ``total_pj`` is their sum, by construction."""

    by_component_pj: Mapping[str, float]

    @property
    def total_pj(self) -> float:
        return float(sum(self.by_component_pj.values()))


def cost(actions: tuple[ActionCount, ...], table: EnergyTable, factor: float = 1.0) -> EnergyBreakdown:
    """Energy per component: counts x table, the energy per action times ``factor`` (technology
    scaling) first, so an ERT written with the scaled energies costs the same bit for bit."""
    parts: dict[str, float] = {}
    for action in actions:
        energy = table.energy_pj(action) if factor == 1.0 else action.count * (table.per_action_pj(action) * factor)
        parts[action.component] = parts.get(action.component, 0.0) + energy
    return EnergyBreakdown(MappingProxyType(parts))
