"""What the designs of one layer share, computed once per layer (no model, only a memo).

The SCNN studies run every design of a layer (DCNN, DCNN-opt, SCNN-SparseA, SCNN-SparseW, SCNN,
and the variants of a modelling choice) before the next layer
(:func:`accel_sim.studies.scnn_common.run_archs`). Several pieces of a design's plan and fast path
depend on only a few of its settings: the weights' non-zeros (every design that skips or compresses
weights), the tiling (the designs that skip activations, or not), the F-vectors (SCNN and
SCNN-SparseW), the I-vectors (SCNN and SCNN-SparseA). :func:`shared` keeps them for the layer being
run, keyed by everything they are computed from (:func:`spec_key`, :func:`tiling_key` and the
caller's flags); another layer clears them, so at most one layer's pieces are held. Cached arrays
are made read-only: one design cannot change what another reads.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from accel_sim.models.scnn.plan.tiling import Tiling
from accel_sim.models.scnn.spec import SCNNSpec
from accel_sim.foundations.workload.layer import Layer

T = TypeVar("T")
_held: dict[str, object] = {"layer": None}
_entries: dict[tuple, object] = {}


def spec_key(spec: SCNNSpec) -> tuple:
    """Every setting of ``spec`` but the design (the caller adds the design traits it reads)."""
    return tuple(getattr(spec, f.name) for f in dataclasses.fields(spec) if f.name != "design")


def tiling_key(tiling: Tiling) -> tuple:
    """Every number of ``tiling`` (its arrays by content)."""
    def key(value):
        if isinstance(value, np.ndarray):
            return value.dtype.str, value.shape, value.tobytes()
        if dataclasses.is_dataclass(value):
            return tuple(key(getattr(value, f.name)) for f in dataclasses.fields(value))
        return value
    return key(tiling)


def _read_only(value) -> None:
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, (tuple, list)):
        for item in value:
            _read_only(item)
    elif dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            _read_only(getattr(value, f.name))


def enter(layer: Layer) -> None:
    """Start (or go on with) ``layer``: another layer's pieces are dropped now, before this layer's
    operands are made (the plan calls it first), so two layers' pieces are never held together."""
    held = _held["layer"]
    if held is not layer and held != layer:
        _entries.clear()
        _held["layer"] = layer


def shared(layer: Layer, key: tuple, compute: Callable[[], T]) -> T:
    """``compute()``, or what it returned for the same ``layer`` and ``key`` (the layer's pieces only)."""
    enter(layer)
    if key not in _entries:
        value = compute()
        _read_only(value)
        _entries[key] = value
    return _entries[key]  # type: ignore[return-value]


def forget() -> None:
    """Drop every held piece (a benchmark timing a path again on the same layer must not reuse them)."""
    _entries.clear()
    _held["layer"] = None
