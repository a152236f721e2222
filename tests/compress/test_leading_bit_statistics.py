"""The statistics block against an independent count, and the point-update rules."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.foundations.compress import update_integer_length
from accel_sim.foundations.compress.quantization.leading_bit_statistics import (
    PointRange,
    accumulator_levels,
    check_point_in_word,
    leading_bit_histogram,
    next_point,
    overflow_fraction,
)

ACC = 32
WIDE = PointRange(-64, 64)


def independent_histogram(levels, acc_bits, split=False):
    """Bit by bit, as the hardware would: scan from the bit below the sign down to 0 for the
    first bit that differs from the sign bit (two's complement of ``acc_bits``)."""
    counts = np.zeros((2, acc_bits), dtype=np.int64)
    for v in np.asarray(levels, dtype=np.int64).ravel().tolist():
        word = v & ((1 << acc_bits) - 1)
        sign = (word >> (acc_bits - 1)) & 1
        position = -1
        for bit in range(acc_bits - 2, -1, -1):
            if ((word >> bit) & 1) != sign:
                position = bit
                break
        counts[int(v < 0), position + 1] += 1
    return counts if split else counts.sum(axis=0)


ADVERSARIAL = {
    "all zeros": np.zeros(50, dtype=np.int64),
    "all minus one": np.full(50, -1, dtype=np.int64),
    "saturated": np.array([2**31 - 1, -(2**31)] * 10 + [0, -1], dtype=np.int64),
    "powers of two": np.array([1 << p for p in range(31)] + [-(1 << p) for p in range(32)], dtype=np.int64),
    "one below powers": np.array([(1 << p) - 1 for p in range(1, 32)] + [-(1 << p) - 1 for p in range(31)]),
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
@pytest.mark.parametrize("split", [False, True])
def test_histogram_equals_independent_count_on_adversarial_data(name, split):
    levels = ADVERSARIAL[name]
    assert np.array_equal(leading_bit_histogram(levels, ACC, split), independent_histogram(levels, ACC, split))
    assert np.array_equal(leading_bit_histogram(levels.astype(np.float64), ACC, split),
                          independent_histogram(levels, ACC, split))


def test_adversarial_buckets_are_where_they_belong():
    assert leading_bit_histogram(ADVERSARIAL["all zeros"], ACC)[0] == 50
    assert leading_bit_histogram(ADVERSARIAL["all minus one"], ACC)[0] == 50
    saturated = leading_bit_histogram(ADVERSARIAL["saturated"], ACC)
    assert saturated[ACC - 1] == 20 and saturated[0] == 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(2**31), 2**31 - 1), min_size=1, max_size=200), st.booleans())
def test_histogram_equals_independent_count_on_random_levels(values, split):
    levels = np.array(values, dtype=np.int64)
    assert np.array_equal(leading_bit_histogram(levels, ACC, split), independent_histogram(levels, ACC, split))


def test_histogram_of_accumulated_gaussian_data():
    x = np.random.default_rng(3).normal(0, 5, 5000)
    levels = accumulator_levels(x, 10, ACC)
    assert np.array_equal(leading_bit_histogram(levels, ACC), independent_histogram(levels.astype(np.int64), ACC))


def test_accumulator_saturates_and_levels_outside_are_refused():
    levels = accumulator_levels(np.array([1e30, -1e30, 0.5]), 0, 16)
    assert levels.tolist() == [2**15 - 1, -(2**15), 0]
    with pytest.raises(ValueError, match="accumulator"):
        leading_bit_histogram(np.array([2**20]), 16)


def test_overflow_rule_from_histogram_matches_courbariaux_rule_on_exact_data():
    rng = np.random.default_rng(0)
    for _ in range(40):
        bits, il = int(rng.integers(4, 17)), int(rng.integers(-3, 6))
        f = bits - il
        x = np.round(rng.normal(0, 2.0 ** rng.integers(-4, 5), 400) * 2 ** (f + 2)) / 2 ** (f + 2)
        histogram = leading_bit_histogram(accumulator_levels(x, f, 52), 52)
        new_f = next_point(histogram, bits=bits, fraction_bits=f, rule="overflow", point_range=WIDE)
        assert bits - new_f == update_integer_length(x, bits=bits, integer_length=il)


def test_max_rule_puts_the_largest_value_at_the_top_of_the_word():
    x = np.array([0.3, -2.7, 1.0])  # |max| 2.7 -> 2 integer bits + sign at 8 bits: f = 5
    histogram = leading_bit_histogram(accumulator_levels(x, 0, ACC), ACC)
    f = next_point(histogram, bits=8, fraction_bits=0, rule="max", point_range=WIDE)
    assert f == 5
    levels = accumulator_levels(x, f, ACC)
    assert overflow_fraction(leading_bit_histogram(levels, ACC), 8) == 0
    assert np.abs(levels).max() <= 127


def test_percentile_rule_lets_outliers_saturate():
    x = np.concatenate([np.full(9999, 0.5), [1000.0]])
    histogram = leading_bit_histogram(accumulator_levels(x, 4, ACC), ACC)
    by_max = next_point(histogram, bits=8, fraction_bits=4, rule="max", point_range=WIDE)
    by_percentile = next_point(histogram, bits=8, fraction_bits=4, rule="percentile", point_range=WIDE,
                               percentile=0.999)
    assert by_percentile > by_max + 5  # resolution for the bulk, the outlier saturates


def test_points_are_clamped_to_the_register():
    histogram = leading_bit_histogram(np.zeros(10, dtype=np.int64), ACC)
    assert next_point(histogram, bits=8, fraction_bits=7, rule="max", point_range=PointRange(-4, 9)) == 9


@pytest.mark.parametrize("bits", [1, 0, -3, 2.5])
def test_bits_below_two_are_refused(bits):
    with pytest.raises(ValueError, match="bits"):
        next_point(np.ones(32), bits=bits, fraction_bits=0, rule="max", point_range=WIDE)


@pytest.mark.parametrize("point", [-1, 8, 99])
def test_point_outside_the_word_is_refused(point):
    with pytest.raises(ValueError, match="outside the 8-bit word"):
        check_point_in_word(point, 8)


def test_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="unknown point update rule 'median'"):
        next_point(np.ones(32), bits=8, fraction_bits=0, rule="median", point_range=WIDE)


def test_percentile_rule_searches_as_numpy_does():
    # next_point's percentile search over Python integers gives np.searchsorted's bucket on the running sums.
    rng = np.random.default_rng(11)
    for trial in range(300):
        counts = rng.integers(0, 10 ** int(rng.integers(1, 12)), 32) * (rng.random(32) < 0.4)
        if not counts.any():
            continue
        percentile = float(rng.choice([0.5, 0.9, 0.99, 0.9999, 1.0, rng.random()]))
        cumulative = np.cumsum(counts)
        bucket = int(np.searchsorted(cumulative, percentile * cumulative[-1] - 1e-9))
        expected = WIDE.clamp(4 + (8 - 2 - (bucket - 1)))
        assert next_point(counts, bits=8, fraction_bits=4, rule="percentile", point_range=WIDE,
                          percentile=percentile) == expected
