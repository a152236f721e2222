"""Dense storage: every element stored, zeros included."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np

from accel_sim.foundations.compress._checks import as_finite_array
from accel_sim.foundations.compress.formats.base import SparseFormat, check_value_bits
from accel_sim.foundations.compress.storage import StorageBreakdown


@dataclass(frozen=True, eq=False)
class DenseFormat(SparseFormat):
    """A plain copy of the array; the baseline every sparse format is compared with.

    Storage: ``nnz x value_bits`` of values, the stored zeros as padding.
    """

    name: ClassVar[str] = "dense"
    data: np.ndarray

    @classmethod
    def from_dense(cls, dense: np.ndarray) -> DenseFormat:
        return cls(data=as_finite_array(dense, "dense").copy())

    @property
    def shape(self) -> tuple[int, ...]:  # type: ignore[override]
        return tuple(int(d) for d in self.data.shape)

    def to_dense(self) -> np.ndarray:
        return self.data.copy()

    def check(self) -> None:
        self._require(self.data.ndim >= 1, f"data must have at least one dimension, has shape {self.data.shape}")

    @cached_property
    def nnz(self) -> int:   # counted once: storage() asks for it at every value width
        return int(np.count_nonzero(self.data))

    def storage(self, value_bits: int) -> StorageBreakdown:
        value_bits = check_value_bits(value_bits)
        return StorageBreakdown(values_bits=self.nnz * value_bits, padding_bits=(self.size - self.nnz) * value_bits)
