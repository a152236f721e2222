"""Pieces of the fast path that follow from a layer's shape alone, kept for the process.

A design that does not skip weights cuts every weight into F-vectors, whatever their values; one that does not skip
activations cuts every activation into I-vectors. Those pieces depend on the conv view (the layer's shape), the
settings and tiling pieces they read, never on the operands' values: a sweep over densities (SCNN-SparseA's
F-vectors, SCNN-SparseW's I-vectors) makes them once per shape instead of once per point. Keys name the conv view
and everything else the piece reads; the oldest pieces go first beyond :data:`SHAPE_PIECES_BYTES`.
"""
from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Hashable
from typing import TypeVar

import numpy as np

T = TypeVar("T")
SHAPE_PIECES_BYTES = 1 << 28   # the most the kept pieces' arrays hold
_kept: dict[Hashable, tuple[object, int]] = {}
_lock = threading.Lock()   # threads of one process may simulate at once


def _nbytes(value: object) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(_nbytes(getattr(value, f.name)) for f in dataclasses.fields(value))
    return 0


def shape_piece(key: Hashable, make: Callable[[], T]) -> T:
    """``make()``, or what it gave for the same ``key`` before in this process."""
    with _lock:
        if key in _kept:
            return _kept[key][0]  # type: ignore[return-value]
    made = make()
    size = _nbytes(made)
    with _lock:
        _kept[key] = (made, size)
        while len(_kept) > 1 and sum(kept[1] for kept in _kept.values()) > SHAPE_PIECES_BYTES:
            del _kept[next(iter(_kept))]
    return made


def clear() -> None:
    """Forget every kept piece."""
    with _lock:
        _kept.clear()
