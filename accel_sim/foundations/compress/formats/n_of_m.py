"""N:M structured sparsity with position metadata (e.g. NVIDIA Ampere's 2:4).

Along one axis (the reduction dimension), every group of M consecutive elements keeps at
most N non-zeros. Each group stores exactly N slots (value + in-group position of
``ceil(log2(M))`` bits); a group with fewer non-zeros fills the spare slots with zeros at
its lowest free positions. An axis whose length is not a multiple of M is padded with
zeros up to one; those positions hold only zero slots.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np

from accel_sim.foundations.compress._checks import as_finite_array, bits_to_address, check_axis, check_int
from accel_sim.foundations.compress._grouping import from_groups, to_groups
from accel_sim.foundations.compress._selection import rank_in_groups
from accel_sim.foundations.compress.formats.base import SparseFormat, check_value_bits
from accel_sim.foundations.compress.storage import StorageBreakdown

AMPERE_N = 2  # NVIDIA A100 sparse tensor cores keep 2 of every 4 (NVIDIA A100 whitepaper, 2020)
AMPERE_M = 4


@dataclass(frozen=True, eq=False)
class NOfM(SparseFormat):
    """N:M compressed tensor.

    Attributes:
        shape: dense shape.
        n, m: kept slots per group and group length.
        axis: the grouped axis (non-negative).
        values: ``(*other_dims, n_groups, n)`` slot values, other dims in the order of
            the dense array with ``axis`` removed.
        positions: same shape, in-group position of each slot, strictly increasing.

    Storage: ``nnz x value_bits`` of values, the zero slots as padding, and
    ``n_slots x ceil(log2(m))`` of metadata.
    """

    name: ClassVar[str] = "nm"
    shape: tuple[int, ...]
    n: int
    m: int
    axis: int
    values: np.ndarray
    positions: np.ndarray

    @classmethod
    def from_dense(cls, dense: np.ndarray, *, n: int = AMPERE_N, m: int = AMPERE_M, axis: int = -1) -> NOfM:
        """Encode an array that already satisfies the N:M constraint along ``axis``.

        Raises ValueError naming the offending groups otherwise; prune it first with
        :func:`accel_sim.foundations.compress.pruning.nm_mask`.
        """
        array = as_finite_array(dense, "dense")
        m = check_int(m, "m", minimum=1)
        n = check_int(n, "n", minimum=1, maximum=m)
        axis = check_axis(axis, array.ndim)
        groups = to_groups(array, axis, m)
        nonzero = groups != 0
        per_group = nonzero.sum(axis=-1)
        if np.any(per_group > n):
            raise ValueError(
                f"dense violates {n}:{m} along axis {axis}: {int(np.sum(per_group > n))} group(s) "
                f"hold up to {int(per_group.max())} non-zeros; prune with nm_mask first"
            )
        # Slots: the non-zeros, then the lowest free positions; n per group, in position order.
        chosen = rank_in_groups(nonzero) < n
        positions = (np.flatnonzero(chosen) % m).reshape(*groups.shape[:-1], n)
        return cls(
            shape=tuple(int(d) for d in array.shape),
            n=n,
            m=m,
            axis=axis,
            values=np.take_along_axis(groups, positions, axis=-1),
            positions=positions.astype(np.int64),
        )

    @property
    def position_bits(self) -> int:
        """Metadata bits per slot: ceil(log2(m))."""
        return bits_to_address(self.m)

    @property
    def n_slots(self) -> int:
        return int(self.values.size)

    def to_dense(self) -> np.ndarray:
        groups = np.zeros((*self.values.shape[:-1], self.m), dtype=self.values.dtype)
        np.put_along_axis(groups, self.positions, self.values, axis=-1)
        return from_groups(groups, self.axis, self.shape[self.axis])

    def check(self) -> None:
        self._require(1 <= self.n <= self.m, f"need 1 <= n <= m, have n={self.n}, m={self.m}")
        self._require(0 <= self.axis < len(self.shape), f"axis {self.axis} outside the {len(self.shape)}-D shape")
        length = self.shape[self.axis]
        others = tuple(d for i, d in enumerate(self.shape) if i != self.axis)
        expected = (*others, -(-length // self.m), self.n)
        self._require(self.values.shape == expected, f"values must have shape {expected}, has {self.values.shape}")
        self._require(self.positions.shape == expected, f"positions must have shape {expected}")
        if not self.values.size:
            return
        self._require(bool(np.all((self.positions >= 0) & (self.positions < self.m))), f"positions outside [0, {self.m})")
        self._require(bool(np.all(np.diff(self.positions, axis=-1) > 0)), "positions must increase strictly in a group")
        group_start = np.arange(expected[-2])[:, None] * self.m
        beyond = (group_start + self.positions) >= length
        self._require(not np.any(self.values[beyond]), "slots in the padding beyond the axis must be zero")

    @cached_property
    def nnz(self) -> int:   # counted once: storage() asks for it at every value width
        return int(np.count_nonzero(self.values))

    def storage(self, value_bits: int) -> StorageBreakdown:
        value_bits = check_value_bits(value_bits)
        return StorageBreakdown(
            values_bits=self.nnz * value_bits,
            metadata_bits=self.n_slots * self.position_bits,
            padding_bits=(self.n_slots - self.nnz) * value_bits,
        )
