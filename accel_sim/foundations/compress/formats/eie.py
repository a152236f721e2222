"""EIE's interleaved, relative-indexed CSC (Han et al., "EIE", ISCA 2016, Figs. 2-3).

Row i of the matrix W (output i) lives on PE ``i mod n_pes`` as local row ``i // n_pes``.
Each PE stores its slice column by column as entries (v, z): v the value (in EIE a 4-bit
index into the 16-entry shared-weight codebook), z the number of zeros before it within the
PE's column slice (``index_bits`` = 4 bits). A gap larger than ``2**index_bits - 1`` inserts
a padding entry (v = 0, z = 15). Per PE, the column pointer p has ``n_columns + 1``
offsets; column j holds entries ``p[j]:p[j+1]``.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np

from accel_sim.foundations.compress._checks import as_finite_array, bits_to_address, check_int, field_width, fits_in_bits
from accel_sim.foundations.compress.formats._zero_runs import decode_positions, encode_gaps, gaps_before
from accel_sim.foundations.compress.formats.base import SparseFormat, check_sorted_pointer, check_value_bits
from accel_sim.foundations.compress.storage import StorageBreakdown

EIE_PES = 64  # processing elements of the EIE chip (Han et al. 2016)
EIE_INDEX_BITS = 4  # relative row index z (Han et al. 2016, Fig. 3)
EIE_POINTER_BITS = 16  # column pointers p_j (Han et al. 2016)


@dataclass(frozen=True, eq=False)
class EIEPESlice:
    """One PE's arrays: values ``v``, relative indices ``z`` and column pointers ``p``."""

    values: np.ndarray
    rel_index: np.ndarray
    col_ptr: np.ndarray

    @property
    def n_entries(self) -> int:
        """Stored entries, padding included (one PE cycle each)."""
        return int(self.values.size)


@dataclass(frozen=True, eq=False)
class EIEInterleavedCSC(SparseFormat):
    """EIE's per-PE relative-index CSC of a 2-D weight matrix (rows = outputs, columns = inputs).

    Storage: ``nnz x (value_bits + index_bits)`` of values and indices, every padding
    entry ``value_bits + index_bits`` of padding, ``n_pes x (n_columns + 1) x pointer_bits``
    of pointers.
    """

    name: ClassVar[str] = "eie"
    shape: tuple[int, int]
    n_pes: int
    index_bits: int
    pointer_bits: int
    pes: tuple[EIEPESlice, ...]

    @classmethod
    def from_dense(
        cls,
        dense: np.ndarray,
        *,
        n_pes: int = EIE_PES,
        index_bits: int = EIE_INDEX_BITS,
        pointer_bits: int | None = EIE_POINTER_BITS,
    ) -> EIEInterleavedCSC:
        """Encode a 2-D matrix.

        Args:
            n_pes: number of PEs the rows are interleaved over.
            index_bits: width of the relative index z (longest run ``2**index_bits - 1``).
            pointer_bits: width of a column pointer; ``None`` picks the fewest bits that
                hold the largest pointer. ValueError if a PE's entries overflow it.
        """
        matrix = as_finite_array(dense, "dense", ndim=2)
        columns, rows = np.nonzero(matrix.T)  # sorted by (column, row); contiguous when matrix is a transposed view
        return cls.from_nonzeros(matrix.shape, columns, rows, matrix[rows, columns], n_pes=n_pes,
                                 index_bits=index_bits, pointer_bits=pointer_bits)

    @classmethod
    def from_nonzeros(
        cls,
        shape: tuple[int, int],
        columns: np.ndarray,
        rows: np.ndarray,
        values: np.ndarray,
        *,
        n_pes: int = EIE_PES,
        index_bits: int = EIE_INDEX_BITS,
        pointer_bits: int | None = EIE_POINTER_BITS,
    ) -> EIEInterleavedCSC:
        """:meth:`from_dense` of the ``shape`` matrix that is zero but ``values`` (non-zero, finite) at
        (``rows``, ``columns``), listed sorted by (column, row): the same format, without the dense matrix."""
        values = as_finite_array(values, "values")
        n_pes = check_int(n_pes, "n_pes", minimum=1)
        index_bits = check_int(index_bits, "index_bits", minimum=1)
        max_run = (1 << index_bits) - 1
        n_rows, n_columns = (int(d) for d in shape)
        pes = _encode_all_slices(columns, rows, values, n_columns, n_pes, max_run)
        most_entries = max(pe.n_entries for pe in pes)
        pointer_bits = field_width(pointer_bits, "pointer_bits", most_entries, bits_to_address(most_entries + 1))
        return cls(shape=(n_rows, n_columns), n_pes=n_pes, index_bits=index_bits, pointer_bits=pointer_bits, pes=pes)

    @property
    def max_run(self) -> int:
        """Longest zero run one entry can express."""
        return (1 << self.index_bits) - 1

    def local_rows(self, pe: int) -> int:
        """Number of matrix rows held by ``pe`` (rows pe, pe + n_pes, ...)."""
        return len(range(pe, self.shape[0], self.n_pes))

    def entries_per_column(self) -> np.ndarray:
        """Entries (padding included) of each PE's column slice, shape (n_pes, n_columns)."""
        return np.stack([np.diff(pe.col_ptr) for pe in self.pes])

    @property
    def n_padding(self) -> int:
        """Number of padding entries over all PEs."""
        return sum(pe.n_entries for pe in self.pes) - self.nnz

    def to_dense(self) -> np.ndarray:
        out = np.zeros(self.shape, dtype=self.pes[0].values.dtype)
        for pe_index, pe in enumerate(self.pes):
            local_rows = _decode_slice(pe)
            columns = np.repeat(np.arange(self.shape[1]), np.diff(pe.col_ptr))
            real = pe.values != 0
            out[local_rows[real] * self.n_pes + pe_index, columns[real]] = pe.values[real]
        return out

    def check(self) -> None:
        self._require(len(self.pes) == self.n_pes, f"expected {self.n_pes} PE slices, found {len(self.pes)}")
        for pe_index, pe in enumerate(self.pes):
            where = f"PE {pe_index}"
            self._require(pe.values.shape == pe.rel_index.shape, f"{where}: values and rel_index differ in length")
            check_sorted_pointer(self, pe.col_ptr, self.shape[1] + 1, pe.n_entries, f"{where} col_ptr")
            if not pe.n_entries:
                continue
            z = pe.rel_index
            self._require(bool(np.all((z >= 0) & (z <= self.max_run))), f"{where}: rel_index outside [0, {self.max_run}]")
            self._require(
                bool(np.all(z[pe.values == 0] == self.max_run)),
                f"{where}: a zero-valued entry must be padding with rel_index {self.max_run}",
            )
            rows = _decode_slice(pe)
            self._require(bool(rows.max() < self.local_rows(pe_index)), f"{where}: an entry runs past the last local row")
            self._require(fits_in_bits(pe.n_entries, self.pointer_bits), f"{where}: col_ptr exceeds pointer_bits")

    @cached_property
    def nnz(self) -> int:   # counted once: storage() asks for it at every value width
        return sum(int(np.count_nonzero(pe.values)) for pe in self.pes)

    def storage(self, value_bits: int) -> StorageBreakdown:
        value_bits = check_value_bits(value_bits)
        entry_bits = value_bits + self.index_bits
        return StorageBreakdown(
            values_bits=self.nnz * value_bits,
            index_bits=self.nnz * self.index_bits,
            pointer_bits=self.n_pes * (self.shape[1] + 1) * self.pointer_bits,
            padding_bits=self.n_padding * entry_bits,
        )


def _encode_all_slices(columns: np.ndarray, rows: np.ndarray, values: np.ndarray, n_columns: int, n_pes: int,
                       max_run: int) -> tuple[EIEPESlice, ...]:
    """Every PE's slice from the matrix's non-zeros in column-major order (one ``np.nonzero`` of the
    matrix's transpose), split stably by PE (``row mod n_pes``): each PE's non-zeros stay in
    column-major order of its slice.
    """
    if n_pes == 1:   # one PE holds every non-zero, in the order given
        return (_slice_from_nonzeros(columns, rows, values, n_columns, max_run, values.dtype),)
    pe_of = rows % n_pes
    order = np.argsort(pe_of, kind="stable")
    counts = np.bincount(pe_of, minlength=n_pes)
    bounds = np.concatenate(([0], np.cumsum(counts)))
    pes = []
    for pe in range(n_pes):
        chosen = order[bounds[pe] : bounds[pe + 1]]
        pes.append(_slice_from_nonzeros(columns[chosen], rows[chosen] // n_pes, values[chosen], n_columns,
                                        max_run, values.dtype))
    return tuple(pes)


def _slice_from_nonzeros(columns: np.ndarray, local_rows: np.ndarray, values: np.ndarray, n_columns: int,
                         max_run: int, dtype: np.dtype) -> EIEPESlice:
    """A PE's arrays from its non-zeros in column-major order of its slice."""
    runs, value_slots, entries_per_value = encode_gaps(gaps_before(columns, local_rows), max_run)
    stored = np.zeros(runs.size, dtype=dtype)
    stored[value_slots] = values
    return EIEPESlice(values=stored, rel_index=runs, col_ptr=_column_pointers(columns, entries_per_value, n_columns))


def _encode_slice(rows_of_pe: np.ndarray, max_run: int) -> EIEPESlice:
    columns, local_rows = np.nonzero(rows_of_pe.T)  # column-major order
    values = rows_of_pe[local_rows, columns]
    runs, value_slots, entries_per_value = encode_gaps(gaps_before(columns, local_rows), max_run)
    stored = np.zeros(runs.size, dtype=rows_of_pe.dtype)
    stored[value_slots] = values
    return EIEPESlice(values=stored, rel_index=runs,
                      col_ptr=_column_pointers(columns, entries_per_value, rows_of_pe.shape[1]))


def _column_pointers(columns: np.ndarray, entries_per_value: np.ndarray, n_columns: int) -> np.ndarray:
    """``col_ptr`` of a slice whose non-zeros sit in ``columns`` and cost ``entries_per_value`` entries each:
    the entries summed per column (a weighted count, exact in float64 below 2**53 entries), then the prefix
    sums."""
    col_ptr = np.zeros(n_columns + 1, dtype=np.int64)
    np.cumsum(np.bincount(columns, weights=entries_per_value, minlength=n_columns).astype(np.int64),
              out=col_ptr[1:])
    return col_ptr


def _decode_slice(pe: EIEPESlice) -> np.ndarray:
    """Local row of every entry of a PE (padding entries included)."""
    return decode_positions(pe.rel_index, np.diff(pe.col_ptr))
