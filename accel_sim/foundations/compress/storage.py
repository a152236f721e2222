"""Storage cost of a compressed tensor, in bits, split by what the bits hold."""
from __future__ import annotations

from dataclasses import dataclass, fields

_BITS_PER_BYTE = 8


@dataclass(frozen=True)
class StorageBreakdown:
    """Bits a compressed tensor occupies, by role. Breakdowns add with ``+``.

    - ``values_bits``: the true non-zero values (always ``nnz x value_bits``).
    - ``index_bits``: per-value position information (column or row indices, relative
      indices, zero-run lengths, in-block coordinates, the bitmap of a bitmap format).
    - ``pointer_bits``: per-row / per-column / per-block offsets into the value arrays.
    - ``metadata_bits``: fixed-size side information (N:M positions, entry counts).
    - ``padding_bits``: storage that holds no non-zero: zeros stored inside dense blocks or
      a dense array, unused N:M slots, and whole filler entries (value and index) of the
      relative-index formats.
    """

    values_bits: int = 0
    index_bits: int = 0
    pointer_bits: int = 0
    metadata_bits: int = 0
    padding_bits: int = 0

    def __post_init__(self) -> None:
        for field in fields(self):
            raw = getattr(self, field.name)
            value = int(raw)
            if value != raw or value < 0:
                raise ValueError(f"{field.name} must be a non-negative integer number of bits, got {raw!r}")
            object.__setattr__(self, field.name, value)

    @property
    def total_bits(self) -> int:
        """Sum of all parts."""
        return sum(int(getattr(self, field.name)) for field in fields(self))

    @property
    def total_bytes(self) -> int:
        """``total_bits`` in whole bytes, rounded up."""
        return -(-self.total_bits // _BITS_PER_BYTE)

    def __add__(self, other: StorageBreakdown) -> StorageBreakdown:
        if not isinstance(other, StorageBreakdown):
            return NotImplemented
        return StorageBreakdown(
            **{field.name: getattr(self, field.name) + getattr(other, field.name) for field in fields(self)}
        )

    def as_dict(self) -> dict[str, int]:
        """The parts and ``total_bits``, keyed by unit-suffixed names (one table row)."""
        parts = {field.name: int(getattr(self, field.name)) for field in fields(self)}
        parts["total_bits"] = self.total_bits
        return parts
