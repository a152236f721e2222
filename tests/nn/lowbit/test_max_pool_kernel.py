"""The compiled max-pooling loops (numba) give the numpy lines' outputs, choices and gradients bit for bit: ties
(the first maximum), signed zeros, NaN (argmax's first NaN), float32 and float64."""
import numpy as np
import pytest

from accel_sim.systems.nn.lowbit import max_pool_kernel
from accel_sim.systems.nn.lowbit.layers import MaxPool2

pytest.importorskip("numba")


@pytest.mark.parametrize("trial", range(12))
def test_compiled_pooling_equals_numpy(trial, monkeypatch):
    rng = np.random.default_rng(trial)
    dtype = np.float32 if trial % 2 else np.float64
    x = (rng.integers(-3, 3, (3, 8, 4, 5)) * rng.choice([1.0, -0.0, 0.5])).astype(dtype)
    if trial % 3 == 0:
        x.flat[rng.integers(0, x.size, 6)] = np.nan
    grad = rng.standard_normal((3, 4, 2, 5)).astype(dtype)
    grad.flat[:3] = [-0.0, np.nan, 0.0]
    compiled = MaxPool2()
    y, gx = compiled.forward(x), compiled.backward(grad)
    monkeypatch.setattr(max_pool_kernel, "compiled", lambda: None)
    plain = MaxPool2()
    y0, gx0 = plain.forward(x), plain.backward(grad)
    assert y.dtype == y0.dtype and y.tobytes() == y0.tobytes() and gx.tobytes() == gx0.tobytes()
    np.testing.assert_array_equal(compiled._cache[1], plain._cache[1])
