"""Bitmap: one presence bit per element plus the non-zero values in C order."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np

from accel_sim.foundations.compress._checks import as_finite_array
from accel_sim.foundations.compress.formats.base import SparseFormat, check_value_bits
from accel_sim.foundations.compress.storage import StorageBreakdown


@dataclass(frozen=True, eq=False)
class Bitmap(SparseFormat):
    """Presence mask and packed non-zero values.

    Storage: ``nnz x value_bits`` of values and one index bit per element.
    """

    name: ClassVar[str] = "bitmap"
    shape: tuple[int, ...]
    mask: np.ndarray
    values: np.ndarray

    @classmethod
    def from_dense(cls, dense: np.ndarray) -> Bitmap:
        array = as_finite_array(dense, "dense")
        mask = array != 0
        return cls(shape=tuple(int(d) for d in array.shape), mask=mask, values=array[mask].copy())

    def to_dense(self) -> np.ndarray:
        out = np.zeros(self.shape, dtype=self.values.dtype)
        out[self.mask] = self.values
        return out

    def check(self) -> None:
        self._require(self.mask.shape == self.shape, f"mask must have shape {self.shape}, has {self.mask.shape}")
        self._require(self.mask.dtype == np.bool_, f"mask must be boolean, is {self.mask.dtype}")
        self._require(
            int(np.count_nonzero(self.mask)) == self.values.size,
            f"mask has {np.count_nonzero(self.mask)} set bits for {self.values.size} values",
        )
        self._require(bool(np.all(self.values != 0)), "values must hold only non-zeros")

    @cached_property
    def nnz(self) -> int:   # counted once: storage() asks for it at every value width
        return int(np.count_nonzero(self.values))

    def storage(self, value_bits: int) -> StorageBreakdown:
        value_bits = check_value_bits(value_bits)
        return StorageBreakdown(values_bits=self.nnz * value_bits, index_bits=self.size)
