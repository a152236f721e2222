"""Block sparse row (BSR): dense blocks, addressed like CSR over the block grid.

Only blocks with at least one non-zero are stored, each as a full dense block. A matrix
whose sides are not multiples of the block is padded with zeros at its bottom / right
edge; those zeros are stored (as padding) inside the edge blocks and cropped on decode.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np

from accel_sim.foundations.compress._checks import as_finite_array, bits_to_address, check_block_shape, field_width, fits_in_bits
from accel_sim.foundations.compress.formats.base import SparseFormat, check_sorted_pointer, check_value_bits
from accel_sim.foundations.compress.storage import StorageBreakdown

# No paper fixes a BSR block; 4 x 4 is a common register-blocking size and only a default.
DEFAULT_BSR_BLOCK = 4


@dataclass(frozen=True, eq=False)
class BSR(SparseFormat):
    """Block sparse row matrix.

    Attributes:
        shape: (rows, columns) of the dense matrix.
        block_shape: (block rows, block columns) of one block.
        indptr: ``n_block_rows + 1`` offsets into ``indices`` / ``blocks``.
        indices: block-column index of each stored block, increasing inside a block row.
        blocks: stored blocks, shape ``(n_stored, *block_shape)``.
        index_bits, pointer_bits: widths of a block-column index and of an offset.

    Storage: ``nnz x value_bits`` of values, the stored zeros as padding,
    ``n_stored x index_bits`` and ``(n_block_rows + 1) x pointer_bits``.
    """

    name: ClassVar[str] = "bsr"
    shape: tuple[int, int]
    block_shape: tuple[int, int]
    indptr: np.ndarray
    indices: np.ndarray
    blocks: np.ndarray
    index_bits: int
    pointer_bits: int

    @classmethod
    def from_dense(
        cls,
        dense: np.ndarray,
        *,
        block_size: int | tuple[int, int] = DEFAULT_BSR_BLOCK,
        index_bits: int | None = None,
        pointer_bits: int | None = None,
    ) -> BSR:
        """Encode a 2-D matrix in ``block_size`` blocks (an int b means b x b).

        ``index_bits`` defaults to ``ceil(log2(n_block_columns))``, ``pointer_bits`` to
        ``ceil(log2(n_stored + 1))``.
        """
        matrix = as_finite_array(dense, "dense", ndim=2)
        block_shape = check_block_shape(block_size)
        shape = (int(matrix.shape[0]), int(matrix.shape[1]))
        grid = (-(-shape[0] // block_shape[0]), -(-shape[1] // block_shape[1]))
        padded = np.zeros((grid[0] * block_shape[0], grid[1] * block_shape[1]), dtype=matrix.dtype)
        padded[: shape[0], : shape[1]] = matrix
        tiled = padded.reshape(grid[0], block_shape[0], grid[1], block_shape[1]).swapaxes(1, 2)
        block_rows, block_cols = np.nonzero(np.any(tiled != 0, axis=(2, 3)))
        indptr = np.zeros(grid[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(block_rows, minlength=grid[0]), out=indptr[1:])
        return cls(
            shape=shape,
            block_shape=block_shape,
            indptr=indptr,
            indices=block_cols.astype(np.int64),
            blocks=tiled[block_rows, block_cols].copy(),
            index_bits=field_width(index_bits, "index_bits", grid[1] - 1, bits_to_address(grid[1])),
            pointer_bits=field_width(pointer_bits, "pointer_bits", block_rows.size, bits_to_address(block_rows.size + 1)),
        )

    @property
    def block_grid(self) -> tuple[int, int]:
        """(block rows, block columns) of the padded matrix."""
        return -(-self.shape[0] // self.block_shape[0]), -(-self.shape[1] // self.block_shape[1])

    @property
    def n_blocks(self) -> int:
        """Stored blocks."""
        return int(self.indices.size)

    def _padded(self) -> np.ndarray:
        grid = self.block_grid
        tiled = np.zeros((grid[0], grid[1], *self.block_shape), dtype=self.blocks.dtype)
        block_rows = np.repeat(np.arange(grid[0]), np.diff(self.indptr))
        tiled[block_rows, self.indices] = self.blocks
        return tiled.swapaxes(1, 2).reshape(grid[0] * self.block_shape[0], grid[1] * self.block_shape[1])

    def to_dense(self) -> np.ndarray:
        return self._padded()[: self.shape[0], : self.shape[1]].copy()

    def check(self) -> None:
        grid = self.block_grid
        self._require(min(self.block_shape) >= 1, f"block_shape must be positive, is {self.block_shape}")
        self._require(
            self.blocks.shape == (self.n_blocks, *self.block_shape),
            f"blocks must have shape {(self.n_blocks, *self.block_shape)}, has {self.blocks.shape}",
        )
        check_sorted_pointer(self, self.indptr, grid[0] + 1, self.n_blocks, "indptr")
        self._require(fits_in_bits(self.n_blocks, self.pointer_bits), f"indptr exceeds pointer_bits={self.pointer_bits}")
        if not self.n_blocks:
            return
        self._require(bool(np.all((self.indices >= 0) & (self.indices < grid[1]))), f"indices outside [0, {grid[1]})")
        block_rows = np.repeat(np.arange(grid[0]), np.diff(self.indptr))
        same_row = block_rows[1:] == block_rows[:-1]
        self._require(bool(np.all(np.diff(self.indices)[same_row] > 0)), "indices must increase strictly in a block row")
        self._require(fits_in_bits(self.indices.max(), self.index_bits), f"indices exceed index_bits={self.index_bits}")
        self._require(bool(np.all(np.any(self.blocks != 0, axis=(1, 2)))), "every stored block needs a non-zero")
        padded = self._padded()
        outside = padded.copy()
        outside[: self.shape[0], : self.shape[1]] = 0
        self._require(not np.any(outside), "edge padding outside the matrix must be zero")

    @cached_property
    def nnz(self) -> int:   # counted once: storage() asks for it at every value width
        return int(np.count_nonzero(self.blocks))

    def storage(self, value_bits: int) -> StorageBreakdown:
        value_bits = check_value_bits(value_bits)
        stored = self.blocks.size
        return StorageBreakdown(
            values_bits=self.nnz * value_bits,
            index_bits=self.n_blocks * self.index_bits,
            pointer_bits=self.indptr.size * self.pointer_bits,
            padding_bits=(stored - self.nnz) * value_bits,
        )

