"""Keys of the pieces of a plan the archs of one run share on a layer
(:class:`~accel_sim.foundations.contract.BatchMemo`): every setting a piece is computed from.

Several pieces of a design's plan and fast path depend on only a few of its settings: the weights'
non-zeros (every design that skips or compresses weights), the tiling (the designs that skip
activations, or not), the F-vectors (SCNN and SCNN-SparseW), the I-vectors (SCNN and SCNN-SparseA).
Their keys hold :func:`spec_key`, :func:`tiling_key` and the design traits the piece reads.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from accel_sim.models.scnn.plan.tiling import Tiling
from accel_sim.models.scnn.spec import SCNNSpec


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
