"""Energy = action counts x table, applied after the run."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
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


OFF_CHIP = "dram"   # the component outside the chip: its energy is not part of the chip's power


def with_uncounted(energy: EnergyBreakdown, shares: Iterable[tuple[str, float]]) -> EnergyBreakdown:
    """``energy`` plus the blocks no action counts, each ``(block, share)`` at its share of the chip's power: the
    counted on-chip energy E (every component but dram) is the rest of the chip, so the chip is E / (1 - S) with S
    the shares' sum, and a block gets share x E / (1 - S). No shares: ``energy`` itself."""
    shares = tuple(shares)
    if not shares:
        return energy
    parts = dict(energy.by_component_pj)
    chip = (energy.total_pj - parts.get(OFF_CHIP, 0.0)) / (1.0 - sum(share for _, share in shares))
    for block, share in shares:
        parts[block] = parts.get(block, 0.0) + share * chip
    return EnergyBreakdown(MappingProxyType(parts))
