"""The contract every storage format meets.

A format is built from a dense array with :meth:`SparseFormat.from_dense`, gives it back
bit for bit with :meth:`SparseFormat.to_dense`, checks its own invariants with
:meth:`SparseFormat.check`, and reports its storage cost with :meth:`SparseFormat.storage`.
Dense arrays are the hub: converting between two formats goes through ``to_dense``.

Exactness: ``F.from_dense(x).to_dense()`` equals ``x`` element for element, with the
same shape and dtype. The one float subtlety: ``-0.0`` counts as a zero (as in
``np.count_nonzero``) and comes back as ``+0.0``.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, NoReturn

import numpy as np

from accel_sim.foundations.compress._checks import check_int
from accel_sim.foundations.compress.storage import StorageBreakdown


class FormatInvariantError(ValueError):
    """A compressed tensor's arrays contradict each other or the format's rules."""


class SparseFormat(ABC):
    """Abstract storage format of a dense tensor.

    Subclasses are frozen dataclasses holding numpy arrays; every subclass has a
    ``shape`` (the dense shape) and a ``name`` (the key in :data:`FORMATS`).
    ``from_dense`` of a subclass takes keyword-only format parameters, all with
    documented defaults.
    """

    name: ClassVar[str]
    shape: tuple[int, ...]

    @classmethod
    @abstractmethod
    def from_dense(cls, dense: np.ndarray) -> SparseFormat:
        """Encode ``dense``; raises ValueError on bad input or parameters."""

    @abstractmethod
    def to_dense(self) -> np.ndarray:
        """The dense array this object encodes (same shape and dtype as the input)."""

    @abstractmethod
    def check(self) -> None:
        """Raise :class:`FormatInvariantError` if any invariant of the format is broken."""

    @property
    @abstractmethod
    def nnz(self) -> int:
        """Number of true non-zero values stored (filler and padding entries excluded)."""

    @abstractmethod
    def storage(self, value_bits: int) -> StorageBreakdown:
        """Bits needed when each stored value takes ``value_bits`` bits."""

    @property
    def size(self) -> int:
        """Number of elements of the dense tensor."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def density(self) -> float:
        """``nnz / size`` (0 for an empty tensor)."""
        return self.nnz / self.size if self.size else 0.0

    def _fail(self, message: str) -> NoReturn:
        raise FormatInvariantError(f"{type(self).__name__}: {message}")

    def _require(self, condition: bool | np.bool_, message: str) -> None:
        if not condition:
            self._fail(message)


def check_value_bits(value_bits: int) -> int:
    """``value_bits`` as an int >= 1 (the width of one stored value)."""
    return check_int(value_bits, "value_bits", minimum=1)


def check_sorted_pointer(owner: SparseFormat, pointer: np.ndarray, length: int, total: int, name: str) -> None:
    """Invariants of an offsets array: ``length`` entries, from 0, non-decreasing, up to ``total``."""
    owner._require(pointer.ndim == 1 and pointer.size == length, f"{name} must have {length} entries, has {pointer.shape}")
    if length == 0:
        return
    owner._require(pointer[0] == 0, f"{name}[0] must be 0, is {pointer[0]}")
    owner._require(bool(np.all(np.diff(pointer) >= 0)), f"{name} must be non-decreasing")
    owner._require(pointer[-1] == total, f"{name}[-1] must equal the number of entries {total}, is {pointer[-1]}")
