"""The low-bit methods' lean quantizer forms give the compress quantizers' values bit for bit (float32 and
float64, values at and around each threshold, signed zeros), and their errors on non-finite input; each test runs
with the compiled loops (numba) and with the numpy lines."""
import numpy as np
import pytest

from accel_sim.foundations.compress.quantization.binary_ternary import quantize_binary, quantize_ttq
from accel_sim.foundations.compress.quantization.uniform import quantize_uniform
from accel_sim.systems.nn.lowbit import quantizer_kernels
from accel_sim.systems.nn.lowbit.binary_connect import BinaryConnectWeights
from accel_sim.systems.nn.lowbit.dorefa import UNIT_RANGE, quantize_k
from accel_sim.systems.nn.lowbit.ttq import TrainedTernaryWeights
from accel_sim.systems.nn.lowbit.xnor_net import XnorWeights


@pytest.fixture(autouse=True, params=["compiled", "numpy"])
def _paths(request, monkeypatch):
    if request.param == "numpy":
        monkeypatch.setattr(quantizer_kernels, "compiled", lambda: None)
    elif quantizer_kernels.compiled() is None:
        pytest.skip("numba is not installed")


def _samples(dtype, seed):
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((40, 24)) * 10.0 ** rng.integers(-3, 2)).astype(dtype)
    w.flat[:6] = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5]
    return w


def _same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(6))
def test_binary_and_xnor_weights_equal_quantize_binary(dtype, seed):
    w = _samples(dtype, seed)
    assert _same(BinaryConnectWeights().forward(w), quantize_binary(w, axis=None).values.astype(dtype))
    assert _same(XnorWeights().forward(w), quantize_binary(w, axis=1).dequantize().astype(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(6))
def test_ttq_forward_equals_quantize_ttq_and_keeps_its_signs(dtype, seed):
    w = _samples(dtype, seed)
    largest = float(np.max(np.abs(w.astype(np.float64))))
    w.flat[6:10] = [0.05 * largest, -0.05 * largest, np.nextafter(dtype(0.05 * largest), dtype(1)), 0.0]
    q = TrainedTernaryWeights()
    q.after_update(w)
    for scales in (q.scales, np.array([0.0, 0.3], dtype=np.float32)):
        q.scales = scales
        expected = quantize_ttq(w, positive_scale=float(scales[0]), negative_scale=float(scales[1]))
        assert _same(q.forward(w), expected.dequantize().astype(dtype))
        positive, negative = q._signs
        assert np.array_equal(positive, expected.values == 2) and np.array_equal(negative, expected.values == 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bits", [1, 2, 4, 6])
def test_quantize_k_equals_quantize_uniform(dtype, bits):
    rng = np.random.default_rng(bits)
    r = rng.uniform(-0.1, 1.1, (30, 17)).astype(dtype)
    top = (1 << bits) - 1
    r.flat[:8] = [0.0, -0.0, -0.2 / top, 1.0, (0.5 + np.arange(1)[0]) / top, 1.5 / top, 1e-9, -1e-9]
    expected = quantize_uniform(r, bits=bits, symmetric=False, value_range=UNIT_RANGE).dequantize().astype(dtype)
    assert _same(quantize_k(r, bits), expected)


def test_lean_forms_keep_the_finiteness_error():
    w = _samples(np.float32, 0)
    w[3, 3] = np.nan
    for forward in (BinaryConnectWeights().forward, XnorWeights().forward, lambda x: quantize_k(x, 2)):
        with pytest.raises(ValueError, match="finite"):
            forward(w)
    q = TrainedTernaryWeights()
    q.scales = np.array([0.1, 0.1], dtype=np.float32)
    with pytest.raises(ValueError, match="finite"):
        q.forward(w)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("base", ["2", "sqrt2"])
@pytest.mark.parametrize("seed", range(4))
def test_log_forms_equal_quantize_log2(dtype, base, seed):
    from accel_sim.foundations.compress.quantization.uniform import quantize_log2
    from accel_sim.systems.nn.lowbit.log_quant import LogActivations, LogWeights
    w = _samples(dtype, seed)
    w.flat[10:14] = [2.0 ** -30, -(2.0 ** -30), 3e3, 2.0 ** 0.5]
    step = 1 if base == "sqrt2" else 0
    for bits in (2, 4, 5):
        expected = quantize_log2(w, bits=bits, exponent_fraction_bits=step, underflow="zero").dequantize()
        assert _same(LogWeights(bits, base).forward(w), expected.astype(dtype))
        x = np.abs(w)
        expected = quantize_log2(x, bits=bits, exponent_fraction_bits=step, signed=False, underflow="zero",
                                 max_exponent=1 << step).dequantize()
        assert _same(LogActivations(bits, base).forward(x), expected.astype(dtype))
    with pytest.raises(ValueError, match="non-negative"):
        LogActivations(3, base).forward(w)
