"""The array's demand stream over a whole group, by index arithmetic (fast path).

SCALE-Sim builds one demand matrix per fold by padding, flipping and skewing operand blocks
(the reference does too, :mod:`accel_sim.models.systolic.reference.demand`). Here the valid read
requests of a group come straight from the block indices: a streamed block element ``(t, q)``
is demanded in cycle ``base + t + q`` (so a fold is walked along anti-diagonals), a preloaded
element ``(row, q)`` in cycle ``R - 1 - row``. (The output side is counted per cycle in closed
form, :func:`accel_sim.models.systolic.fast.ofmap_drain.ofmap_writes_per_line`.)

Row-wise sparsity (weight stationary): PE row ``j`` of fold row ``fr`` is sent, in cycle
``R + t + j``, the ``BS`` ifmap values of window block ``j // (BS/2)`` of the fold's ``2R``
window rows, at line positions ``j BS .. j BS + BS - 1``.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from accel_sim.hardware.scalesim_scratchpad import NO_ADDRESS
from accel_sim.models.systolic.plan.mapping import SystolicMapping
from accel_sim.models.systolic.plan.operands import (OperandMatrices, demand_base, diagonal_order, edge_width, fold_block, role,
                                              row_wise_window_columns)
from accel_sim.models.systolic.plan.row_sparsity import slot_block


@dataclass(frozen=True)
class DemandStream:
    """The valid requests of one operand over one group, in demand order."""

    lines: np.ndarray      # demand cycle (line) of each request, nondecreasing
    addresses: np.ndarray  # address of each request


def _fold_offsets(mapping: SystolicMapping, col_folds: int | None = None):
    """(first demand line, fold column, fold row) of every fold (of the first ``col_folds`` column
    folds), in SCALE-Sim's order."""
    for fold_col in range(mapping.col_folds if col_folds is None else col_folds):
        for fold_row in range(mapping.row_folds):
            yield (fold_col * mapping.row_folds + fold_row) * mapping.fold_lines, fold_col, fold_row


def demand_stream(mapping: SystolicMapping, matrices: OperandMatrices, operand: str,
                  col_folds: int | None = None) -> DemandStream:
    """All valid requests of the read operand ``operand`` over the group (or its first ``col_folds``
    column folds), ordered by (demand cycle, array column)."""
    if mapping.row_wise is not None and operand == "ifmap":
        return _row_wise_ifmap_stream(mapping, matrices, col_folds)
    r = role(mapping, operand)
    if r.kind == "stream":
        return _streamed_stream(mapping, matrices, operand, col_folds)
    lines_parts: list[np.ndarray] = []
    address_parts: list[np.ndarray] = []
    base = demand_base(mapping, r)
    for offset, fold_col, fold_row in _fold_offsets(mapping, col_folds):
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


@dataclass(frozen=True)
class FoldLines:
    """Demand line of each request of whole folds of equal shape (idle requests included): request
    ``f * cells + c`` is cell ``c`` of fold ``f``, demanded in line ``offsets[f] + cell_lines[c]``."""

    offsets: np.ndarray     # first demand line of each fold
    cell_lines: np.ndarray  # demand line of each cell within its fold

    def __getitem__(self, request: int) -> int:
        fold, cell = divmod(int(request), self.cell_lines.size)
        return int(self.offsets[fold] + self.cell_lines[cell])

    def all(self) -> np.ndarray:
        return (self.offsets[:, None] + self.cell_lines[None, :]).ravel()


@dataclass(frozen=True)
class StackedCells:
    """Where a streamed operand's requests sit in its fetch sequence: fold ``f`` demands its
    ``block_rows x width`` block ``blocks[f]`` (rows ``blocks[f] * block_rows ..`` of the
    ``stacked_rows x width`` stacked fetch matrix) cell by cell along anti-diagonals, the order
    the fetch sequence rolls that block out in."""

    blocks: np.ndarray
    block_rows: int
    width: int
    stacked_rows: int


@dataclass(frozen=True)
class FoldRequests:
    """A streamed operand's requests over whole folds, idle ones (``NO_ADDRESS``) included, in
    demand order; their lines in closed form (:class:`FoldLines`, not an array), their addresses
    gathered on first use (:mod:`.stacked_scan` reads them from the fetch sequence instead)."""

    lines: FoldLines
    cells: StackedCells
    matrix: np.ndarray   # the operand's (other x edge) address matrix

    @cached_property
    def addresses(self) -> np.ndarray:
        cells, matrix = self.cells, self.matrix
        padded = np.full((matrix.shape[0], cells.stacked_rows // cells.block_rows * cells.width), NO_ADDRESS,
                         dtype=matrix.dtype)
        padded[:, :matrix.shape[1]] = matrix
        t, q = diagonal_order(cells.block_rows, cells.width)
        return padded.ravel()[(t * padded.shape[1] + q)[None, :] + (cells.blocks * cells.width)[:, None]].ravel()


def streamed_requests(mapping: SystolicMapping, matrices: OperandMatrices, operand: str,
                      col_folds: int | None = None) -> FoldRequests:
    """A streamed operand's requests, every fold at once: fold ``f`` demands element ``(t, q)`` of its
    ``T x W`` block (columns ``e_f W .. e_f W + W - 1`` of the operand, padded) in line
    ``offset_f + base + t + q``, along anti-diagonals."""
    r = role(mapping, operand)
    width = edge_width(mapping, r)
    matrix = matrices.by_gemm_dims(operand, r.other_dim, r.edge_dim)
    blocks = -(-matrix.shape[1] // width)
    t, q = diagonal_order(matrix.shape[0], width)
    folds = np.array(list(_fold_offsets(mapping, col_folds)), dtype=np.int64).reshape(-1, 3)
    block = np.where(r.edge_dim == mapping.dataflow.rows_dim, folds[:, 2], folds[:, 1])
    return FoldRequests(FoldLines(folds[:, 0].copy(), demand_base(mapping, r) + t + q),
                        StackedCells(block, matrix.shape[0], width, blocks * matrix.shape[0]), matrix)


def _streamed_stream(mapping: SystolicMapping, matrices: OperandMatrices, operand: str,
                     col_folds: int | None) -> DemandStream:
    requests = streamed_requests(mapping, matrices, operand, col_folds)
    valid = requests.addresses != NO_ADDRESS
    return DemandStream(lines=requests.lines.all()[valid], addresses=requests.addresses[valid])


def _row_wise_ifmap_stream(mapping: SystolicMapping, matrices: OperandMatrices, col_folds: int | None) -> DemandStream:
    """Row-wise ifmap requests of the group: (t, PE row) along anti-diagonals, ``BS`` values each."""
    bs = mapping.row_wise.block_size
    t, pe_row = diagonal_order(mapping.t, mapping.rows)
    columns = (slot_block(pe_row, bs) * bs)[:, None] + np.arange(bs)[None, :]
    lines_parts, address_parts = [], []
    for offset, _, fold_row in _fold_offsets(mapping, col_folds):
        addresses = row_wise_window_columns(mapping, matrices, fold_row)[t[:, None], columns].ravel()
        lines = np.repeat(offset + mapping.rows + t + pe_row, bs)
        valid = addresses != NO_ADDRESS
        lines_parts.append(lines[valid])
        address_parts.append(addresses[valid])
    return DemandStream(lines=np.concatenate(lines_parts).astype(np.int64),
                        addresses=np.concatenate(address_parts))


def _row_wise_ifmap_first_line(mapping: SystolicMapping, matrices: OperandMatrices) -> int | None:
    """First line with a valid row-wise ifmap request: the earliest ``R + t + b BS/2`` over the
    valid (t, window block b) of the first fold that has one."""
    bs = mapping.row_wise.block_size
    for offset, _, fold_row in _fold_offsets(mapping):
        columns = row_wise_window_columns(mapping, matrices, fold_row)
        t, block = np.nonzero((columns != NO_ADDRESS).reshape(mapping.t, -1, bs).any(axis=2))
        if t.size:
            return offset + mapping.rows + int((t + block * (bs // 2)).min())
    return None


def first_demand_line(mapping: SystolicMapping, matrices: OperandMatrices, operand: str) -> int | None:
    """First demand cycle of the group in which the read operand ``operand`` has a valid request (None: never)."""
    if mapping.row_wise is not None and operand == "ifmap":
        return _row_wise_ifmap_first_line(mapping, matrices)
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
