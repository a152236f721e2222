"""Zero-run-length encodings of a tensor linearised in C order: RLE and SCNN's variant.

The tensor is flattened (last axis fastest) into one stream of entries (value, run):
run = zeros before the value; runs longer than ``2**run_bits - 1`` insert zero-valued
placeholders. Trailing zeros are implied by the shape. SCNN's format adds a leading
field with the number of entries (Parashar et al., "SCNN", ISCA 2017, Fig. 7).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np

from accel_sim.foundations.compress._checks import as_finite_array, bits_to_address, check_int, field_width, fits_in_bits
from accel_sim.foundations.compress.formats._zero_runs import decode_positions, encode_gaps, gaps_before
from accel_sim.foundations.compress.formats.base import SparseFormat, check_value_bits
from accel_sim.foundations.compress.storage import StorageBreakdown

EYERISS_RUN_BITS = 5  # Eyeriss RLE: 5-bit run, 16-bit level (Chen et al., Eyeriss, JSSC 2017)
SCNN_RUN_BITS = 4  # SCNN: 4-bit index per 16-bit value (Parashar et al. 2017, Table 3)


@dataclass(frozen=True, eq=False)
class RunLengthEncoded(SparseFormat):
    """Zero-run-length encoding; with ``count_bits > 0``, a leading entry count as in SCNN.

    Attributes:
        shape: dense shape (any number of dimensions, linearised in C order).
        values: value of each entry (0 for placeholders).
        runs: zeros before each entry since the previous one.
        run_bits: width of a run field.
        count_bits: width of the leading entry-count field (0: no such field).

    Storage: ``nnz x (value_bits + run_bits)``, each placeholder ``value_bits + run_bits``
    of padding, ``count_bits`` of metadata.
    """

    name: ClassVar[str] = "rle"
    shape: tuple[int, ...]
    values: np.ndarray
    runs: np.ndarray
    run_bits: int
    count_bits: int

    @classmethod
    def from_dense(
        cls, dense: np.ndarray, *, run_bits: int = EYERISS_RUN_BITS, count_bits: int | None = 0
    ) -> RunLengthEncoded:
        """Encode any array with at least one dimension.

        Args:
            run_bits: width of a run field (longest run ``2**run_bits - 1``).
            count_bits: width of a leading entry-count field; 0 for none, ``None`` for the
                fewest bits that can count every element.
        """
        array = as_finite_array(dense, "dense")
        run_bits = check_int(run_bits, "run_bits", minimum=1)
        flat = array.reshape(-1)
        positions = np.flatnonzero(flat)
        runs, value_slots, _ = encode_gaps(gaps_before(np.zeros_like(positions), positions), (1 << run_bits) - 1)
        values = np.zeros(runs.size, dtype=array.dtype)
        values[value_slots] = flat[positions]
        header_bits = 0 if count_bits == 0 else field_width(count_bits, "count_bits", runs.size, bits_to_address(flat.size + 1))
        return cls(
            shape=tuple(int(d) for d in array.shape), values=values, runs=runs, run_bits=run_bits, count_bits=header_bits
        )

    @property
    def max_run(self) -> int:
        return (1 << self.run_bits) - 1

    @property
    def n_entries(self) -> int:
        """Stored entries, placeholders included."""
        return int(self.values.size)

    @property
    def n_placeholders(self) -> int:
        return self.n_entries - self.nnz

    def index_vector(self) -> np.ndarray:
        """Entry count (if there is a count field) followed by every run, as stored."""
        header = [self.n_entries] if self.count_bits else []
        return np.concatenate((np.array(header, dtype=np.int64), self.runs))

    def _positions(self) -> np.ndarray:
        return decode_positions(self.runs, np.array([self.n_entries]))

    def to_dense(self) -> np.ndarray:
        flat = np.zeros(self.size, dtype=self.values.dtype)
        flat[self._positions()] = self.values
        return flat.reshape(self.shape)

    def check(self) -> None:
        self._require(self.values.shape == self.runs.shape, "values and runs must have the same length")
        self._require(self.run_bits >= 1, f"run_bits must be >= 1, is {self.run_bits}")
        if self.count_bits:
            self._require(fits_in_bits(self.n_entries, self.count_bits), f"entry count exceeds count_bits={self.count_bits}")
        if not self.n_entries:
            return
        self._require(bool(np.all((self.runs >= 0) & (self.runs <= self.max_run))), f"runs outside [0, {self.max_run}]")
        self._require(
            bool(np.all(self.runs[self.values == 0] == self.max_run)),
            f"a zero-valued entry must be a placeholder with run {self.max_run}",
        )
        self._require(bool(self._positions()[-1] < self.size), f"entries run past the last of {self.size} elements")

    @cached_property
    def nnz(self) -> int:   # counted once: storage() asks for it at every value width
        return int(np.count_nonzero(self.values))

    def storage(self, value_bits: int) -> StorageBreakdown:
        value_bits = check_value_bits(value_bits)
        return StorageBreakdown(
            values_bits=self.nnz * value_bits,
            index_bits=self.nnz * self.run_bits,
            metadata_bits=self.count_bits,
            padding_bits=self.n_placeholders * (value_bits + self.run_bits),
        )


@dataclass(frozen=True, eq=False)
class SCNNZeroRun(RunLengthEncoded):
    """SCNN's compressed block: entry count, then 4-bit zeros-before of every value.

    Weights are compressed per output-channel group as a (Kc, R, S) block and activations
    per input channel as a (Wt, Ht) block; pass one block per object. ``count_bits``
    defaults to the fewest bits that can count every element of the block (the paper
    does not give its width).
    """

    name: ClassVar[str] = "scnn"

    @classmethod
    def from_dense(
        cls, dense: np.ndarray, *, run_bits: int = SCNN_RUN_BITS, count_bits: int | None = None
    ) -> RunLengthEncoded:
        return super().from_dense(dense, run_bits=run_bits, count_bits=count_bits)

    def check(self) -> None:
        super().check()
        self._require(self.count_bits > 0, "SCNN blocks start with an entry count: count_bits must be > 0")
