"""StorageBreakdown: bits by role, totals, addition."""
from __future__ import annotations

import numpy as np
import pytest

from accel_sim.foundations.compress import StorageBreakdown


def test_totals_and_bytes_round_up() -> None:
    storage = StorageBreakdown(values_bits=8, index_bits=4, pointer_bits=3, metadata_bits=2, padding_bits=1)
    assert storage.total_bits == 18
    assert storage.total_bytes == 3
    assert StorageBreakdown().total_bytes == 0
    assert StorageBreakdown(values_bits=16).total_bytes == 2


def test_breakdowns_add_part_by_part() -> None:
    a = StorageBreakdown(values_bits=8, index_bits=4)
    b = StorageBreakdown(values_bits=1, pointer_bits=16, padding_bits=2)
    assert a + b == StorageBreakdown(values_bits=9, index_bits=4, pointer_bits=16, padding_bits=2)
    assert sum([a, b], StorageBreakdown()) == a + b


def test_as_dict_has_unit_suffixed_keys_and_total() -> None:
    assert StorageBreakdown(values_bits=5, metadata_bits=3).as_dict() == {
        "values_bits": 5, "index_bits": 0, "pointer_bits": 0, "metadata_bits": 3, "padding_bits": 0, "total_bits": 8
    }  # fmt: skip


def test_numpy_integers_become_python_ints() -> None:
    storage = StorageBreakdown(values_bits=np.int64(7))
    assert type(storage.values_bits) is int


@pytest.mark.parametrize("bad", [-1, 2.5])
def test_negative_or_fractional_bits_are_rejected(bad: float) -> None:
    with pytest.raises(ValueError, match="index_bits must be a non-negative integer"):
        StorageBreakdown(index_bits=bad)  # type: ignore[arg-type]
