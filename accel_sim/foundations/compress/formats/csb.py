"""Compressed sparse blocks (Buluc et al., SPAA 2009).

The matrix is cut into beta x beta blocks, visited block-row by block-row. Each non-zero
stores its row and column inside its block (``ceil(log2(beta))`` bits each), and
``block_ptr`` has one offset per block plus a total. Small in-block indices serve both
``A x`` and ``A^T x``. Non-zeros inside a block are kept in row-major order (the paper
allows any order and uses Z-Morton for its parallel kernel).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np

from accel_sim.foundations.compress._checks import as_finite_array, bits_to_address, check_int, field_width, fits_in_bits
from accel_sim.foundations.compress.formats.base import SparseFormat, check_sorted_pointer, check_value_bits
from accel_sim.foundations.compress.storage import StorageBreakdown


def default_beta(shape: tuple[int, int]) -> int:
    """Buluc et al.'s choice beta ~ sqrt(n): the power of two at or above sqrt(max(shape))."""
    return 1 << bits_to_address(math.isqrt(max(max(shape), 1) - 1) + 1)


def block_layout(rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int], beta: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Of non-zeros at ``rows``, ``cols`` (int64) of a ``shape`` matrix in beta x beta blocks: each one's block
    (row-major block index) and ``block_ptr`` (one offset per block, blocks row-major, plus the total)."""
    n_block_cols = -(-shape[1] // beta)
    n_blocks = -(-shape[0] // beta) * n_block_cols
    blocks = (rows // beta) * n_block_cols + cols // beta
    block_ptr = np.zeros(n_blocks + 1, dtype=np.int64)
    np.cumsum(np.bincount(blocks, minlength=n_blocks), out=block_ptr[1:])
    return blocks, block_ptr


@dataclass(frozen=True, eq=False)
class CSB(SparseFormat):
    """Compressed sparse blocks.

    Attributes:
        shape: (rows, columns).
        beta: block side.
        block_ptr: ``n_block_rows x n_block_columns + 1`` offsets, blocks in row-major order.
        row_index, col_index: in-block coordinates of each entry.
        values: value of each entry (all non-zero).
        pointer_bits: width of one block offset.

    Storage: ``nnz x (value_bits + 2 x ceil(log2(beta)))`` plus ``(n_blocks + 1) x pointer_bits``.
    """

    name: ClassVar[str] = "csb"
    shape: tuple[int, int]
    beta: int
    block_ptr: np.ndarray
    row_index: np.ndarray
    col_index: np.ndarray
    values: np.ndarray
    pointer_bits: int

    @classmethod
    def from_dense(cls, dense: np.ndarray, *, beta: int | None = None, pointer_bits: int | None = None) -> CSB:
        """Encode a 2-D matrix in beta x beta blocks (default :func:`default_beta`).

        ``pointer_bits`` defaults to ``ceil(log2(nnz + 1))``.
        """
        matrix = as_finite_array(dense, "dense", ndim=2)
        shape = (int(matrix.shape[0]), int(matrix.shape[1]))
        beta = default_beta(shape) if beta is None else check_int(beta, "beta", minimum=1)
        rows, cols = np.nonzero(matrix)
        blocks, block_ptr = block_layout(rows, cols, shape, beta)
        # by block, then row and column inside it: one key per entry (distinct, as the positions are), one sort
        order = np.argsort((blocks * beta + rows % beta) * beta + cols % beta)
        rows, cols = rows[order], cols[order]
        return cls(
            shape=shape,
            beta=beta,
            block_ptr=block_ptr,
            row_index=(rows % beta).astype(np.int64),
            col_index=(cols % beta).astype(np.int64),
            values=matrix[rows, cols].copy(),
            pointer_bits=field_width(pointer_bits, "pointer_bits", rows.size, bits_to_address(rows.size + 1)),
        )

    @property
    def index_bits(self) -> int:
        """Width of one in-block row or column index."""
        return bits_to_address(self.beta)

    @property
    def block_grid(self) -> tuple[int, int]:
        """(block rows, block columns)."""
        return -(-self.shape[0] // self.beta), -(-self.shape[1] // self.beta)

    def _absolute(self) -> tuple[np.ndarray, np.ndarray]:
        blocks = np.repeat(np.arange(self.block_ptr.size - 1), np.diff(self.block_ptr))
        n_block_cols = self.block_grid[1]
        rows = (blocks // n_block_cols) * self.beta + self.row_index
        cols = (blocks % n_block_cols) * self.beta + self.col_index
        return rows, cols

    def to_dense(self) -> np.ndarray:
        out = np.zeros(self.shape, dtype=self.values.dtype)
        rows, cols = self._absolute()
        out[rows, cols] = self.values
        return out

    def check(self) -> None:
        self._require(self.beta >= 1, f"beta must be >= 1, is {self.beta}")
        n_entries = self.values.size
        self._require(
            self.row_index.shape == self.col_index.shape == self.values.shape,
            "row_index, col_index and values must have the same length",
        )
        check_sorted_pointer(self, self.block_ptr, math.prod(self.block_grid) + 1, n_entries, "block_ptr")
        self._require(bool(np.all(self.values != 0)), "values must hold only non-zeros")
        self._require(fits_in_bits(n_entries, self.pointer_bits), f"block_ptr exceeds pointer_bits={self.pointer_bits}")
        if not n_entries:
            return
        for name, index in (("row_index", self.row_index), ("col_index", self.col_index)):
            self._require(bool(np.all((index >= 0) & (index < self.beta))), f"{name} outside [0, beta={self.beta})")
        rows, cols = self._absolute()
        self._require(bool(rows.max() < self.shape[0] and cols.max() < self.shape[1]), "an entry lies outside the matrix")
        blocks = np.repeat(np.arange(self.block_ptr.size - 1), np.diff(self.block_ptr))
        in_block = self.row_index * self.beta + self.col_index
        same_block = blocks[1:] == blocks[:-1]
        self._require(bool(np.all(np.diff(in_block)[same_block] > 0)), "entries must be row-major and unique in a block")

    @cached_property
    def nnz(self) -> int:   # counted once: storage() asks for it at every value width
        return int(np.count_nonzero(self.values))

    def storage(self, value_bits: int) -> StorageBreakdown:
        value_bits = check_value_bits(value_bits)
        return StorageBreakdown(
            values_bits=self.nnz * value_bits,
            index_bits=self.values.size * 2 * self.index_bits,
            pointer_bits=self.block_ptr.size * self.pointer_bits,
        )
