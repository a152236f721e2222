"""Operand addresses and the order the array and the buffers touch them (pure numpy).

Address identity is what the read buffers track (which words they hold, which requests
miss). The layout reproduces SCALE-Sim 3.0.0 (``compute/operand_matrix.py``), up to
renumbering (only the identity of an address matters):

- ifmap ``(m x k)``: row = output pixel, column = window element ``(kr, kc, channel)``;
  the address of input pixel ``(b, y, x, c)`` is ``((b*H + y)*W + x)*C + c``, ``-1`` when the
  window reaches outside the input (padding, or SCALE-Sim's ceil-rounded last window); a
  GEMM's ``m x K`` input: ``m * K + k``;
- filter ``(k x n)``: ``n * K + k`` (K: dense reduction length);
- ofmap ``(m x n)``: ``m * N + n``.

Row-wise sparsity: the filter is the packed ``k' x n`` operand of
:func:`accel_sim.models.systolic.plan.row_sparsity.compressed_filter` (idle slots ``-1``), the ifmap all
``k`` columns; each fold's ifmap lines are ``R x BS`` wide (:func:`row_wise_window_columns`).

N:M (weight stationary) keeps the reduction indices ``j % M < N`` in both the filter rows and
the ifmap columns (:func:`accel_sim.models.systolic.plan.mapping.kept_reduction_indices`); packed narrow
elements (``elements_per_pe`` = p) keep the indices ``j % p == 0`` the same way, one address per packed word.

Each operand has a role under each dataflow (:data:`ROLES`: streamed, preloaded or drained,
along which array edge, where in a fold its first element is demanded), the block of it each
fold uses (:func:`fold_block`) and a *fetch sequence*, the order the read buffer fills from DRAM
(SCALE-Sim's prefetch matrices: the operand cut into the array-edge-wide blocks it is used in,
stacked, and rolled out along anti-diagonals for streamed operands, "ISSUE #15" in SCALE-Sim).

Which address the array demands in which cycle (SCALE-Sim's demand matrices) is built twice,
independently: by index arithmetic over a whole group in :mod:`accel_sim.models.systolic.fast.demand`,
and fold by fold the way SCALE-Sim does (pad, flip, skew) in
:mod:`accel_sim.models.systolic.reference.demand`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from accel_sim.hardware.scalesim_scratchpad import NO_ADDRESS
from accel_sim.models.systolic.plan.mapping import SystolicMapping, kept_reduction_indices
from accel_sim.models.systolic.plan.row_sparsity import compressed_filter
from accel_sim.foundations.workload.layer import ConvLayer, Layer

ADDRESS_DTYPE = np.int64
READ_OPERANDS = ("ifmap", "filter")


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


def address_dtype(words: int) -> type:
    """Narrowest of int32 / ``ADDRESS_DTYPE`` holding addresses ``-1 .. words - 1``: a convolution's
    im2col matrix and fetch sequence are the plan's largest arrays, and half the bytes are half
    the memory traffic of building and scanning them (only the identity of an address matters)."""
    return np.int32 if words <= np.iinfo(np.int32).max else ADDRESS_DTYPE


def ifmap_addresses(layer: ConvLayer, kept: np.ndarray) -> np.ndarray:
    """im2col address matrix (output pixels x kept window elements) of one group of a convolution.

    Built from the ``pixels x (kernel_h kernel_w)`` matrix of each window position's first word
    (``-1`` outside the input): element ``(kr, kc, channel)`` is that word plus ``channel``."""
    channels = layer.in_channels // layer.groups
    dtype = address_dtype(layer.batch * layer.in_h * layer.in_w * channels)
    pixels = np.arange(layer.batch * layer.out_h * layer.out_w)
    batch, rest = np.divmod(pixels, layer.out_h * layer.out_w)
    out_y, out_x = np.divmod(rest, layer.out_w)
    kr, kc = np.divmod(np.arange(layer.kernel_h * layer.kernel_w), layer.kernel_w)
    y = (out_y * layer.stride_h - layer.pad_top)[:, None] + kr[None, :]
    x = (out_x * layer.stride_w - layer.pad_left)[:, None] + kc[None, :]
    inside = (y >= 0) & (y < layer.in_h) & (x >= 0) & (x < layer.in_w)
    first = (((batch[:, None] * layer.in_h + y) * layer.in_w + x) * channels).astype(dtype)
    if kept.size == first.shape[1] * channels:  # dense: every channel of every window position
        address = first[:, :, None] + np.arange(channels, dtype=dtype)[None, None, :]
        address[~inside] = NO_ADDRESS
        return address.reshape(pixels.size, kept.size)
    position, channel = np.divmod(kept, channels)
    address = first[:, position] + channel.astype(dtype)[None, :]
    address[~inside[:, position]] = NO_ADDRESS
    return address


def operand_matrices(mapping: SystolicMapping, layer: Layer) -> OperandMatrices:
    kept = np.asarray(kept_reduction_indices(mapping.dense_k, mapping.kept_pattern), dtype=ADDRESS_DTYPE)
    m, n = mapping.gemm.m, mapping.gemm.n
    filter_matrix = (np.arange(n, dtype=ADDRESS_DTYPE)[None, :] * mapping.dense_k + kept[:, None])
    if mapping.row_wise is not None:
        filter_matrix = compressed_filter(mapping.row_wise, mapping.dense_k, filter_matrix)
    ofmap = np.arange(m, dtype=ADDRESS_DTYPE)[:, None] * n + np.arange(n, dtype=ADDRESS_DTYPE)[None, :]
    if isinstance(layer, ConvLayer):
        ifmap = ifmap_addresses(layer, kept)
    else:  # SCALE-Sim's GEMM input: an m x K matrix read row by row
        ifmap = np.arange(m, dtype=ADDRESS_DTYPE)[:, None] * mapping.dense_k + kept[None, :]
    return OperandMatrices(ifmap=ifmap, filter=filter_matrix, ofmap=ofmap)


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


def edge_width(mapping: SystolicMapping, r: OperandRole) -> int:
    return mapping.rows if r.width_is_rows else mapping.cols


def demand_base(mapping: SystolicMapping, r: OperandRole) -> int:
    """Demand cycle (within a fold) of a streamed / drained block's first element."""
    return {"zero": 0, "rows": mapping.rows, "two_rows": 2 * mapping.rows - 1, "drain": mapping.t - 1}[r.base]


def edge_fold(mapping: SystolicMapping, r: OperandRole, fold_col: int, fold_row: int) -> int:
    """Which block along the operand's edge dimension a fold uses."""
    return fold_row if r.edge_dim == mapping.dataflow.rows_dim else fold_col


def _padded_block(matrix: np.ndarray, start: int, width: int) -> np.ndarray:
    """Columns ``start:start+width`` of ``matrix``, padded with idle requests to ``width``."""
    block = matrix[:, start:start + width]
    if block.shape[1] < width:
        pad = np.full((matrix.shape[0], width - block.shape[1]), NO_ADDRESS, dtype=matrix.dtype)
        block = np.concatenate([block, pad], axis=1)
    return block


@lru_cache(maxsize=64)
def diagonal_order(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) of an ``rows x cols`` matrix along anti-diagonals, top-right to bottom-left
    within a diagonal (SCALE-Sim's prefetch roll-out; also the order a skewed block is demanded)."""
    d = np.arange(max(rows + cols - 1, 0), dtype=np.int64)  # diagonal d holds (d - q, q), q ascending
    first = np.maximum(0, d - rows + 1)
    count = np.minimum(d, cols - 1) - first + 1
    starts = np.cumsum(count) - count
    diagonal = np.repeat(d, count)
    q = np.arange(diagonal.size, dtype=np.int64) - np.repeat(starts - first, count)
    return diagonal - q, q


def fetch_sequence(mapping: SystolicMapping, matrices: OperandMatrices, operand: str) -> np.ndarray:
    """Addresses in the order the read buffer fetches them from DRAM (``-1``: padding words).

    The operand is cut along its edge dimension into the ``width``-wide blocks the folds use,
    the blocks are stacked (all of the other dimension each) and a streamed operand is rolled
    out along anti-diagonals (SCALE-Sim ``create_{ifmap,filter}_prefetch_mat``).
    """
    r = role(mapping, operand)
    if r.kind == "drain":
        raise ValueError("the output operand is written, not fetched")
    width = edge_width(mapping, r)
    matrix = matrices.by_gemm_dims(operand, r.other_dim, r.edge_dim)
    folds = -(-matrix.shape[1] // width)
    padded = _padded_block(matrix, 0, folds * width)   # (other x folds W): block f is columns f W .. f W + W - 1
    stacked = padded.reshape(matrix.shape[0], folds, width).transpose(1, 0, 2).reshape(-1, width)
    if r.kind == "preload":
        sequence = stacked.ravel()
        return sequence.copy() if np.may_share_memory(sequence, matrix) else sequence
    return anti_diagonal_rollout(stacked)


def anti_diagonal_rollout(matrix: np.ndarray) -> np.ndarray:
    """``matrix[diagonal_order(*matrix.shape)]`` without index arrays: a tall matrix's full
    diagonals ``W - 1 .. N - 1`` are the rows of a skewed strided view (row ``d``, column ``q``:
    cell ``(d - q, q)``), copied in one pass; only the two corner triangles are gathered."""
    n, w = matrix.shape
    if n < w - 1 or w == 0:
        rows, cols = diagonal_order(n, w)
        return matrix[rows, cols]
    flat = np.ascontiguousarray(matrix).ravel()
    size = flat.itemsize
    full = np.lib.stride_tricks.as_strided(flat[(w - 1) * w:], shape=(n - w + 1, w),
                                           strides=(w * size, -(w - 1) * size), writeable=False)
    corner_rows, corner_cols = diagonal_order(w - 1, w)   # a (W-1) x W corner: top triangle first, bottom last
    triangle = w * (w - 1) // 2
    out = np.empty(n * w, dtype=flat.dtype)
    out[:triangle] = matrix[corner_rows[:triangle], corner_cols[:triangle]]
    out[triangle:triangle + full.size].reshape(full.shape)[...] = full
    out[triangle + full.size:] = matrix[n - w + 1 + corner_rows[triangle:], corner_cols[triangle:]]
    return out


def fold_block(mapping: SystolicMapping, matrices: OperandMatrices, operand: str,
               fold_col: int, fold_row: int) -> np.ndarray:
    """The operand block one fold uses, padded to the array size (time x edge for streams,
    array rows x array cols for preloaded and drained operands)."""
    r = role(mapping, operand)
    if r.kind == "stream":
        matrix = matrices.by_gemm_dims(operand, r.other_dim, r.edge_dim)
        return _padded_block(matrix, edge_fold(mapping, r, fold_col, fold_row) * edge_width(mapping, r),
                             edge_width(mapping, r))
    rows_dim, cols_dim = mapping.dataflow.rows_dim, mapping.dataflow.cols_dim
    matrix = matrices.by_gemm_dims(operand, rows_dim, cols_dim)
    block = matrix[fold_row * mapping.rows:(fold_row + 1) * mapping.rows]
    block = _padded_block(block, fold_col * mapping.cols, mapping.cols)
    if block.shape[0] < mapping.rows:
        pad = np.full((mapping.rows - block.shape[0], mapping.cols), NO_ADDRESS, dtype=ADDRESS_DTYPE)
        block = np.concatenate([block, pad], axis=0)
    return block


def row_wise_window_columns(mapping: SystolicMapping, matrices: OperandMatrices, fold_row: int) -> np.ndarray:
    """Row-wise sparsity: the ``2R`` ifmap columns (window rows) whose weights fold row
    ``fold_row`` holds, ``T x 2R``, padded with idle requests."""
    return _padded_block(matrices.ifmap, 2 * mapping.rows * fold_row, 2 * mapping.rows)
