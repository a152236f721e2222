"""The interpolation rules shared by the energy and area tables (one implementation of each), and
what an area table returns for one block."""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class BlockCost:
    """Area (um2) and leakage power (uW) of ONE block, at the area table's node."""

    area_um2: float
    leakage_uw: float


def nearest_width(widths: list[int], bits: int) -> int:
    """The listed width closest to ``bits`` on a log scale (the wider one on a tie)."""
    return min(widths, key=lambda w: (abs(math.log2(w / bits)), -w))


def by_capacity(points: list[tuple[int, float]], capacity: int, beyond: str = "flat") -> float:
    """``points`` (capacity, value) interpolated log-log at ``capacity``. Beyond the listed
    capacities the end value is held (``beyond="flat"``: energy per access) or scaled in
    proportion to the capacity (``beyond="linear"``: area and leakage of a bigger array)."""
    pts = sorted(points)
    if capacity <= pts[0][0]:
        return pts[0][1] * (capacity / pts[0][0] if beyond == "linear" else 1.0)
    if capacity >= pts[-1][0]:
        return pts[-1][1] * (capacity / pts[-1][0] if beyond == "linear" else 1.0)
    for (c0, e0), (c1, e1) in zip(pts, pts[1:]):
        if c0 <= capacity <= c1:
            t = math.log(capacity / c0) / math.log(c1 / c0)
            return math.exp(math.log(e0) + t * (math.log(e1) - math.log(e0)))
    raise AssertionError("unreachable")
