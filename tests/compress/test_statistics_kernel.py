"""The compiled one-pass statistics (numba) give the numpy passes' levels, histograms and narrowed values bit for
bit: rounding ties, negative zeros, saturation at both ends, stochastic draws, float32 and float64 tensors."""
import math

import numpy as np
import pytest

from accel_sim.foundations.compress.quantization import statistics_kernel as kernel

pytest.importorskip("numba")


def _tensors():
    rng = np.random.default_rng(3)
    for trial in range(48):
        dtype = np.float32 if trial % 2 else np.float64
        x = (rng.standard_normal((13, 9)) * 10.0 ** rng.integers(-6, 12)).astype(dtype)
        x.flat[:6] = [0.5, -0.5, 1.5, -2.5, -0.0, 0.0]
        yield (x.T if trial % 3 == 0 else x, int(rng.integers(-16, 40)), int(rng.choice([2, 8, 16, 32, 53])),
               rng.random(x.shape, dtype=np.float32) if trial % 4 >= 2 else None, bool(trial % 5 % 2))


@pytest.mark.parametrize("case", list(_tensors()))
def test_compiled_statistics_equal_numpy(case):
    x, f, accumulator, noise, split = case
    noise = None if noise is None else (noise.T if noise.shape != x.shape else noise)
    levels, histogram = kernel.observed_levels(x, f, accumulator, noise, split)
    expected = kernel.levels_from_noise(x, f, accumulator, noise)
    assert levels.shape == expected.shape and levels.tobytes() == expected.tobytes()
    np.testing.assert_array_equal(histogram, kernel.histogram_numpy(expected.ravel(), accumulator, split))
    bits = max(2, min(accumulator, 8))
    values, saturated = kernel.narrowed_values(levels, bits, f)
    narrowed = np.clip(expected, -2.0 ** (bits - 1), 2.0 ** (bits - 1) - 1)
    assert values.tobytes() == (narrowed * math.ldexp(1.0, -f)).astype(np.float32).tobytes()
    assert saturated == np.count_nonzero(narrowed != expected)


def test_nan_falls_back_to_numpy():
    x = np.array([np.nan, 1.0, -3.0])
    levels, histogram = kernel.observed_levels(x, 2, 16)
    expected = kernel.levels_from_noise(x, 2, 16, None)
    assert levels.tobytes() == expected.tobytes()
    np.testing.assert_array_equal(histogram, kernel.histogram_numpy(expected, 16))


@pytest.mark.parametrize("case", list(_tensors()))
def test_observed_and_narrowed_in_one_pass_equal_numpy(case):
    # The training loop's one pass (levels narrowed as they are made, the top bucket from the counts) gives
    # the numpy passes' histogram, narrowed values, saturated count and max-rule top bucket.
    x, f, accumulator, noise, split = case
    noise = None if noise is None else (noise.T if noise.shape != x.shape else noise)
    bits = max(2, min(accumulator // 2, 16))
    histogram, top, values, saturated = kernel.observed_narrowed(x, f, accumulator, bits, noise, split)
    levels = kernel.levels_from_noise(x, f, accumulator, noise)
    np.testing.assert_array_equal(histogram, kernel.histogram_numpy(levels.ravel(), accumulator, split))
    counts = kernel.histogram_numpy(levels.ravel(), accumulator, False)
    assert top == int(np.flatnonzero(counts)[-1])
    narrowed = np.clip(levels, -2.0 ** (bits - 1), 2.0 ** (bits - 1) - 1)
    assert values.shape == levels.shape
    assert values.tobytes() == (narrowed * math.ldexp(1.0, -f)).astype(np.float32).tobytes()
    assert saturated == np.count_nonzero(narrowed != levels)


def test_observed_and_narrowed_nan_and_empty_fall_back_to_numpy():
    x = np.array([np.nan, 1.0, -3.0])
    histogram, top, values, _ = kernel.observed_narrowed(x, 2, 16, 8)
    levels = kernel.levels_from_noise(x, 2, 16, None)
    np.testing.assert_array_equal(histogram, kernel.histogram_numpy(levels, 16))
    assert values.tobytes() == kernel.narrowed_values(levels, 8, 2)[0].tobytes()
    assert kernel.observed_narrowed(np.zeros(0, dtype=np.float32), 2, 16, 8)[1] == -1


@pytest.mark.parametrize("case", [c for c in _tensors() if c[3] is not None][:8])
def test_draws_made_from_raw_halves_equal_numpy(case):
    # Stochastic rounding with the draws given as the uint32 halves they are made of (the loop makes each draw
    # as it reads it) gives what the numpy passes give with numpy's float32 draws of those halves.
    x, f, accumulator, _, split = case
    halves = np.random.default_rng(f + 100).bit_generator.random_raw((x.size + 1) // 2).view(np.uint32)[:x.size]
    draws = kernel.draws_of_halves(halves).reshape(x.shape)
    assert draws.dtype == np.float32 and ((draws >= 0) & (draws < 1)).all()
    levels = kernel.levels_from_noise(x, f, accumulator, draws)
    got_levels, histogram = kernel.observed_levels(x, f, accumulator, None, split, halves)
    assert got_levels.tobytes() == levels.tobytes()
    np.testing.assert_array_equal(histogram, kernel.histogram_numpy(levels.ravel(), accumulator, split))
    bits = max(2, min(accumulator // 2, 16))
    histogram, top, values, saturated = kernel.observed_narrowed(x, f, accumulator, bits, None, split, halves)
    np.testing.assert_array_equal(histogram, kernel.histogram_numpy(levels.ravel(), accumulator, split))
    assert top == int(np.flatnonzero(kernel.histogram_numpy(levels.ravel(), accumulator))[-1])
    expected_values, expected_saturated = kernel.narrowed_values(levels, bits, f)
    assert (values.tobytes(), saturated) == (expected_values.tobytes(), expected_saturated)


def test_raw_halves_without_numba_take_the_numpy_passes(monkeypatch):
    x = np.linspace(-3.0, 3.0, 12, dtype=np.float32)
    halves = np.random.default_rng(1).bit_generator.random_raw(6).view(np.uint32)
    compiled = kernel.observed_narrowed(x, 4, 16, 8, None, True, halves)
    monkeypatch.setattr(kernel, "_compiled", lambda: None)
    numpy = kernel.observed_narrowed(x, 4, 16, 8, None, True, halves)
    np.testing.assert_array_equal(compiled[0], numpy[0])
    assert (compiled[1], compiled[2].tobytes(), compiled[3]) == (numpy[1], numpy[2].tobytes(), numpy[3])
