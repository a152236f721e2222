import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accel_sim.foundations import units


@pytest.mark.parametrize("text, kind, expected", [
    ("64 KiB", "size", 65536), ("64KiB", "size", 65536), ("2 MiB", "size", 2 * 1024**2),
    ("1 kB", "size", 1000), ("16 bits", "size", 2), (128, "size", 128), ("800 MHz", "frequency", 8e8),
    ("1.2 GHz", "frequency", 1.2e9), ("5 pJ", "energy", 5), ("1.3 nJ", "energy", 1300),
    ("10 ns", "time", 1e-8), ("100 cycles", "cycles", 100),
])
def test_parse_known_units(text, kind, expected):
    assert units.parse(text, kind) == pytest.approx(expected)


@pytest.mark.parametrize("text, kind", [("64 KB/s", "size"), ("800 Mhz", "frequency"), ("fast", "frequency"),
                                        (True, "size"), ([1], "size"), ("nan GHz", "frequency")])
def test_bad_units_raise_with_accepted_suffixes(text, kind):
    with pytest.raises(units.UnitError):
        units.parse(text, kind)


def test_unknown_suffix_message_lists_the_accepted_ones():
    with pytest.raises(units.UnitError, match="MHz"):
        units.parse("800 Mhz", "frequency")


def test_bandwidth_per_cycle_and_per_second():
    assert units.parse_bandwidth("16 B/cycle") == 16
    assert units.parse_bandwidth(10) == 10
    assert units.parse_bandwidth("25.6 GB/s", clock_hz=1e9) == pytest.approx(25.6 * 1024**3 / 1e9)
    with pytest.raises(units.UnitError, match="clock"):
        units.parse_bandwidth("25.6 GB/s")
    with pytest.raises(units.UnitError):
        units.parse_bandwidth("16 B/hour")


@given(st.integers(min_value=0, max_value=2**40))
def test_bare_numbers_are_base_units(n):
    assert units.parse(n, "size") == n
    assert math.isclose(units.parse(f"{n} B", "size"), n)
