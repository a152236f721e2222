"""CSR and CSC: one compressed-sparse implementation parameterised by the major axis.

As in scipy.sparse, a compressed matrix stores, for each major line (row for CSR,
column for CSC), the minor indices and values of its non-zeros, plus ``indptr`` with one
offset per major line and a final total.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np

from accel_sim.foundations.compress._checks import as_finite_array, bits_to_address, check_int, field_width, fits_in_bits
from accel_sim.foundations.compress.formats.base import SparseFormat, check_sorted_pointer, check_value_bits
from accel_sim.foundations.compress.storage import StorageBreakdown

ROW_MAJOR = 0
COLUMN_MAJOR = 1


@dataclass(frozen=True, eq=False)
class CompressedSparse(SparseFormat):
    """Compressed sparse matrix, rows (``major_axis=0``, CSR) or columns (``1``, CSC) first.

    Attributes:
        shape: (rows, columns) of the dense matrix.
        major_axis: 0 for CSR, 1 for CSC.
        indptr: ``n_major + 1`` offsets; line i holds entries ``indptr[i]:indptr[i+1]``.
        indices: minor index of each entry, strictly increasing inside a line.
        data: value of each entry (all non-zero).
        index_bits: width of one stored index.
        pointer_bits: width of one stored offset.

    Storage: ``nnz x (value_bits + index_bits)`` plus ``(n_major + 1) x pointer_bits``.
    """

    name: ClassVar[str] = "compressed"
    fixed_major_axis: ClassVar[int | None] = None
    shape: tuple[int, int]
    major_axis: int
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    index_bits: int
    pointer_bits: int

    @classmethod
    def from_dense(
        cls,
        dense: np.ndarray,
        *,
        major_axis: int = ROW_MAJOR,
        index_bits: int | None = None,
        pointer_bits: int | None = None,
    ) -> CompressedSparse:
        """Encode a 2-D array.

        Args:
            major_axis: 0 (CSR) or 1 (CSC); fixed by the subclasses :class:`CSR` and :class:`CSC`.
            index_bits: bits per minor index; default ``ceil(log2(n_minor))``.
            pointer_bits: bits per offset; default ``ceil(log2(nnz + 1))``.
        """
        matrix = as_finite_array(dense, "dense", ndim=2)
        if cls.fixed_major_axis is not None and major_axis != cls.fixed_major_axis:
            raise ValueError(f"major_axis of {cls.__name__} is {cls.fixed_major_axis}, got {major_axis}")
        major_axis = check_int(major_axis, "major_axis", minimum=0, maximum=1)
        oriented = matrix if major_axis == ROW_MAJOR else matrix.T
        n_major, n_minor = oriented.shape
        majors, minors = np.nonzero(oriented)
        indptr = np.zeros(n_major + 1, dtype=np.int64)
        np.cumsum(np.bincount(majors, minlength=n_major), out=indptr[1:])
        index_bits = field_width(index_bits, "index_bits", n_minor - 1, bits_to_address(n_minor))
        pointer_bits = field_width(pointer_bits, "pointer_bits", majors.size, bits_to_address(majors.size + 1))
        return cls(
            shape=(int(matrix.shape[0]), int(matrix.shape[1])),
            major_axis=major_axis,
            indptr=indptr,
            indices=minors.astype(np.int64),
            data=oriented[majors, minors].copy(),
            index_bits=index_bits,
            pointer_bits=pointer_bits,
        )

    @classmethod
    def dense_storage(cls, dense: np.ndarray, value_bits: int, *, major_axis: int | None = None) -> StorageBreakdown:
        """``from_dense(dense).storage(value_bits)`` at the default index and pointer widths, from the number of
        non-zeros alone (the entries are not encoded): ``nnz`` values and indices of ``ceil(log2(n_minor))`` bits,
        ``n_major + 1`` pointers of ``ceil(log2(nnz + 1))`` bits. ``major_axis``: CSR's or CSC's own, else 0."""
        matrix = as_finite_array(dense, "dense", ndim=2)
        if major_axis is None:
            major_axis = ROW_MAJOR if cls.fixed_major_axis is None else cls.fixed_major_axis
        if cls.fixed_major_axis is not None and major_axis != cls.fixed_major_axis:
            raise ValueError(f"major_axis of {cls.__name__} is {cls.fixed_major_axis}, got {major_axis}")
        major_axis = check_int(major_axis, "major_axis", minimum=0, maximum=1)
        value_bits = check_value_bits(value_bits)
        n_major, n_minor = matrix.shape[major_axis], matrix.shape[1 - major_axis]
        nnz = int(np.count_nonzero(matrix))
        return StorageBreakdown(values_bits=nnz * value_bits, index_bits=nnz * bits_to_address(n_minor),
                                pointer_bits=(n_major + 1) * bits_to_address(nnz + 1))

    @property
    def n_major(self) -> int:
        return self.shape[self.major_axis]

    @property
    def n_minor(self) -> int:
        return self.shape[1 - self.major_axis]

    def to_dense(self) -> np.ndarray:
        majors = np.repeat(np.arange(self.n_major), np.diff(self.indptr))
        out = np.zeros(self.shape, dtype=self.data.dtype)
        if self.major_axis == ROW_MAJOR:
            out[majors, self.indices] = self.data
        else:
            out[self.indices, majors] = self.data
        return out

    def check(self) -> None:
        self._require(self.major_axis in (ROW_MAJOR, COLUMN_MAJOR), f"major_axis must be 0 or 1, is {self.major_axis}")
        fixed = self.fixed_major_axis
        self._require(fixed is None or self.major_axis == fixed, f"major_axis must be {fixed}")
        self._require(self.indices.shape == self.data.shape, "indices and data must have the same length")
        check_sorted_pointer(self, self.indptr, self.n_major + 1, self.indices.size, "indptr")
        if self.indices.size:
            self._require(
                bool(np.all((self.indices >= 0) & (self.indices < self.n_minor))),
                f"indices must lie in [0, {self.n_minor})",
            )
            lines = np.repeat(np.arange(self.n_major), np.diff(self.indptr))
            same_line = lines[1:] == lines[:-1]
            self._require(
                bool(np.all(np.diff(self.indices)[same_line] > 0)), "indices must increase strictly inside a line"
            )
            self._require(fits_in_bits(self.indices.max(), self.index_bits), f"indices exceed index_bits={self.index_bits}")
        self._require(bool(np.all(self.data != 0)), "data must hold only non-zeros")
        self._require(fits_in_bits(self.indptr[-1], self.pointer_bits), f"indptr exceeds pointer_bits={self.pointer_bits}")

    @cached_property
    def nnz(self) -> int:   # counted once: storage() asks for it at every value width
        return int(np.count_nonzero(self.data))

    def storage(self, value_bits: int) -> StorageBreakdown:
        value_bits = check_value_bits(value_bits)
        return StorageBreakdown(
            values_bits=self.nnz * value_bits,
            index_bits=self.indices.size * self.index_bits,
            pointer_bits=self.indptr.size * self.pointer_bits,
        )


@dataclass(frozen=True, eq=False)
class CSR(CompressedSparse):
    """Compressed sparse rows: :class:`CompressedSparse` with ``major_axis=0``."""

    name: ClassVar[str] = "csr"
    fixed_major_axis: ClassVar[int | None] = ROW_MAJOR

    @classmethod
    def from_dense(
        cls,
        dense: np.ndarray,
        *,
        major_axis: int = ROW_MAJOR,
        index_bits: int | None = None,
        pointer_bits: int | None = None,
    ) -> CompressedSparse:
        return super().from_dense(dense, major_axis=major_axis, index_bits=index_bits, pointer_bits=pointer_bits)


@dataclass(frozen=True, eq=False)
class CSC(CompressedSparse):
    """Compressed sparse columns: :class:`CompressedSparse` with ``major_axis=1``."""

    name: ClassVar[str] = "csc"
    fixed_major_axis: ClassVar[int | None] = COLUMN_MAJOR

    @classmethod
    def from_dense(
        cls,
        dense: np.ndarray,
        *,
        major_axis: int = COLUMN_MAJOR,
        index_bits: int | None = None,
        pointer_bits: int | None = None,
    ) -> CompressedSparse:
        return super().from_dense(dense, major_axis=major_axis, index_bits=index_bits, pointer_bits=pointer_bits)

