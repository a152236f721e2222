"""Accelergy interchange: read an ERT (energy reference table) or ART (area reference table) as
this project's tables, and write a run's action counts (and the energy per action it was costed
with) in Accelergy's formats.

Formats (Accelergy v0.3, as in its examples: ``examples/primitive_type/output/reference/ERT.yaml``,
``ART.yaml`` and ``input/action_counts.yaml`` of the Accelergy-Project/accelergy repository)::

    ERT: {version: 0.3, tables: [{name: system.pe[0..63].spmat_read,
                                  actions: [{name: read, arguments: {class: sram, bits: 64, capacity: 131072}, energy: 3.2}]}]}
    ART: {version: 0.3, tables: [{name: system.pe[0..63].spmat_read, area: 429589}]}      # um^2 per instance
    action_counts: {version: 0.3, subtree: [{name: system, local: [{name: spmat_read,
                    action_counts: [{name: read, arguments: {...}, counts: 1200}]}]}]}

Energies are pJ, areas um^2 (Accelergy's units). A table is matched to an action by the last
segment of its name (``[..]`` ranges dropped): the component instance (``spmat_read``) first, else
the component class (``sram``). Within a table, an action whose ``arguments`` give ``bits``
(and ``capacity``, ``class``) must match the action's exactly; an action with no such
arguments applies at every width (several such entries with different energies, e.g. Accelergy's
``address_delta`` variants, are refused: accel_sim's counts carry no such arguments). ERT / ART
numbers are taken as they are (never node-scaled).
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import yaml

from accel_sim.foundations.config.yaml_io import dump_yaml
from accel_sim.foundations.energy.lookup import BlockCost
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.results.components import Component
from accel_sim.foundations.results.counts import ActionCount

VERSION = 0.3


def _short(name: str) -> str:
    return re.sub(r"\[[^\]]*\]", "", str(name)).split(".")[-1]


def _number(value, file: str, where: str, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise InputError.single(file, where, f"expected {what} >= 0, got {value!r}")
    return float(value)


def _tables(raw: object, key: str, file: str) -> list:
    body = raw.get(key) if isinstance(raw, dict) else None
    tables = body.get("tables") if isinstance(body, dict) else None
    if not isinstance(tables, list):
        raise InputError.single(file, f"{key}.tables", "expected a list of tables")
    return tables


class ErtTable:
    """An Accelergy ERT as an energy table (same interface as :class:`EnergyTable`)."""

    node_nm = 0.0   # ERT energies are for whatever node they were estimated at: never scaled

    def __init__(self, raw: object, file: str):
        self.file = file
        self.name = Path(file).stem
        self._by_name: dict[str, list[tuple[str, dict, float]]] = {}
        for i, table in enumerate(_tables(raw, "ERT", file)):
            where = f"ERT.tables[{i}]"
            if not isinstance(table, dict) or "name" not in table or not isinstance(table.get("actions"), list):
                raise InputError.single(file, where, "expected a mapping with 'name' and a list of 'actions'")
            for j, action in enumerate(table["actions"]):
                if not isinstance(action, dict) or "name" not in action:
                    raise InputError.single(file, f"{where}.actions[{j}]", "expected a mapping with 'name' and 'energy'")
                energy = _number(action.get("energy"), file, f"{where}.actions[{j}].energy ({table['name']} "
                                 f"{action['name']})", "an energy in pJ")
                arguments = action.get("arguments") or {}
                self._by_name.setdefault(_short(table["name"]), []).append((str(action["name"]), arguments, energy))

    def energy_per_action_pj(self, component: str, component_class: str, action: str, bits: int,
                             capacity_bytes: int = 0) -> float:
        for key in (component, component_class):
            candidates = [(args, e) for name, args, e in self._by_name.get(key, []) if name == action]
            exact = [e for args, e in candidates if args.get("bits") == bits
                     and args.get("capacity", capacity_bytes) == capacity_bytes
                     and args.get("class", component_class) == component_class]
            if exact:
                return exact[0]
            generic = sorted({e for args, e in candidates if "bits" not in args})
            if len(generic) > 1:
                raise InputError.single(self.file, f"ERT.tables[{key}]", f"action {action} has {len(generic)} energies "
                                        f"for different arguments ({', '.join(map(str, generic))}); accel_sim tells "
                                        "actions apart only by the arguments class, bits and capacity")
            if generic:
                return generic[0]
        raise InputError.single(self.file, f"ERT.tables[{component}]", f"no energy for {component} "
                                f"(class {component_class}) action {action} at {bits} bits; the ERT has "
                                f"{', '.join(sorted(self._by_name))}")

    def per_action_pj(self, action: ActionCount) -> float:
        return self.energy_per_action_pj(action.component, action.component_class, action.action,
                                         action.bits, action.capacity_bytes)

    def energy_pj(self, action: ActionCount) -> float:
        return action.count * self.per_action_pj(action)


class ArtTable:
    """An Accelergy ART as an area table (area per instance, um^2; no leakage)."""

    node_nm = 0.0

    def __init__(self, raw: object, file: str):
        self.file = file
        self.name = Path(file).stem
        self._area: dict[str, float] = {}
        for i, table in enumerate(_tables(raw, "ART", file)):
            if not isinstance(table, dict) or "name" not in table:
                raise InputError.single(file, f"ART.tables[{i}]", "expected a mapping with 'name' and 'area'")
            self._area[_short(table["name"])] = _number(table.get("area"), file, f"ART.tables[{i}].area", "an area in um^2")

    def classes(self) -> list[str]:
        return sorted(self._area)

    def block(self, component: Component) -> BlockCost:
        for key in (component.name, component.component_class):
            if key in self._area:
                return BlockCost(self._area[key], 0.0)
        raise KeyError(component.component_class)


def read_accelergy(path: Path) -> ErtTable | ArtTable | None:
    """The ERT or ART in ``path``, or None when the file is neither (a native table)."""
    raw = yaml.safe_load(path.read_text())
    if isinstance(raw, dict) and "ERT" in raw:
        return ErtTable(raw, str(path))
    if isinstance(raw, dict) and "ART" in raw:
        return ArtTable(raw, str(path))
    return None


def _arguments(action: ActionCount) -> dict[str, object]:
    return {"class": action.component_class, "bits": action.bits, "capacity": action.capacity_bytes}


def action_counts_yaml(system: str, actions: tuple[ActionCount, ...]) -> str:
    """The run's action counts (same component, action, width and capacity added) as Accelergy's
    ``action_counts`` (v0.3, one subtree named ``system``)."""
    merged: dict[tuple, int] = {}
    for a in actions:
        key = (a.component, a.action, a.component_class, a.bits, a.capacity_bytes)
        merged[key] = merged.get(key, 0) + a.count
    local: dict[str, list] = {}
    for (component, action, cls, bits, capacity), count in merged.items():
        local.setdefault(component, []).append({"name": action, "arguments": {"class": cls, "bits": bits,
                                                                              "capacity": capacity}, "counts": count})
    body = {"version": VERSION, "subtree": [{"name": system, "local": [
        {"name": name, "action_counts": counts} for name, counts in local.items()]}]}
    return dump_yaml({"action_counts": body})


def ert_yaml(system: str, actions: tuple[ActionCount, ...], energy_per_action) -> str:
    """An ERT giving, for every (component, action, width, capacity) of ``actions``, the energy per
    action ``energy_per_action(action)`` (pJ) the run was costed with."""
    tables: dict[str, list] = {}
    seen: set[tuple] = set()
    for a in actions:
        key = (a.component, a.action, a.component_class, a.bits, a.capacity_bytes)
        if key in seen:
            continue
        seen.add(key)
        tables.setdefault(a.component, []).append({"name": a.action, "arguments": _arguments(a),
                                                   "energy": float(energy_per_action(a))})
    body = {"version": VERSION, "tables": [{"name": f"{system}.{name}", "actions": acts} for name, acts in tables.items()]}
    return dump_yaml({"ERT": body})
