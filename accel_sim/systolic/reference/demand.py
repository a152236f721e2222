"""One fold's demand matrices, built the way SCALE-Sim builds them (reference).

SCALE-Sim's ``systolic_compute_{os,ws,is}`` make, per fold and operand, a matrix with one row
per demand cycle and one column per array edge position: an idle prefix, the operand's block
(flipped for preloaded and drained operands, which enter / leave last row first), an idle
suffix, then ``skew_matrix`` delays column ``q`` by ``q`` cycles. A preloaded operand is not
skewed: its rows go in during the first ``R`` cycles of the fold.
"""
from __future__ import annotations

import numpy as np

from accel_sim.hardware.scalesim_scratchpad import NO_ADDRESS
from accel_sim.systolic.plan.mapping import SystolicMapping
from accel_sim.systolic.plan.operands import ADDRESS_DTYPE, OperandMatrices, demand_base, edge_width, fold_block, role


def skew(matrix: np.ndarray) -> np.ndarray:
    """SCALE-Sim's ``skew_matrix``: column ``q`` delayed by ``q`` cycles."""
    rows, cols = matrix.shape
    out = np.full((rows + cols - 1, cols), NO_ADDRESS, dtype=ADDRESS_DTYPE)
    for q in range(cols):
        out[q:q + rows, q] = matrix[:, q]
    return out


def fold_demand_matrix(mapping: SystolicMapping, matrices: OperandMatrices, operand: str,
                       fold_col: int, fold_row: int) -> np.ndarray:
    """One fold's demand matrix (``fold_lines x width``): idle prefix, block, idle suffix, skew."""
    r = role(mapping, operand)
    width = edge_width(mapping, r)
    block = fold_block(mapping, matrices, operand, fold_col, fold_row)
    if r.kind == "preload":
        body = block[::-1]
        suffix = mapping.fold_lines - body.shape[0]
        return np.concatenate([body, np.full((suffix, width), NO_ADDRESS, dtype=ADDRESS_DTYPE)])
    if r.kind == "drain":
        block = block[::-1]
    prefix = np.full((demand_base(mapping, r), width), NO_ADDRESS, dtype=ADDRESS_DTYPE)
    unskewed = mapping.fold_lines - (width - 1)
    suffix = np.full((unskewed - prefix.shape[0] - block.shape[0], width), NO_ADDRESS, dtype=ADDRESS_DTYPE)
    return skew(np.concatenate([prefix, block, suffix]))
