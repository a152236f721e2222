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
