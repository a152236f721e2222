"""Area tables: area and leakage power of one block by component class, width and capacity.

A table is a YAML file beside the energy tables (``tables/cacti_aladdin_45nm_area.yaml``); every
entry carries its source and the node its numbers are for. A block whose class is not in the
table is an error naming the table and the class (:func:`accel_sim.foundations.energy.area.area_of` turns
it into one line naming the component).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from accel_sim.foundations.config.schema import build, spec_field
from accel_sim.foundations.energy.lookup import BlockCost, by_capacity, nearest_width
from accel_sim.foundations.energy.table import Table, load_table
from accel_sim.foundations.energy.technology import scale_factors
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.results.components import Component

UW_PER_W = 1e6   # a table's leakage is parsed to watts (accel_sim.foundations.units); blocks report microwatts


@dataclass(frozen=True)
class AreaEntry:
    component_class: str = spec_field("Component class, e.g. sram, mult_int, register, crossbar.")
    bits: int = spec_field("Width of one word (crossbar: one crosspoint bit).", positive=True)
    area: float = spec_field("Area of one block.", unit="area", minimum=0)
    leakage: float = spec_field("Leakage (static) power of one block.", unit="power", minimum=0)
    source: str = spec_field("Where the numbers come from.")
    capacity: int = spec_field("Capacity of the storage this entry is for (0: any).", 0, unit="size", minimum=0)
    node_nm: float = spec_field("Process node of this entry's numbers (0: the table's node).", 0, minimum=0)


@dataclass(frozen=True)
class AreaTableSpec:
    name: str = spec_field("Table name.")
    node_nm: float = spec_field("Process node the table's results are for.", positive=True)
    entries: tuple[AreaEntry, ...] = spec_field("Area and leakage per block.")
    technology: str = spec_field("Process and cell types the numbers are for.", "")
    width_exponents: dict[str, float] = spec_field(
        "Per class: area and leakage scale with (bits / listed bits) ** exponent.", default_factory=dict)


class AreaTable(Table):
    def __init__(self, spec: AreaTableSpec, file: str):
        super().__init__(spec, file)
        self._by_class: dict[str, list[AreaEntry]] = {}
        for entry in spec.entries:
            self._by_class.setdefault(entry.component_class, []).append(entry)

    def classes(self) -> list[str]:
        return sorted(self._by_class)

    def block(self, component: Component) -> BlockCost:
        """Area and leakage of one of ``component``'s blocks. Raises KeyError for an unknown class."""
        entries = self._by_class[component.component_class]
        exponent = self.spec.width_exponents.get(component.component_class, 1.0)
        width = nearest_width(sorted({e.bits for e in entries}), component.bits)
        same_width = [e for e in entries if e.bits == width]
        width_scale = (component.bits / width) ** exponent
        sized = [e for e in same_width if e.capacity > 0]
        if sized and component.capacity_bytes > 0:
            area = by_capacity([(e.capacity, self._area(e)) for e in sized], component.capacity_bytes, "linear")
            leakage = by_capacity([(e.capacity, self._leakage(e)) for e in sized], component.capacity_bytes, "linear") \
                if all(e.leakage > 0 for e in sized) else 0.0
        else:
            entry = same_width[0]
            area, leakage = self._area(entry), self._leakage(entry)
        ports = component.ports if component.ports > 0 else 1
        return BlockCost(area * width_scale * ports, leakage * width_scale * ports)

    def _factors(self, entry: AreaEntry):
        return scale_factors(entry.node_nm or self.node_nm, self.node_nm)

    def _area(self, entry: AreaEntry) -> float:
        return entry.area * self._factors(entry).area

    def _leakage(self, entry: AreaEntry) -> float:
        """Leakage of one block in uW (the power unit's base is the watt)."""
        return entry.leakage * UW_PER_W * self._factors(entry).leakage


def load_area_table(name_or_path: str | Path) -> AreaTable:
    """The table, parsed once per file version (see :func:`accel_sim.foundations.energy.table.load_energy_table`).
    An Accelergy ART file is read as a table too (:mod:`accel_sim.foundations.energy.accelergy`)."""
    return load_table(name_or_path, _area_table)


def _area_table(path: str, raw: object) -> AreaTable:
    if isinstance(raw, dict) and "ART" in raw:
        from accel_sim.foundations.energy.accelergy import ArtTable
        return ArtTable(raw, path)
    spec = build(AreaTableSpec, raw, path)
    for i, entry in enumerate(spec.entries):
        if entry.node_nm:
            try:
                scale_factors(entry.node_nm, spec.node_nm)
            except ValueError as err:
                raise InputError.single(path, f"entries[{i}].node_nm", str(err)) from None
    return AreaTable(spec, path)
