"""Area and leakage = a chip's blocks x an area table, applied after the run (like energy).

:func:`area_of` prices a family's blocks (``Family.components``) at the config's node;
:func:`static_energy` charges their leakage for a layer's run time. Static energy is reported
beside the dynamic (action) energy, never added into it.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from accel_sim.foundations.energy.area_table import AreaTable
from accel_sim.foundations.energy.cost import EnergyBreakdown
from accel_sim.foundations.energy.technology import scale_factors
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.results.components import Component

UM2_PER_MM2 = 1e6
PJ_PER_UW_S = 1e6  # 1 uW for 1 s = 1 uJ = 1e6 pJ


@dataclass(frozen=True)
class AreaBreakdown:
    """Area (mm2) and leakage power (uW) per component instance (all its blocks); totals by construction."""

    area_mm2: Mapping[str, float]
    leakage_uw: Mapping[str, float]

    @property
    def total_mm2(self) -> float:
        return float(sum(self.area_mm2.values()))

    @property
    def total_leakage_uw(self) -> float:
        return float(sum(self.leakage_uw.values()))


def area_of(components: tuple[Component, ...], table: AreaTable, node_nm: float, where: str = "") -> AreaBreakdown:
    """The blocks' area and leakage at ``node_nm`` (the table's numbers scaled from its node).

    A block whose class the table lacks is bad input: one line naming the component, its class,
    the table and (``where``) the config that asked for it."""
    factors = scale_factors(table.node_nm, node_nm) if table.node_nm else scale_factors(node_nm, node_nm)
    area: dict[str, float] = {}
    leakage: dict[str, float] = {}
    for component in components:
        try:
            block = table.block(component)
        except KeyError:
            raise InputError.single(table.file, f"entries[{component.component_class}]",
                                    f"no area for component '{component.name}' (class {component.component_class}"
                                    f"{', used by ' + where if where else ''}); the table has "
                                    f"{', '.join(table.classes())}") from None
        area[component.name] = area.get(component.name, 0.0) + \
            component.count * block.area_um2 * factors.area / UM2_PER_MM2
        leakage[component.name] = leakage.get(component.name, 0.0) + \
            component.count * block.leakage_uw * factors.leakage
    return AreaBreakdown(MappingProxyType(area), MappingProxyType(leakage))


def static_energy(area: AreaBreakdown, seconds: float) -> EnergyBreakdown:
    """Leakage of every component charged for ``seconds`` (the layer's run time), in pJ."""
    return EnergyBreakdown(MappingProxyType({name: uw * seconds * PJ_PER_UW_S for name, uw in area.leakage_uw.items()}))
