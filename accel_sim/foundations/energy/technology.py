"""Technology scaling: energy, area, leakage and delay factors from one process node to another.

The factors come from one cited table (``tables/stillmaker_baas_2017.yaml``); a config names its
node (``technology_node``, default 45 nm, the node of the built-in tables) and the costing path
multiplies every table value by the factor from the table's node to the config's. Nodes between
listed ones are interpolated (linearly in the position in the list, as hwcomponents does); a node
outside the table's range is refused (a config may name only ``accel_sim.foundations.arch.NODES_NM``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from accel_sim.foundations.config.yaml_io import read_yaml

TABLE = Path(__file__).resolve().parent / "tables" / "stillmaker_baas_2017.yaml"


@dataclass(frozen=True)
class ScaleFactors:
    """Multiply a value at the source node by these to get it at the target node."""

    energy: float
    area: float
    leakage: float
    delay: float


@lru_cache(maxsize=1)
def _table() -> dict:
    return read_yaml(TABLE)


def _position(node_nm: float) -> float:
    """Fractional index of ``node_nm`` in the table's node list (interpolated between neighbours)."""
    nodes = _table()["nodes_nm"]
    if not nodes[-1] <= node_nm <= nodes[0]:
        raise ValueError(f"technology node {node_nm:g} nm is outside {nodes[-1]}..{nodes[0]} nm")
    for i, (larger, smaller) in enumerate(zip(nodes, nodes[1:])):
        if smaller <= node_nm <= larger:
            return i + (larger - node_nm) / (larger - smaller)
    raise AssertionError("unreachable")


def _interpolate(values: list[float], position: float) -> float:
    low = math.floor(position)
    high = min(low + 1, len(values) - 1)
    t = position - low
    return values[low] * (1 - t) + values[high] * t


def _area_factor(from_nm: float, to_nm: float) -> float:
    rows = _table()["area_factors"]
    x, y = _position(from_nm), _position(to_nm)
    row = [_interpolate([r[j] for r in rows], x) for j in range(len(rows))]
    return _interpolate(row, y)


def _energy_value(node_nm: float, vdd: float | None = None) -> float:
    vdd = float(_table()["vdd"]) if vdd is None else vdd
    per_node = [a * vdd ** 2 + b * vdd + c for a, b, c in _table()["energy_polynomials"]]
    return _interpolate(per_node, _position(node_nm))


def scale_factors(from_nm: float, to_nm: float) -> ScaleFactors:
    """The factors from ``from_nm`` to ``to_nm`` (all exactly 1.0 when the nodes are equal)."""
    if from_nm == to_nm:
        return ScaleFactors(1.0, 1.0, 1.0, 1.0)
    energy = _energy_value(to_nm) / _energy_value(from_nm)
    return ScaleFactors(energy=energy, area=_area_factor(from_nm, to_nm), leakage=energy, delay=to_nm / from_nm)


def voltage_factor(node_nm: float, vdd: float) -> float:
    """Energy at ``node_nm`` and supply ``vdd`` over its value at the supply the tables are for (the Stillmaker
    table's ``vdd``, Horowitz's 0.9 V): the same node's energy polynomial at both voltages (exactly 1.0 at
    that supply)."""
    reference = float(_table()["vdd"])
    if vdd == reference:
        return 1.0
    return _energy_value(node_nm, vdd) / _energy_value(node_nm, reference)
