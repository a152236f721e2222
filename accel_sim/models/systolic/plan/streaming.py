"""Streaming operand fetch (``systolic.operand_fetch: streaming``), the part both models share (pure).

The array runs its folds in SCALE-Sim's order (column folds outer, row folds inner). Each fold
uses one block of each read operand's GEMM matrix (ifmap ``m x k``, filter ``k x n``): the
operand's extent along the array rows, the array columns or the whole temporal dimension. An
operand whose whole matrix fits half its double buffer stays resident: each block is fetched on
its first use. Any other operand is fetched again whenever a fold needs a different block than
the fold before (once per use). Which operand fits is all this module decides; the fast path
and the SimPy reference derive the blocks, their words and the timing each on their own.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from accel_sim.models.systolic.plan.mapping import SystolicMapping
from accel_sim.models.systolic.plan.operands import READ_OPERANDS

OPERAND_DIMS = {"ifmap": ("m", "k"), "filter": ("k", "n")}  # GEMM dimensions of each read operand
OUTPUT_DIMS = ("m", "n")
REDUCTION_DIM = "k"
DOUBLE_BUFFER_HALVES = 2  # a block of the next fold loads into one half while the array uses the other


def resident_operands(mapping: SystolicMapping, capacity_words: Mapping[str, int]) -> Mapping[str, bool]:
    """Read operands whose whole GEMM matrix (one group) fits half their buffer."""
    resident = {}
    for operand in READ_OPERANDS:
        a, b = OPERAND_DIMS[operand]
        resident[operand] = mapping.dim(a) * mapping.dim(b) <= capacity_words[operand] // DOUBLE_BUFFER_HALVES
    return MappingProxyType(resident)
