"""Coordinate list (COO): every non-zero with its full coordinates."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np

from accel_sim.foundations.compress._checks import as_finite_array, bits_to_address
from accel_sim.foundations.compress.formats.base import SparseFormat, check_value_bits
from accel_sim.foundations.compress.storage import StorageBreakdown


@dataclass(frozen=True, eq=False)
class COO(SparseFormat):
    """Coordinates and values of the non-zeros, sorted in C (row-major) order.

    Attributes:
        shape: dense shape, any number of dimensions.
        coords: int array (nnz, ndim), one row per non-zero, unique and sorted.
        values: value of each non-zero.

    Storage: ``nnz x (value_bits + sum over dims of ceil(log2(dim)))``.
    """

    name: ClassVar[str] = "coo"
    shape: tuple[int, ...]
    coords: np.ndarray
    values: np.ndarray

    @classmethod
    def from_dense(cls, dense: np.ndarray) -> COO:
        array = as_finite_array(dense, "dense")
        coords = np.argwhere(array).astype(np.int64)
        return cls(shape=tuple(int(d) for d in array.shape), coords=coords, values=array[tuple(coords.T)].copy())

    @property
    def index_bits_per_dim(self) -> tuple[int, ...]:
        """Width of each coordinate: ceil(log2(dim))."""
        return tuple(bits_to_address(d) for d in self.shape)

    def to_dense(self) -> np.ndarray:
        out = np.zeros(self.shape, dtype=self.values.dtype)
        out[tuple(self.coords.T)] = self.values
        return out

    def check(self) -> None:
        ndim = len(self.shape)
        self._require(self.coords.ndim == 2 and self.coords.shape[1] == ndim, f"coords must have shape (nnz, {ndim})")
        self._require(self.coords.shape[0] == self.values.size, "coords and values must have the same length")
        self._require(bool(np.all(self.values != 0)), "values must hold only non-zeros")
        if not self.values.size:
            return
        bounds = np.array(self.shape)
        self._require(bool(np.all((self.coords >= 0) & (self.coords < bounds))), "coords outside the shape")
        flat = np.ravel_multi_index(tuple(self.coords.T), self.shape)
        self._require(bool(np.all(np.diff(flat) > 0)), "coords must be unique and sorted in row-major order")

    @cached_property
    def nnz(self) -> int:   # counted once: storage() asks for it at every value width
        return int(np.count_nonzero(self.values))

    def storage(self, value_bits: int) -> StorageBreakdown:
        value_bits = check_value_bits(value_bits)
        return StorageBreakdown(
            values_bits=self.nnz * value_bits, index_bits=self.values.size * sum(self.index_bits_per_dim)
        )
