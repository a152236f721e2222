"""Energy tables: energy per action by component class, action, width and capacity.

A table is a YAML file (see ``tables/horowitz_45nm.yaml``): every entry carries its
source. Lookups never guess silently: an action whose class/action pair is not in
the table is an error naming the table and the pair.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from accel_sim.foundations.config.loader import resolve_path
from accel_sim.foundations.config.schema import build, spec_field
from accel_sim.foundations.config.yaml_io import read_yaml
from accel_sim.foundations.energy.lookup import by_capacity
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.results.counts import ActionCount

TABLE_DIR = Path(__file__).resolve().parent / "tables"
T = TypeVar("T")


@dataclass(frozen=True)
class EnergyEntry:
    component_class: str = spec_field("Component class, e.g. sram, dram, mult_int.")
    action: str = spec_field("Action, e.g. read, write, op.")
    bits: int = spec_field("Width of one action.", positive=True)
    energy: float = spec_field("Energy of one action.", unit="energy", minimum=0)
    source: str = spec_field("Where the number comes from.")
    capacity: int = spec_field("Capacity of the storage this entry is for (0: any).", 0, unit="size", minimum=0)


@dataclass(frozen=True)
class EnergyTableSpec:
    name: str = spec_field("Table name.")
    entries: tuple[EnergyEntry, ...] = spec_field("Energy per action entries.")
    technology: str = spec_field("Process node and voltage the numbers are for.", "")
    node_nm: float = spec_field("Process node (nm) of the numbers; a run at another node scales them "
                                "(accel_sim/foundations/energy/technology.py). 0: never scaled.", 45, minimum=0)
    width_exponents: dict[str, float] = spec_field(
        "Per class: energy scales with (bits / listed bits) ** exponent.", default_factory=dict)


class Table:
    """A validated table file: its spec (name, node_nm, entries) and where it came from."""

    def __init__(self, spec, file: str):
        self.spec = spec
        self.file = file

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def node_nm(self) -> float:
        return self.spec.node_nm


class EnergyTable(Table):
    def __init__(self, spec: EnergyTableSpec, file: str):
        super().__init__(spec, file)
        self._by_key: dict[tuple[str, str], list[EnergyEntry]] = {}
        for entry in spec.entries:
            self._by_key.setdefault((entry.component_class, entry.action), []).append(entry)

    def energy_per_action_pj(self, component_class: str, action: str, bits: int, capacity_bytes: int = 0) -> float:
        entries = self._by_key.get((component_class, action))
        if not entries:
            known = ", ".join(sorted(f"{c}/{a}" for c, a in self._by_key))
            raise InputError.single(self.file, f"entries[{component_class}/{action}]",
                                    f"no energy for this component class and action; the table has {known}")
        exponent = self.spec.width_exponents.get(component_class, 1.0)
        sized = [e for e in entries if e.capacity > 0]
        if sized and capacity_bytes > 0:
            return self._by_capacity(sized, capacity_bytes, bits, exponent)
        nearest = min(entries, key=lambda e: (abs(math.log2(e.bits / bits)), -e.bits))
        return nearest.energy * (bits / nearest.bits) ** exponent

    @staticmethod
    def _by_capacity(entries: list[EnergyEntry], capacity: int, bits: int, exponent: float) -> float:
        return by_capacity([(e.capacity, e.energy * (bits / e.bits) ** exponent) for e in entries], capacity)

    def per_action_pj(self, action: ActionCount) -> float:
        return self.energy_per_action_pj(action.component_class, action.action, action.bits, action.capacity_bytes)

    def energy_pj(self, action: ActionCount) -> float:
        return action.count * self.per_action_pj(action)


def load_energy_table(name_or_path: str | Path) -> EnergyTable:
    """The table, parsed once per file version (a sweep costs thousands of runs against one table;
    editing the file is seen because its modification time and size are part of the cache key).
    An Accelergy ERT file is read as a table too (:mod:`accel_sim.foundations.energy.accelergy`)."""
    return load_table(name_or_path, _energy_table)


def _energy_table(path: str, raw: object) -> EnergyTable:
    if isinstance(raw, dict) and "ERT" in raw:
        from accel_sim.foundations.energy.accelergy import ErtTable
        return ErtTable(raw, path)
    return EnergyTable(build(EnergyTableSpec, raw, path), path)


def load_table(name_or_path: str | Path, parse: Callable[[str, object], T]) -> T:
    """A table file (a name in ``tables/`` or a path) parsed by ``parse(path, raw)``, once per file
    version; every entry's ``class`` key is renamed ``component_class`` first."""
    path = resolve_path(name_or_path, TABLE_DIR, (".yaml", ".yml"))
    stat = path.stat()
    return _parsed(str(path), stat.st_mtime_ns, stat.st_size, parse)


@lru_cache(maxsize=32)
def _parsed(path: str, mtime_ns: int, size: int, parse: Callable[[str, object], T]) -> T:
    raw = read_yaml(Path(path))
    if isinstance(raw, dict) and isinstance(raw.get("entries"), list):
        raw = dict(raw, entries=[_rename_class(e) for e in raw["entries"]])
    return parse(path, raw)


def _rename_class(entry):
    # YAML tables say "class" (Accelergy's word); Python can't name a field that.
    if isinstance(entry, dict) and "class" in entry:
        entry = dict(entry)
        entry["component_class"] = entry.pop("class")
    return entry
