"""The dynamic fixed-point unit's stochastic-rounding draws from the raw PCG64 outputs are numpy's float32 draws
bit for bit, through any mix of even and odd counts (an odd count leaves half an output buffered: numpy draws
until the count drawn is even again), and leave the generator where numpy would."""
import numpy as np

from accel_sim.systems.nn.dynamic_fixed_point import DynamicFixedPointUnit, UnitSettings


def test_raw_draws_equal_numpy_float32_draws():
    unit = DynamicFixedPointUnit(UnitSettings(8, rounding="stochastic"), seed=3)
    reference = np.random.default_rng(3)
    shapes = [(4, 6), (3,), (5, 2), (7,), (2, 2), (), (1,), (64, 30), (9,), (10,), (0,), (3, 3), (8,)]
    for shape in shapes:
        ours, theirs = unit._draws(shape), reference.random(shape, dtype=np.float32)
        assert np.shape(ours) == np.shape(theirs) and np.asarray(ours).tobytes() == np.asarray(theirs).tobytes()
    assert unit._raw_draws and not unit._half_buffered
    assert unit.rng.random(5, dtype=np.float32).tobytes() == reference.random(5, dtype=np.float32).tobytes()
