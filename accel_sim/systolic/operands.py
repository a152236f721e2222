"""Operand addresses and the order the array and the buffers touch them (pure numpy).

Only the memory model of DRAM-bandwidth-limited runs (``dram.bandwidth_mode: user``) needs
addresses; CALC runs use closed forms. The layout reproduces SCALE-Sim 3.0.0
(``compute/operand_matrix.py``), up to renumbering (only the identity of an address matters):

- ifmap ``(m x k)``: row = output pixel, column = window element ``(kr, kc, channel)``;
  the address of input pixel ``(b, y, x, c)`` is ``((b*H + y)*W + x)*C + c``, ``-1`` when the
  window reaches outside the input (padding, or SCALE-Sim's ceil-rounded last window);
- filter ``(k x n)``: ``n * K + k`` (K: dense reduction length);
- ofmap ``(m x n)``: ``m * N + n``.

N:M (weight stationary) keeps the reduction indices ``j % M < N`` in both the filter rows and
the ifmap columns (:func:`accel_sim.systolic.mapping.kept_reduction_indices`).

For every operand the module gives two orders:

- the *fetch sequence*: the order the read buffer fills from DRAM (SCALE-Sim's prefetch
  matrices: the operand cut into the array-edge-wide blocks it is used in, stacked, and
  rolled out along anti-diagonals for streamed operands, "ISSUE #15" in SCALE-Sim);
- the *demand stream*: which addresses the array asks for in which demand cycle (SCALE-Sim's
  demand matrices). :func:`demand_stream` builds it for a whole group by index arithmetic
  (fast path); :func:`fold_demand_matrix` builds one fold the way SCALE-Sim does, by
  padding, flipping and skewing a block (the reference uses it).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from accel_sim.systolic.mapping import SystolicMapping, kept_reduction_indices
from accel_sim.workload.layer import ConvLayer, Layer

NO_ADDRESS = -1  # SCALE-Sim's marker of an idle request / out-of-bounds window element
ADDRESS_DTYPE = np.int64
OPERANDS = ("ifmap", "filter", "ofmap")


@dataclass(frozen=True)
class OperandMatrices:
    """Address matrices of one group: ``ifmap (m x k')``, ``filter (k' x n)``, ``ofmap (m x n)``."""

    ifmap: np.ndarray
    filter: np.ndarray
    ofmap: np.ndarray

    def by_gemm_dims(self, operand: str, first: str, second: str) -> np.ndarray:
        """The operand's matrix oriented as (``first`` x ``second``) GEMM dimensions."""
        natural = {"ifmap": ("m", "k"), "filter": ("k", "n"), "ofmap": ("m", "n")}[operand]
        matrix = getattr(self, operand)
        if (first, second) == natural:
            return matrix
        if (second, first) == natural:
            return matrix.T
        raise ValueError(f"{operand} has no dimensions ({first}, {second})")


def _conv_geometry(layer: Layer) -> dict[str, int]:
    """The layer as a convolution (SCALE-Sim maps GEMM M,N,K to a 1 x K filter over an M x K input)."""
    if isinstance(layer, ConvLayer):
        return dict(h=layer.in_h, w=layer.in_w, c=layer.in_channels // layer.groups, r=layer.kernel_h,
                    s=layer.kernel_w, stride_h=layer.stride_h, stride_w=layer.stride_w, pad_top=layer.pad_top,
                    pad_left=layer.pad_left, out_h=layer.out_h, out_w=layer.out_w, batch=layer.batch)
    return dict(h=layer.m, w=layer.k, c=1, r=1, s=layer.k, stride_h=1, stride_w=1, pad_top=0, pad_left=0,
                out_h=layer.m, out_w=1, batch=1)


def ifmap_addresses(layer: Layer, kept: np.ndarray) -> np.ndarray:
    """im2col address matrix (output pixels x kept window elements) of one group."""
    g = _conv_geometry(layer)
    pixels = np.arange(g["batch"] * g["out_h"] * g["out_w"])
    batch, rest = np.divmod(pixels, g["out_h"] * g["out_w"])
    out_y, out_x = np.divmod(rest, g["out_w"])
    kr, rest = np.divmod(kept, g["s"] * g["c"])
    kc, ch = np.divmod(rest, g["c"])
    y = (out_y * g["stride_h"] - g["pad_top"])[:, None] + kr[None, :]
    x = (out_x * g["stride_w"] - g["pad_left"])[:, None] + kc[None, :]
    inside = (y >= 0) & (y < g["h"]) & (x >= 0) & (x < g["w"])
    address = ((batch[:, None] * g["h"] + y) * g["w"] + x) * g["c"] + ch[None, :]
    return np.where(inside, address, NO_ADDRESS).astype(ADDRESS_DTYPE)


def operand_matrices(mapping: SystolicMapping, layer: Layer) -> OperandMatrices:
    kept = np.asarray(kept_reduction_indices(mapping.dense_k, mapping.nm), dtype=ADDRESS_DTYPE)
    m, n = mapping.gemm.m, mapping.gemm.n
    filter_matrix = (np.arange(n, dtype=ADDRESS_DTYPE)[None, :] * mapping.dense_k + kept[:, None])
    ofmap = np.arange(m, dtype=ADDRESS_DTYPE)[:, None] * n + np.arange(n, dtype=ADDRESS_DTYPE)[None, :]
    return OperandMatrices(ifmap=ifmap_addresses(layer, kept), filter=filter_matrix, ofmap=ofmap)


@dataclass(frozen=True)
class OperandRole:
    """How one operand meets the array under one dataflow.

    ``kind``: ``"stream"`` (skewed in or out along one edge, one temporal step per cycle),
    ``"preload"`` (stationary input, loaded row by row in R cycles, last row first) or
    ``"drain"`` (stationary output, read out skewed after the fold, last row first).
    ``edge_dim`` is the GEMM dimension laid along the array edge the operand crosses
    (``width`` PEs wide); ``other_dim`` is the one that runs along time.
    """

    kind: str
    edge_dim: str
    other_dim: str
    width_is_rows: bool
    base: str  # demand-cycle offset of the first element in a fold: "zero", "rows", "two_rows", "drain"


ROLES: dict[str, dict[str, OperandRole]] = {
    "os": {"ifmap": OperandRole("stream", "m", "k", True, "zero"),
           "filter": OperandRole("stream", "n", "k", False, "zero"),
           "ofmap": OperandRole("drain", "n", "m", False, "drain")},
    "ws": {"ifmap": OperandRole("stream", "k", "m", True, "rows"),
           "filter": OperandRole("preload", "n", "k", False, "zero"),
           "ofmap": OperandRole("stream", "n", "m", False, "two_rows")},
    "is": {"ifmap": OperandRole("preload", "m", "k", False, "zero"),
           "filter": OperandRole("stream", "k", "n", True, "rows"),
           "ofmap": OperandRole("stream", "m", "n", False, "two_rows")},
}


def role(mapping: SystolicMapping, operand: str) -> OperandRole:
    return ROLES[mapping.dataflow.name][operand]


def _width(mapping: SystolicMapping, r: OperandRole) -> int:
    return mapping.rows if r.width_is_rows else mapping.cols


def demand_base(mapping: SystolicMapping, r: OperandRole) -> int:
    """Demand cycle (within a fold) of a streamed / drained block's first element."""
    return {"zero": 0, "rows": mapping.rows, "two_rows": 2 * mapping.rows - 1, "drain": mapping.t - 1}[r.base]


def _edge_fold(mapping: SystolicMapping, r: OperandRole, fold_col: int, fold_row: int) -> int:
    """Which block along the operand's edge dimension a fold uses."""
    return fold_row if r.edge_dim == mapping.dataflow.rows_dim else fold_col


def _padded_block(matrix: np.ndarray, start: int, width: int) -> np.ndarray:
    """Columns ``start:start+width`` of ``matrix``, padded with idle requests to ``width``."""
    block = matrix[:, start:start + width]
    if block.shape[1] < width:
        pad = np.full((matrix.shape[0], width - block.shape[1]), NO_ADDRESS, dtype=ADDRESS_DTYPE)
        block = np.concatenate([block, pad], axis=1)
    return block


@lru_cache(maxsize=64)
def _diagonal_order(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) of an ``rows x cols`` matrix along anti-diagonals, top-right to bottom-left
    within a diagonal (SCALE-Sim's prefetch roll-out; also the order a skewed block is demanded)."""
    i, q = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    order = np.lexsort((q.ravel(), (i + q).ravel()))
    return i.ravel()[order], q.ravel()[order]


def fetch_sequence(mapping: SystolicMapping, matrices: OperandMatrices, operand: str) -> np.ndarray:
    """Addresses in the order the read buffer fetches them from DRAM (``-1``: padding words).

    The operand is cut along its edge dimension into the ``width``-wide blocks the folds use,
    the blocks are stacked (all of the other dimension each) and a streamed operand is rolled
    out along anti-diagonals (SCALE-Sim ``create_{ifmap,filter}_prefetch_mat``).
    """
    r = role(mapping, operand)
    if r.kind == "drain":
        raise ValueError("the output operand is written, not fetched")
    width = _width(mapping, r)
    matrix = matrices.by_gemm_dims(operand, r.other_dim, r.edge_dim)
    folds = -(-matrix.shape[1] // width)
    stacked = np.concatenate([_padded_block(matrix, f * width, width) for f in range(folds)], axis=0)
    if r.kind == "preload":
        return stacked.ravel()
    rows, cols = _diagonal_order(*stacked.shape)
    return stacked[rows, cols]


def fold_block(mapping: SystolicMapping, matrices: OperandMatrices, operand: str,
               fold_col: int, fold_row: int) -> np.ndarray:
    """The operand block one fold uses, padded to the array size (time x edge for streams,
    array rows x array cols for preloaded and drained operands)."""
    r = role(mapping, operand)
    if r.kind == "stream":
        matrix = matrices.by_gemm_dims(operand, r.other_dim, r.edge_dim)
        return _padded_block(matrix, _edge_fold(mapping, r, fold_col, fold_row) * _width(mapping, r),
                             _width(mapping, r))
    rows_dim, cols_dim = mapping.dataflow.rows_dim, mapping.dataflow.cols_dim
    matrix = matrices.by_gemm_dims(operand, rows_dim, cols_dim)
    block = matrix[fold_row * mapping.rows:(fold_row + 1) * mapping.rows]
    block = _padded_block(block, fold_col * mapping.cols, mapping.cols)
    if block.shape[0] < mapping.rows:
        pad = np.full((mapping.rows - block.shape[0], mapping.cols), NO_ADDRESS, dtype=ADDRESS_DTYPE)
        block = np.concatenate([block, pad], axis=0)
    return block


def skew(matrix: np.ndarray) -> np.ndarray:
    """SCALE-Sim's ``skew_matrix``: column ``q`` delayed by ``q`` cycles."""
    rows, cols = matrix.shape
    out = np.full((rows + cols - 1, cols), NO_ADDRESS, dtype=ADDRESS_DTYPE)
    for q in range(cols):
        out[q:q + rows, q] = matrix[:, q]
    return out


def fold_demand_matrix(mapping: SystolicMapping, matrices: OperandMatrices, operand: str,
                       fold_col: int, fold_row: int) -> np.ndarray:
    """One fold's demand matrix (``fold_lines x width``), built as SCALE-Sim builds it: idle
    prefix, block (flipped for preloaded / drained operands), idle suffix, then skew."""
    r = role(mapping, operand)
    width = _width(mapping, r)
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


def first_demand_line(mapping: SystolicMapping, matrices: OperandMatrices, operand: str) -> int | None:
    """First demand cycle of the group in which ``operand`` has a valid request (None: never)."""
    r = role(mapping, operand)
    for fold_col in range(mapping.col_folds):
        for fold_row in range(mapping.row_folds):
            block = fold_block(mapping, matrices, operand, fold_col, fold_row)
            rows, cols = np.nonzero(block != NO_ADDRESS)
            if rows.size == 0:
                continue
            offset = (fold_col * mapping.row_folds + fold_row) * mapping.fold_lines
            if r.kind == "preload":
                return offset + int(mapping.rows - 1 - rows.max())
            if r.kind == "drain":
                rows = block.shape[0] - 1 - rows
            return offset + int(demand_base(mapping, r) + (rows + cols).min())
    return None


@dataclass(frozen=True)
class DemandStream:
    """The valid requests of one operand over one group, in demand order."""

    lines: np.ndarray      # demand cycle (line) of each request, nondecreasing
    addresses: np.ndarray  # address of each request

    def counts_per_line(self, total_lines: int) -> np.ndarray:
        return np.bincount(self.lines, minlength=total_lines)


def demand_stream(mapping: SystolicMapping, matrices: OperandMatrices, operand: str) -> DemandStream:
    """All valid requests of ``operand`` over the group, ordered by (demand cycle, array column).

    Index arithmetic instead of SCALE-Sim's padded matrices: a streamed block element
    ``(t, q)`` is demanded in cycle ``base + t + q`` (so a fold is walked along anti-diagonals),
    a preloaded element ``(row, q)`` in cycle ``R - 1 - row``.
    """
    r = role(mapping, operand)
    lines_parts: list[np.ndarray] = []
    address_parts: list[np.ndarray] = []
    base = demand_base(mapping, r)
    for fold_col in range(mapping.col_folds):
        for fold_row in range(mapping.row_folds):
            offset = (fold_col * mapping.row_folds + fold_row) * mapping.fold_lines
            block = fold_block(mapping, matrices, operand, fold_col, fold_row)
            if r.kind == "preload":
                rows = np.repeat(np.arange(mapping.rows)[::-1], block.shape[1])
                cols = np.tile(np.arange(block.shape[1]), mapping.rows)
                lines = mapping.rows - 1 - rows
            else:
                if r.kind == "drain":
                    block = block[::-1]
                rows, cols = _diagonal_order(*block.shape)
                lines = base + rows + cols
            addresses = block[rows, cols]
            valid = addresses != NO_ADDRESS
            lines_parts.append(lines[valid] + offset)
            address_parts.append(addresses[valid])
    return DemandStream(lines=np.concatenate(lines_parts).astype(np.int64),
                        addresses=np.concatenate(address_parts))
