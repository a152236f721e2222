"""One fold's demand matrices, built the way SCALE-Sim builds them (reference).

SCALE-Sim's ``systolic_compute_{os,ws,is}`` make, per fold and operand, a matrix with one row
per demand cycle and one column per array edge position: an idle prefix, the operand's block
(flipped for preloaded and drained operands, which enter / leave last row first), an idle
suffix, then ``skew_matrix`` delays column ``q`` by ``q`` cycles. A preloaded operand is not
skewed: its rows go in during the first ``R`` cycles of the fold.

Row-wise sparsity (``skew_matrix_row_sparsity``): the ifmap lines are ``R x BS`` wide; PE row
``j`` gets the ``BS`` columns of its window block, delayed by ``j`` lines (:func:`row_wise_ifmap_block`).
"""
from __future__ import annotations

import numpy as np

from accel_sim.hardware.scalesim_scratchpad import NO_ADDRESS
from accel_sim.models.systolic.plan.mapping import SystolicMapping
from accel_sim.models.systolic.plan.operands import (ADDRESS_DTYPE, OperandMatrices, demand_base, edge_width, fold_block,
                                              role, row_wise_window_columns)


def skew(matrix: np.ndarray) -> np.ndarray:
    """SCALE-Sim's ``skew_matrix``: column ``q`` delayed by ``q`` cycles."""
    rows, cols = matrix.shape
    out = np.full((rows + cols - 1, cols), NO_ADDRESS, dtype=ADDRESS_DTYPE)
    for q in range(cols):
        out[q:q + rows, q] = matrix[:, q]
    return out


def row_wise_ifmap_block(mapping: SystolicMapping, matrices: OperandMatrices, fold_row: int) -> np.ndarray:
    """SCALE-Sim's ``skew_matrix_row_sparsity``: ``(T + R - 1) x (R BS)`` lines; PE row ``j`` holds
    the weights of window block ``j // (BS/2)`` and reads that block's ``BS`` columns from line ``j``."""
    bs, rows = mapping.row_wise.block_size, mapping.rows
    columns = row_wise_window_columns(mapping, matrices, fold_row)
    out = np.full((mapping.t + rows - 1, rows * bs), NO_ADDRESS, dtype=ADDRESS_DTYPE)
    for pe_row in range(rows):
        block = pe_row // (bs // 2)
        out[pe_row:pe_row + mapping.t, pe_row * bs:(pe_row + 1) * bs] = columns[:, block * bs:(block + 1) * bs]
    return out


def fold_demand_matrix(mapping: SystolicMapping, matrices: OperandMatrices, operand: str,
                       fold_col: int, fold_row: int) -> np.ndarray:
    """One fold's demand matrix (``fold_lines x width``): idle prefix, block, idle suffix, skew."""
    if mapping.row_wise is not None and operand == "ifmap":
        block = row_wise_ifmap_block(mapping, matrices, fold_row)
        idle = np.full((mapping.rows + mapping.cols - 1, block.shape[1]), NO_ADDRESS, dtype=ADDRESS_DTYPE)
        return np.concatenate([idle[:mapping.rows], block, idle[mapping.rows:]])
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
