"""Quantizers: error bounds, ranges, saturation counts, determinism, paper rules, bad inputs."""
from __future__ import annotations

import numpy as np
import pytest
from compress_cases import FAST, float_arrays
from hypothesis import given
from hypothesis import strategies as st

from accel_sim.foundations.compress import (
    leading_bit_positions,
    max_rule_integer_length,
    overflow_rate,
    quantize_binary,
    quantize_dynamic_fixed_point,
    quantize_fixed_point,
    quantize_kmeans,
    quantize_log2,
    quantize_ternary,
    quantize_ttq,
    quantize_uniform,
    update_integer_length,
    weight_sharing_compression_rate,
)
from accel_sim.foundations.compress.quantization.binary_ternary import ternary_kept

bit_widths = st.integers(2, 16)
ROUND_OFF = 1e-9  # slack for float64 arithmetic in the bounds below


@FAST
@given(x=float_arrays(), bits=bit_widths, symmetric=st.booleans(), per_channel=st.booleans())
def test_uniform_round_to_nearest_error_is_half_a_step(x: np.ndarray, bits: int, symmetric: bool, per_channel: bool) -> None:
    q = quantize_uniform(x, bits=bits, symmetric=symmetric, axis=0 if per_channel else None)
    error = np.abs(x - q.dequantize())
    assert np.all(error <= np.broadcast_to(q.scale, x.shape) / 2 + ROUND_OFF * (1 + np.abs(x)))
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if symmetric else (0, 2**bits - 1)
    assert q.values.min() >= low and q.values.max() <= high
    assert q.values.dtype == np.int64 and q.code_bits == x.size * bits
    if symmetric:
        assert q.saturated == 0  # the range comes from the data


@FAST
@given(x=float_arrays(), bits=bit_widths, seed=st.integers(0, 2**31))
def test_stochastic_rounding_stays_within_one_step_and_is_seeded(x: np.ndarray, bits: int, seed: int) -> None:
    q = quantize_uniform(x, bits=bits, rounding="stochastic", seed=seed)
    assert np.all(np.abs(x - q.dequantize()) < np.broadcast_to(q.scale, x.shape) * (1 + ROUND_OFF))
    again = quantize_uniform(x, bits=bits, rounding="stochastic", seed=seed)
    assert np.array_equal(q.values, again.values)


def test_stochastic_rounding_is_unbiased() -> None:
    x = np.full(20000, 0.3)
    q = quantize_fixed_point(x, bits=8, fraction_bits=0, rounding="stochastic", seed=0)
    assert set(np.unique(q.values)) == {0, 1}
    assert q.dequantize().mean() == pytest.approx(0.3, abs=0.01)


def test_asymmetric_keeps_zero_exact_and_clips_outside_a_given_range() -> None:
    x = np.array([0.0, 0.5, 1.0, 3.0, 7.0])
    q = quantize_uniform(x, bits=3, symmetric=False)
    assert q.dequantize()[0] == 0.0
    clipped = quantize_uniform(np.array([-5.0, 0.0, 0.25, 5.0]), bits=4, value_range=(-1.0, 1.0))
    assert clipped.saturated == 2
    assert clipped.dequantize()[[0, 3]].tolist() == pytest.approx([-8 / 7, 1.0])


def test_per_channel_scales() -> None:
    x = np.array([[1.0, -0.5], [100.0, 20.0]])
    q = quantize_uniform(x, bits=8, axis=0)
    assert q.scale.ravel().tolist() == pytest.approx([1 / 127, 100 / 127])


@FAST
@given(x=float_arrays(), bits=st.integers(2, 6))
def test_log2_levels_are_clipped_rounded_exponents(x: np.ndarray, bits: int) -> None:
    q = quantize_log2(x, bits=bits)
    n_exponents = 2 ** (bits - 1) - 1
    top = int(np.rint(np.log2(np.abs(x).max())))
    rounded = np.rint(np.log2(np.abs(x)))
    exponents = np.clip(rounded, top - n_exponents + 1, top)
    assert np.array_equal(q.dequantize(), np.sign(x) * np.exp2(exponents))
    assert q.saturated == np.count_nonzero(rounded != exponents)
    assert q.codebook is not None and q.codebook.size == 2**bits - 1
    assert q.values.min() >= 0 and q.values.max() < 2**bits
    unclipped = rounded == exponents  # within half an octave of x
    assert np.all(np.abs(np.log2(np.abs(x)) - exponents)[unclipped] <= 0.5 + ROUND_OFF)


def test_log2_example_and_saturation() -> None:
    # bits = 3: 3 exponents ending at round(log2 2.9) = 2, i.e. levels 1, 2, 4 with a sign.
    q = quantize_log2(np.array([0.0, 1.0, -0.3, 2.9, 0.01]), bits=3)
    assert q.dequantize().tolist() == [0.0, 1.0, -1.0, 4.0, 1.0]
    assert q.saturated == 2  # -0.3 and 0.01 round below 2^0 and are clipped up to it
    assert quantize_log2(np.array([0.3]), bits=3, max_exponent=0).dequantize().tolist() == [0.25]


def test_binary_is_xnor_net_bwn() -> None:
    w = np.array([[1.0, -3.0, 0.0, 2.0], [-1.0, -1.0, 1.0, 1.0]])
    q = quantize_binary(w)
    assert q.values.tolist() == [[1, -1, 1, 1], [-1, -1, 1, 1]]
    assert q.scale.ravel().tolist() == [1.5, 1.0]
    assert q.bits == 1
    assert quantize_binary(w, axis=None).scale.item() == pytest.approx(10 / 8)


def test_ternary_is_twn() -> None:
    w = np.array([0.1, -0.2, 1.0, -2.0, 0.05, 3.0])
    q = quantize_ternary(w)
    delta = 0.7 * np.abs(w).mean()
    kept = np.abs(w) > delta
    assert q.values.tolist() == (np.sign(w) * kept).astype(int).tolist()
    assert q.scale.item() == pytest.approx(np.abs(w[kept]).mean())
    assert set(np.unique(q.values)) <= {-1, 0, 1}


@FAST
@given(float_arrays())
def test_ternary_kept_is_where_the_twn_codes_are_non_zero(w) -> None:
    assert ternary_kept(w).tolist() == (quantize_ternary(w).values != 0).tolist()
    assert ternary_kept(w.T).tolist() == (quantize_ternary(w.T).values != 0).tolist()  # a transposed view too


def test_ttq_has_two_scales_and_a_max_based_threshold() -> None:
    w = np.array([0.01, -0.02, 1.0, -2.0, 3.0, 0.1])
    q = quantize_ttq(w)  # delta = 0.05 * 3 = 0.15
    assert q.values.tolist() == [1, 1, 2, 0, 2, 1]
    assert q.codebook is not None and q.codebook.tolist() == [-2.0, 0.0, 2.0]
    learned = quantize_ttq(w, positive_scale=0.7, negative_scale=0.4)
    assert learned.dequantize().tolist() == [0.0, 0.0, 0.7, -0.4, 0.7, 0.0]


@FAST
@given(x=float_arrays(), k=st.sampled_from([2, 4, 16, 32]), reserve_zero=st.booleans())
def test_kmeans_codebook_size_and_code_range(x: np.ndarray, k: int, reserve_zero: bool) -> None:
    x = np.where(np.abs(x) < np.median(np.abs(x)), 0.0, x)  # half pruned
    q = quantize_kmeans(x, n_clusters=k, reserve_zero=reserve_zero)
    assert q.codebook is not None and q.codebook.size == k
    assert q.values.min() >= 0 and q.values.max() < k
    assert q.bits == int(np.ceil(np.log2(k)))
    if reserve_zero:
        assert np.array_equal(q.dequantize() == 0, x == 0)
    assert np.array_equal(q.values, quantize_kmeans(x, n_clusters=k, reserve_zero=reserve_zero).values)


def test_kmeans_finds_obvious_clusters_with_linear_init() -> None:
    rng = np.random.default_rng(0)
    centres = np.array([-1.0, 0.5, 2.0])
    x = np.repeat(centres, 100) + rng.normal(0, 0.01, 300)
    q = quantize_kmeans(x, n_clusters=3, reserve_zero=False)
    assert q.codebook is not None and np.allclose(np.sort(q.codebook), centres, atol=0.01)
    assert np.abs(x - q.dequantize()).max() < 0.05


def test_deep_compression_rate() -> None:
    # n b / (n log2 k + k b): 1000 weights of 32 bits over 16 centroids
    assert weight_sharing_compression_rate(1000, 16, 32) == pytest.approx(32000 / (4000 + 512))


@FAST
@given(x=float_arrays(), bits=st.sampled_from([8, 16]))
def test_dynamic_fixed_point_error_and_range(x: np.ndarray, bits: int) -> None:
    q = quantize_dynamic_fixed_point(x, bits=bits)
    step = float(q.scale)
    low, high = -(2 ** (bits - 1)) * step, (2 ** (bits - 1) - 1) * step
    inside = (x >= low) & (x <= high)
    assert np.all(np.abs(x - q.dequantize())[inside] <= step / 2 + ROUND_OFF)
    assert q.saturated == np.count_nonzero(np.rint(x / step) > 2 ** (bits - 1) - 1) + np.count_nonzero(
        np.rint(x / step) < -(2 ** (bits - 1))
    )


def test_fixed_point_formula_and_saturation_count() -> None:
    q = quantize_fixed_point(np.array([0.3, -0.3, 1.99, -5.0, 0.126]), bits=4, fraction_bits=2)
    # round(x * 4) clipped to [-8, 7], / 4
    assert q.values.tolist() == [1, -1, 7, -8, 1]
    assert q.dequantize().tolist() == [0.25, -0.25, 1.75, -2.0, 0.25]
    assert q.saturated == 2


def test_max_rule_integer_length() -> None:
    assert max_rule_integer_length(np.array([0.9, -0.2])) == 1  # ceil(log2 0.9) + 1
    assert max_rule_integer_length(np.array([3.0])) == 3
    assert max_rule_integer_length(np.zeros(4)) == 1
    q = quantize_dynamic_fixed_point(np.array([1.0, -1.0]), bits=8)  # an exact power of two saturates by 1 LSB
    assert q.saturated == 1 and q.values.tolist() == [127, -128]


def test_overflow_rate_rule_moves_the_point() -> None:
    x = np.linspace(-3.5, 3.5, 10001)
    assert overflow_rate(x, bits=8, integer_length=2) > 0.4
    assert update_integer_length(x, bits=8, integer_length=2) == 3  # too many overflows: grow
    assert update_integer_length(x, bits=8, integer_length=3) == 3  # one bit less would overflow: keep
    assert update_integer_length(x, bits=8, integer_length=5) == 4  # room to spare: shrink


def test_leading_bit_positions_match_the_dlu_statistic() -> None:
    levels = np.array([0, -1, 1, 2, 3, 4, -2, -3, -5, 127, -128])
    assert leading_bit_positions(levels).tolist() == [-1, -1, 0, 1, 1, 2, 0, 1, 2, 6, 6]
    histogram = np.bincount(leading_bit_positions(levels) + 1, minlength=8)
    assert histogram.sum() == levels.size


def test_quantizers_are_deterministic() -> None:
    x = np.random.default_rng(1).standard_normal((5, 7))
    for quantize in (
        lambda: quantize_uniform(x, bits=4),
        lambda: quantize_log2(x, bits=4),
        lambda: quantize_kmeans(x, n_clusters=8),
        lambda: quantize_ternary(x),
        lambda: quantize_fixed_point(x, bits=8, fraction_bits=4, rounding="stochastic", seed=3),
    ):
        assert np.array_equal(quantize().values, quantize().values)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: quantize_uniform(np.ones(3), bits=1), "bits must be >= 2"),
        (lambda: quantize_uniform(np.ones(3), bits=64), "bits must be >= 2 and <= 32"),
        (lambda: quantize_uniform(np.array([1.0, np.nan]), bits=8), "x must contain only finite values"),
        (lambda: quantize_uniform(np.ones(3), bits=8, rounding="up"), "rounding must be one of"),  # type: ignore[arg-type]
        (lambda: quantize_uniform(np.ones(3), bits=8, rounding="stochastic"), "seed is required"),
        (lambda: quantize_uniform(np.ones(3), bits=8, value_range=(1.0, -1.0)), "value_range must be"),
        (lambda: quantize_uniform(np.ones((2, 2)), bits=8, axis=2), "axis must be"),
        (lambda: quantize_uniform(np.ones(0), bits=8), "x must not be empty"),
        (lambda: quantize_log2(np.ones(3), bits=1), "bits must be >= 2"),
        (lambda: quantize_binary(np.array([np.inf]), axis=None), "weights must contain only finite"),
        (lambda: quantize_ternary(np.ones(3), threshold_factor=-1), "threshold_factor must be"),
        (lambda: quantize_ttq(np.ones(3), positive_scale=-2.0), "positive_scale must be"),
        (lambda: quantize_kmeans(np.ones(3), n_clusters=1), "n_clusters must be >= 2"),
        (lambda: quantize_kmeans(np.ones(3), n_clusters=4, max_iterations=0), "max_iterations must be >= 1"),
        (lambda: quantize_fixed_point(np.ones(3), bits=8, fraction_bits=5000), "fraction_bits must be"),
        (lambda: update_integer_length(np.ones(3), bits=8, integer_length=1, max_overflow_rate=2), "max_overflow_rate"),
        (lambda: leading_bit_positions(np.array([0.5])), "levels must be an integer array"),
        (lambda: weight_sharing_compression_rate(0, 16, 32), "n_weights must be >= 1"),
    ],
)
def test_bad_inputs_raise_value_error_naming_the_parameter(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("reserve_zero", [True, False])
def test_kmeans_of_float32_weights_equals_kmeans_of_them_widened(reserve_zero):
    # float32 weights are sorted before widening (faster): the codes and codebook of the widened weights.
    rng = np.random.default_rng(5)
    weights = np.where(rng.random((300, 70)) < 0.3, rng.standard_normal((300, 70)), 0).astype(np.float32)
    weights[0, :4] = [-0.0, 1.5, 1.5, -1.5]   # a negative zero and ties
    narrow = quantize_kmeans(weights, n_clusters=16, reserve_zero=reserve_zero)
    wide = quantize_kmeans(weights.astype(np.float64), n_clusters=16, reserve_zero=reserve_zero)
    np.testing.assert_array_equal(narrow.values, wide.values)
    np.testing.assert_array_equal(narrow.codebook, wide.codebook)

