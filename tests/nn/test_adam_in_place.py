"""Adam's step with its temporaries written in place gives the allocating lines' updates and state bit for bit
(float32 and float64 parameters, 40 steps); float32 through the compiled loop (numba) and the numpy lines."""
import numpy as np
import pytest

from accel_sim.systems.nn import optim
from accel_sim.systems.nn.optim import Optimizer


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_in_place_adam_equals_the_plain_lines(dtype, compiled, monkeypatch):
    if compiled and optim._compiled() is None:
        pytest.skip("numba is not installed")
    if not compiled:
        monkeypatch.setattr(optim, "_compiled", lambda: None)
    rng = np.random.default_rng(7)
    shapes = [(6, 5), (5,), (2,), (3, 4)]
    params = [rng.standard_normal(s).astype(dtype) for s in shapes]
    steps = [[(rng.standard_normal(s) * 10.0 ** rng.integers(-6, 1)).astype(dtype) for s in shapes] for _ in range(40)]
    fast, plain = Optimizer(params, "adam", 0.01), Optimizer(params, "adam", 0.01)
    for grads in steps:
        ours = fast.updates(grads)
        with monkeypatch.context() as patch:
            patch.setattr(optim, "_in_place", lambda *arrays: False)
            theirs = plain.updates(grads)
        for a, b in zip(ours + fast.velocity + fast.second, theirs + plain.velocity + plain.second):
            assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()

