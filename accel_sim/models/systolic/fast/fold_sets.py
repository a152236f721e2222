"""USER-mode read misses of an operand whose every address sits once in its fetch sequence, fold
by fold in closed form (fast path): memory of one fold, not of the layer.

A GEMM's ifmap and every filter (dense or N:M, not row-wise) hold each address once, and their
only idle words are the padding columns of the last edge block. Then the set of each request is
its rank among the valid words of the fetch sequence, divided by the set size, and the rank has a
closed form (:class:`StackedFetch`): the fetch sequence is the ``(EF T) x W`` stack of the
operand's edge blocks, rolled out along anti-diagonals (streamed) or row by row (preloaded),
whose only idle cells are the ``[L0, N) x [wl, W)`` corner of the last block.

A request hits when its set lies in the window ``[start, start + active_sets)`` (mod ``sets``);
a miss slides the window by ``prefetch_sets`` until it does, one burst per slide. The scan's
state is the window start alone, so each fold's misses are a function of (the operand block it
uses, the start it meets): a streamed operand swept again for every fold of the other array
dimension meets the same few starts and is scanned once per (block, start)
(:func:`fold_set_misses`).
"""
from __future__ import annotations

import numpy as np

from accel_sim.foundations.errors import SimulationError
from accel_sim.hardware.scalesim_scratchpad import ReadBufferGeometry
from accel_sim.models.systolic.fast.read_buffers import ReadMisses, scan_misses
from accel_sim.models.systolic.plan.mapping import SystolicMapping
from accel_sim.models.systolic.plan.operands import demand_base, diagonal_order, edge_fold, edge_width, role
from accel_sim.foundations.workload.layer import ConvLayer, Layer

def has_closed_form(mapping: SystolicMapping, layer: Layer, operand: str) -> bool:
    """Whether the operand holds each address once, idle only in its last edge block's padding."""
    return mapping.row_wise is None and not (operand == "ifmap" and isinstance(layer, ConvLayer))


def first_request_line(mapping: SystolicMapping, operand: str) -> int:
    """First demand cycle with a request of an operand :func:`has_closed_form` accepts: its first
    fold's first element (streamed) or the last used row of its first fold (preloaded, last row first)."""
    r = role(mapping, operand)
    if r.kind == "preload":
        return mapping.rows - mapping.used_rows(0)
    return demand_base(mapping, r)


def _triangle_sum(x: np.ndarray, h: int) -> np.ndarray:
    """``sum_{u=0..x} clamp(u, 0, h)`` (0 for ``x < 0``)."""
    x = np.maximum(x, 0)
    low = np.minimum(x, h)
    return low * (low + 1) // 2 + (x - low) * h


def _cells_before_diagonal(d: np.ndarray, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
    """Cells ``(i, q)`` of the rectangle ``[r0, r1) x [c0, c1)`` with ``i + q < d``."""
    if r1 <= r0 or c1 <= c0:
        return np.zeros_like(d)
    h = r1 - r0
    return _triangle_sum(d - r0 - c0, h) - _triangle_sum(d - r0 - c1, h)


def _cells_on_diagonal(d: np.ndarray, r0: int, r1: int, c0: int, c1: np.ndarray | int) -> np.ndarray:
    """Cells of the rectangle ``[r0, r1) x [c0, c1)`` on diagonal ``d``."""
    return np.maximum(np.minimum(c1 - 1, d - r0) - np.maximum(c0, d - r1 + 1) + 1, 0)


def stacked_position(d: np.ndarray | int, q: np.ndarray | int, rows: int, width: int) -> np.ndarray:
    """Place, in the anti-diagonal roll-out of a whole ``rows x width`` stack (padding words kept), of the
    cell on diagonal ``d`` at column ``q``: the cells of the earlier diagonals and those of ``d`` left of ``q``
    (on a full diagonal, ``W - 1 <= d <= rows - 1``, this is ``W d - W (W - 1) / 2 + q``)."""
    return _cells_before_diagonal(d, 0, rows, 0, width) + _cells_on_diagonal(d, 0, rows, 0, q)


class StackedFetch:
    """Valid-word rank of each cell of an operand's stacked fetch matrix, in closed form."""

    def __init__(self, mapping: SystolicMapping, operand: str):
        r = role(mapping, operand)
        self.streamed = r.kind == "stream"
        self.width = edge_width(mapping, r)                     # W
        self.other = mapping.dim(r.other_dim)                   # T: rows of each edge block
        edge = mapping.dim(r.edge_dim)
        self.blocks = -(-edge // self.width)                    # EF
        self.last_rows = (self.blocks - 1) * self.other         # L0: first row of the last block
        self.last_width = edge - (self.blocks - 1) * self.width  # wl: valid columns of the last block
        self.rows = self.blocks * self.other                    # N
        self.fetch_words = self.rows * self.width
        self.valid_words = self.other * edge

    def block_width(self, block: int) -> int:
        return self.last_width if block == self.blocks - 1 else self.width

    def rank(self, i: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Position of cell ``(i, q)`` among the valid cells in fetch order."""
        n, w, l0, wl = self.rows, self.width, self.last_rows, self.last_width
        if not self.streamed:  # row by row
            return np.minimum(i, l0) * w + np.maximum(i - l0, 0) * wl + q
        d = i + q
        before = _cells_before_diagonal(d, 0, n, 0, w) - _cells_before_diagonal(d, l0, n, wl, w)
        same = _cells_on_diagonal(d, 0, n, 0, q) - _cells_on_diagonal(d, l0, n, wl, q)
        return before + same


def _fold_requests(mapping: SystolicMapping, fetch: StackedFetch, operand: str, fold_col: int,
                   fold_row: int) -> tuple[np.ndarray, np.ndarray]:
    """(demand line within the fold, fetch rank) of one fold's valid requests of a streamed operand,
    in demand order: cell ``(t, q)`` of the block, along anti-diagonals."""
    r = role(mapping, operand)
    block = edge_fold(mapping, r, fold_col, fold_row)
    t, q = diagonal_order(fetch.other, fetch.width)
    keep = q < fetch.block_width(block)
    t, q = t[keep], q[keep]
    return demand_base(mapping, r) + t + q, fetch.rank(block * fetch.other + t, q)


def _scan(geometry: ReadBufferGeometry, sets: np.ndarray, lines: np.ndarray, start: int):
    """Misses of one fold's requests (their sets, in demand order) from window start ``start``:
    (miss lines, bursts per miss line, start after the fold). The window is its start alone."""
    n_sets, active, step = geometry.sets, geometry.active_sets, geometry.prefetch_sets
    window = [start]

    def hits(lo: int, hi: int) -> np.ndarray:
        return (sets[lo:hi] - window[0]) % n_sets < active

    def reach(position: int) -> int:
        target, bursts = int(sets[position]), 0
        while (target - window[0]) % n_sets >= active:
            if bursts > n_sets or step == 0:
                raise SimulationError("read scratchpad window never reaches a demanded address")
            window[0] = (window[0] + step) % n_sets
            bursts += 1
        return bursts

    miss_lines, miss_bursts = scan_misses(sets.size, hits, reach, lines)
    return miss_lines, miss_bursts, window[0]


def _column_requests(mapping: SystolicMapping, fetch: StackedFetch, operand: str,
                     fold_col: int) -> tuple[np.ndarray, np.ndarray]:
    """(demand line within the group, fetch rank) of the valid requests of every fold of column fold
    ``fold_col`` of a preloaded operand, in demand order (fold by fold, each fold's used rows last
    row first). Its edge runs along the array's columns (``ROLES``: ws filter, is ifmap), so the
    column fold's row folds are consecutive row ranges of one block."""
    r = role(mapping, operand)
    block = edge_fold(mapping, r, fold_col, 0)
    width = fetch.block_width(block)
    used = np.array([mapping.used_rows(fold_row) for fold_row in range(mapping.row_folds)], dtype=np.int64)
    fold = np.repeat(np.arange(mapping.row_folds, dtype=np.int64), used)
    first = np.repeat(np.cumsum(used) - used, used)
    row = np.repeat(used, used) - 1 - (np.arange(fold.size, dtype=np.int64) - first)  # last row first
    fold, row = np.repeat(fold, width), np.repeat(row, width)
    q = np.tile(np.arange(width, dtype=np.int64), used.sum())
    lines = (fold_col * mapping.row_folds + fold) * mapping.fold_lines + mapping.rows - 1 - row
    return lines, fetch.rank(block * fetch.other + fold * mapping.rows + row, q)


def fold_set_misses(mapping: SystolicMapping, geometry: ReadBufferGeometry, fetch: StackedFetch,
                    operand: str) -> ReadMisses:
    """The group's misses, fold by fold; a fold whose (operand block, window start) was met
    before repeats that fold's misses. A preloaded operand (every fold a new block) is scanned a
    column fold at a time."""
    r = role(mapping, operand)
    lines_parts, bursts_parts = [], []
    start = 0
    if r.kind == "preload":   # its edge along the array's columns: see _column_requests
        for fold_col in range(mapping.col_folds):
            lines, ranks = _column_requests(mapping, fetch, operand, fold_col)
            miss_lines, miss_bursts, start = _scan(geometry, ranks // geometry.set_words, lines, start)
            lines_parts.append(miss_lines)
            bursts_parts.append(miss_bursts)
        return ReadMisses(np.concatenate(lines_parts), np.concatenate(bursts_parts))
    seen: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, int]] = {}  # (streamed block, start) -> scan
    for fold_col in range(mapping.col_folds):
        for fold_row in range(mapping.row_folds):
            key = (edge_fold(mapping, r, fold_col, fold_row), start)
            scanned = seen.get(key)
            if scanned is None:
                lines, ranks = _fold_requests(mapping, fetch, operand, fold_col, fold_row)
                scanned = seen[key] = _scan(geometry, ranks // geometry.set_words, lines, start)
            miss_lines, miss_bursts, start = scanned
            offset = (fold_col * mapping.row_folds + fold_row) * mapping.fold_lines
            lines_parts.append(miss_lines + offset)
            bursts_parts.append(miss_bursts)
    return ReadMisses(np.concatenate(lines_parts), np.concatenate(bursts_parts))
