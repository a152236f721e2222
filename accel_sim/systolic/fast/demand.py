"""The array's demand stream over a whole group, by index arithmetic (fast path).

SCALE-Sim builds one demand matrix per fold by padding, flipping and skewing operand blocks
(the reference does too, :mod:`accel_sim.systolic.reference.demand`). Here the valid read
requests of a group come straight from the block indices: a streamed block element ``(t, q)``
is demanded in cycle ``base + t + q`` (so a fold is walked along anti-diagonals), a preloaded
element ``(row, q)`` in cycle ``R - 1 - row``. (The output side is counted per cycle in closed
form, :func:`accel_sim.systolic.fast.ofmap_drain.ofmap_writes_per_line`.)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.hardware.scalesim_scratchpad import NO_ADDRESS
from accel_sim.systolic.plan.mapping import SystolicMapping
from accel_sim.systolic.plan.operands import OperandMatrices, demand_base, diagonal_order, fold_block, role


@dataclass(frozen=True)
class DemandStream:
    """The valid requests of one operand over one group, in demand order."""

    lines: np.ndarray      # demand cycle (line) of each request, nondecreasing
    addresses: np.ndarray  # address of each request


def _fold_offsets(mapping: SystolicMapping):
    """(first demand line, fold column, fold row) of every fold, in SCALE-Sim's order."""
    for fold_col in range(mapping.col_folds):
        for fold_row in range(mapping.row_folds):
            yield (fold_col * mapping.row_folds + fold_row) * mapping.fold_lines, fold_col, fold_row


def demand_stream(mapping: SystolicMapping, matrices: OperandMatrices, operand: str) -> DemandStream:
    """All valid requests of the read operand ``operand`` over the group, ordered by (demand cycle, array column)."""
    r = role(mapping, operand)
    lines_parts: list[np.ndarray] = []
    address_parts: list[np.ndarray] = []
    base = demand_base(mapping, r)
    for offset, fold_col, fold_row in _fold_offsets(mapping):
        block = fold_block(mapping, matrices, operand, fold_col, fold_row)
        if r.kind == "preload":
            rows = np.repeat(np.arange(mapping.rows)[::-1], block.shape[1])
            cols = np.tile(np.arange(block.shape[1]), mapping.rows)
            lines = mapping.rows - 1 - rows
        else:
            rows, cols = diagonal_order(*block.shape)
            lines = base + rows + cols
        addresses = block[rows, cols]
        valid = addresses != NO_ADDRESS
        lines_parts.append(lines[valid] + offset)
        address_parts.append(addresses[valid])
    return DemandStream(lines=np.concatenate(lines_parts).astype(np.int64),
                        addresses=np.concatenate(address_parts))


def first_demand_line(mapping: SystolicMapping, matrices: OperandMatrices, operand: str) -> int | None:
    """First demand cycle of the group in which the read operand ``operand`` has a valid request (None: never)."""
    r = role(mapping, operand)
    for offset, fold_col, fold_row in _fold_offsets(mapping):
        block = fold_block(mapping, matrices, operand, fold_col, fold_row)
        rows, cols = np.nonzero(block != NO_ADDRESS)
        if rows.size == 0:
            continue
        if r.kind == "preload":
            return offset + int(mapping.rows - 1 - rows.max())
        return offset + int(demand_base(mapping, r) + (rows + cols).min())
    return None
