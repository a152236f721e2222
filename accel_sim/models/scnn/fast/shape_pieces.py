"""Pieces of the fast path that follow from a layer's shape alone, kept for the process.

A design that does not skip weights cuts every weight into F-vectors, whatever their values; one that does not skip
activations cuts every activation into I-vectors. Those pieces depend on the conv view (the layer's shape), the
settings and tiling pieces they read, never on the operands' values: a sweep over densities (SCNN-SparseA's
F-vectors, SCNN-SparseW's I-vectors) makes them once per shape instead of once per point. Keys name the conv view
and everything else the piece reads; the oldest pieces go first beyond :data:`SHAPE_PIECES_BYTES`.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

from accel_sim.foundations.memo import ShapeMemo

T = TypeVar("T")
SHAPE_PIECES_BYTES = 1 << 28   # the most the kept pieces' arrays hold
_kept = ShapeMemo(capacity=None, max_bytes=SHAPE_PIECES_BYTES)


def shape_piece(key: Hashable, make: Callable[[], T]) -> T:
    """``make()``, or what it gave for the same ``key`` before in this process."""
    return _kept.get(key, make)


def clear() -> None:
    """Forget every kept piece."""
    _kept.clear()
