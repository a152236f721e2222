"""Turn a sweep's axes into an ordered list of design points (pure functions, no I/O).

An :class:`Axis` is either a dotted arch path with a list of values, or a *linked* axis:
a name whose values each set several paths together (``rows`` and ``cols`` of a square
array, the three SRAM sizes). Modes:

- ``grid``: every combination, the last axis varying fastest (``itertools.product`` order);
- ``zip``: the i-th value of every axis together (axes of equal length);
- ``random``: ``samples`` distinct grid points drawn without replacement with ``seed``,
  listed in grid order (the grid is never materialised);
- explicit ``points``: a list of override mappings, used as given.

Point indices are positions in this order; they are stable for a given sweep file.
"""
from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Overrides = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class AxisValue:
    label: Any              # what the axis column shows: the value, or "16/16" for a linked axis
    overrides: Overrides    # (dotted arch path, value as written)


@dataclass(frozen=True)
class Axis:
    name: str               # the dotted arch path, or the name of a linked axis
    values: tuple[AxisValue, ...]
    linked: bool = False

    def location(self, choice: int, path: str) -> str:
        """Where in the sweep file a value of this axis was written (for error messages)."""
        base = f"axes.{self.name}[{choice}]"
        return f"{base}.{path}" if self.linked else base


@dataclass(frozen=True)
class SweepPoint:
    index: int
    labels: tuple[tuple[str, Any], ...]   # (axis name, label) for every axis, in axis order
    overrides: Overrides                  # every (path, value) this point sets, in axis order
    origins: tuple[tuple[str, str], ...]  # (path, location in the sweep file) for error messages


def grid_size(axes: Sequence[Axis]) -> int:
    return math.prod(len(a.values) for a in axes)


def _point(index: int, axes: Sequence[Axis], choices: Sequence[int]) -> SweepPoint:
    labels, overrides, origins = [], [], []
    for axis, choice in zip(axes, choices):
        value = axis.values[choice]
        labels.append((axis.name, value.label))
        overrides.extend(value.overrides)
        origins.extend((path, axis.location(choice, path)) for path, _ in value.overrides)
    return SweepPoint(index, tuple(labels), tuple(overrides), tuple(origins))


def _decode(flat: int, sizes: Sequence[int]) -> tuple[int, ...]:
    """Mixed-radix digits of ``flat``, last axis least significant (product order)."""
    digits = []
    for size in reversed(sizes):
        flat, digit = divmod(flat, size)
        digits.append(digit)
    return tuple(reversed(digits))


def grid(axes: Sequence[Axis]) -> tuple[SweepPoint, ...]:
    ranges = [range(len(a.values)) for a in axes]
    return tuple(_point(i, axes, c) for i, c in enumerate(itertools.product(*ranges)))


def zipped(axes: Sequence[Axis]) -> tuple[SweepPoint, ...]:
    lengths = {len(a.values) for a in axes}
    if len(lengths) != 1:
        raise ValueError(f"zip needs axes of equal length, got {sorted(lengths)}")
    return tuple(_point(i, axes, [i] * len(axes)) for i in range(lengths.pop()))


def sampled(axes: Sequence[Axis], samples: int, seed: int) -> tuple[SweepPoint, ...]:
    total = grid_size(axes)
    if not 0 < samples <= total:
        raise ValueError(f"samples must be in 1..{total} (the grid size), got {samples}")
    flats = sorted(random.Random(seed).sample(range(total), samples))
    sizes = [len(a.values) for a in axes]
    return tuple(_point(i, axes, _decode(flat, sizes)) for i, flat in enumerate(flats))


def explicit(points: Sequence[Mapping[str, Any]]) -> tuple[SweepPoint, ...]:
    return tuple(SweepPoint(i, tuple(p.items()), tuple(p.items()),
                            tuple((path, f"points[{i}].{path}") for path in p))
                 for i, p in enumerate(points))


def expand(axes: Sequence[Axis], mode: str, samples: int | None = None, seed: int = 0) -> tuple[SweepPoint, ...]:
    """The points of ``axes`` combined by ``mode`` (grid, zip or random)."""
    if mode == "grid":
        return grid(axes)
    if mode == "zip":
        return zipped(axes)
    if mode == "random":
        if samples is None:
            raise ValueError("random mode needs samples")
        return sampled(axes, samples, seed)
    raise ValueError(f"unknown mode {mode!r}")
