"""The low-bit quantizers' compiled loops (numba) give their numpy lines' results bit for bit: BinaryConnect's
deterministic and stochastic signs, BNN's sign activations, XNOR-Net's weights and gradient gate, TTQ's values,
signs, gradients and scale gradients, TWN's values, INQ's frozen weights, and log quantization on values around every rounding
boundary of the exponent (float32 and float64, signed zeros, NaN where the lines allow it)."""
import numpy as np
import pytest

from accel_sim.systems.nn.lowbit import quantizer_kernels
from accel_sim.systems.nn.lowbit.binary_connect import BinaryConnectWeights
from accel_sim.systems.nn.lowbit.bnn import binarize
from accel_sim.systems.nn.lowbit.inq import IncrementalPowerOfTwoWeights
from accel_sim.systems.nn.lowbit.log_quant import log_thresholds, log_values
from accel_sim.systems.nn.lowbit.ttq import TrainedTernaryWeights
from accel_sim.systems.nn.lowbit.twn import TernaryWeights
from accel_sim.systems.nn.lowbit.xnor_net import XnorWeights

pytest.importorskip("numba")


def _both(monkeypatch, run):
    """``run()`` with the compiled loops, then with the numpy lines."""
    ours = run()
    with monkeypatch.context() as patch:
        patch.setattr(quantizer_kernels, "compiled", lambda: None)
        theirs = run()
    return ours, theirs


def _same(ours, theirs):
    for a, b in zip(ours, theirs, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _weights(dtype, seed, shape=(30, 20)):
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 2)).astype(dtype)
    w.flat[:8] = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0]
    return w


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(4))
def test_sign_loops_equal_numpy(dtype, seed, monkeypatch):
    w = _weights(dtype, seed)
    x = w.copy()
    x.flat[9] = np.nan

    def run():
        stochastic = BinaryConnectWeights(stochastic=True, rng=np.random.default_rng(seed))
        return [BinaryConnectWeights().forward(w), stochastic.forward(w), stochastic.forward(x), binarize(x)]
    _same(*_both(monkeypatch, run))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(4))
def test_xnor_ttq_and_inq_loops_equal_numpy(dtype, seed, monkeypatch):
    w = _weights(dtype, seed)
    grad = _weights(dtype, seed + 10)

    def run():
        xnor, ttq = XnorWeights(), TrainedTernaryWeights()
        out = [xnor.forward(w), xnor.backward(grad), xnor.forward(w, train=False)]
        ttq.after_update(w)
        out += [ttq.forward(w), *ttq._signs, ttq.backward(grad), *ttq.parameter_gradients()]
        inq = IncrementalPowerOfTwoWeights(5)
        inq.quantize_fraction(w, 0.5)
        out += [inq.after_update(w * dtype(0.5))]
        return out + [TernaryWeights().forward(w), TernaryWeights().forward(np.zeros_like(w))]
    _same(*_both(monkeypatch, run))


@pytest.mark.parametrize("step_bits", [0, 1])
def test_log_loop_equals_numpy_around_every_rounding_boundary(step_bits, monkeypatch):
    """The exponent rounds at ``2**((k + 1/2) / 2**step_bits)``: float32 values within a few ulps of each boundary
    over the whole float32 range (subnormals included), both signs, and a sample of one binade's mantissas (all of
    them agree too: measured once, 3 s)."""
    boundaries = 2.0 ** ((np.arange(-150 << step_bits, 128 << step_bits) + 0.5) / (1 << step_bits))
    centre = boundaries.astype(np.float32)
    centre = centre[(centre > 0) & np.isfinite(centre)]
    near, up, down = [centre], centre, centre
    for _ in range(4):
        up, down = np.nextafter(up, np.float32(np.inf)), np.nextafter(down, np.float32(0))
        near += [up, down]
    # the compiled loop counts thresholds a mantissa exceeds: none may be a float32 (then no mantissa equals it)
    assert all(np.float32(t) != t for t in log_thresholds(step_bits))
    binade = (np.arange(0, 1 << 23, 61, dtype=np.uint32) | np.uint32(127 << 23)).view(np.float32)   # in [1, 2)
    x = np.concatenate(near + [binade, np.float32([0.0, -0.0, 1.0, 2.0 ** -149])])
    x = np.concatenate([x, -x]).astype(np.float32)
    with np.errstate(over="ignore"):    # the largest powers overflow float32 (to infinity) on both paths
        for bits, signed, top in ((4, True, None), (5, True, 3), (3, False, 1 << step_bits), (8, True, -100)):
            data = np.abs(x) if not signed else x
            _same(*_both(monkeypatch, lambda: [log_values(data, bits, step_bits, signed, top)]))
