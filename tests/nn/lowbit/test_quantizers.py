"""Each method's quantizer: forward values and the straight-through backward of the papers."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.foundations.compress.quantization.power_of_two import inq_max_exponent, quantize_power_of_two
from accel_sim.foundations.compress.quantization.uniform import quantize_log2
from accel_sim.systems.nn.lowbit.binary_connect import BinaryConnectWeights
from accel_sim.systems.nn.lowbit.bnn import SignActivations
from accel_sim.systems.nn.lowbit.dorefa import DorefaActivations, DorefaGradients, DorefaWeights
from accel_sim.systems.nn.lowbit.inq import IncrementalPowerOfTwoWeights, partition_problem
from accel_sim.systems.nn.lowbit.log_quant import LogActivations, LogWeights, log_domain_matmul
from accel_sim.systems.nn.lowbit.ttq import TrainedTernaryWeights
from accel_sim.systems.nn.lowbit.twn import TernaryWeights
from accel_sim.systems.nn.lowbit.xnor_net import XnorInputs, XnorWeights

W = np.array([[0.5, -0.2], [-0.05, 0.9], [0.0, -1.4]], dtype=np.float32)


def test_binaryconnect_deterministic_and_clip():
    q = BinaryConnectWeights()
    assert q.forward(W).tolist() == [[1, -1], [-1, 1], [1, -1]]            # sign(0) = +1
    assert np.array_equal(q.backward(W), W)                                  # straight through
    assert q.after_update(W).max() <= 1 and q.after_update(W).min() == -1   # clipped to [-1, 1]


def test_binaryconnect_stochastic_is_seeded_and_unbiased():
    w = np.full((200, 200), 0.4, dtype=np.float32)
    a = BinaryConnectWeights(True, np.random.default_rng(1)).forward(w)
    b = BinaryConnectWeights(True, np.random.default_rng(1)).forward(w)
    assert np.array_equal(a, b) and set(np.unique(a)) == {-1.0, 1.0}
    assert a.mean() == pytest.approx(0.4, abs=0.02)                          # E[w_b] = 2 p - 1 = w
    assert np.array_equal(BinaryConnectWeights(True, np.random.default_rng(1)).forward(w, train=False), w)


def test_bnn_sign_activations():
    assert SignActivations().forward(np.array([-0.3, 0.0, 2.0])).tolist() == [-1, 1, 1]


def test_xnor_alpha_per_filter_beta_per_row_and_gradient():
    q = XnorWeights()
    wq = q.forward(W)
    alpha = np.abs(W).mean(axis=0)
    assert np.allclose(wq, np.where(W >= 0, 1, -1) * alpha)
    grad = np.ones_like(W)
    expected = 1 / 3 + alpha * (np.abs(W) <= 1)                              # Eq. 7: 1/n + alpha 1_{|W|<=1}
    assert np.allclose(q.backward(grad), expected)
    x = np.array([[1.0, -3.0], [0.5, 0.5]])
    assert XnorInputs().row_scale(np.abs(x)).tolist() == [2.0, 0.5]


def test_twn_threshold_and_scale():
    wq = TernaryWeights().forward(W)
    delta = 0.7 * np.abs(W).mean()
    kept = np.abs(W) > delta
    assert np.allclose(wq, np.sign(W) * kept * np.abs(W[kept]).mean())


def test_ttq_learned_scales_and_gradients():
    q = TrainedTernaryWeights()
    q.after_update(W)
    q.set_parameters([np.array([2.0, 3.0])])
    wq = q.forward(W)
    assert sorted(set(wq.ravel().tolist())) == [-3.0, 0.0, 2.0]                # 0.05 max|W| = 0.07: -0.05, 0 -> 0
    grad = np.arange(6, dtype=np.float32).reshape(3, 2)
    g = q.backward(grad)
    positive, negative = wq > 0, wq < 0
    assert q.parameter_gradients()[0].tolist() == [grad[positive].sum(), -grad[negative].sum()]
    assert np.allclose(g, np.where(positive, 2 * grad, np.where(negative, 3 * grad, grad)))
    q.set_parameters([np.array([-1.0, 0.5])])
    assert q.scales.tolist() == [0.0, 0.5]                                   # kept >= 0


def test_dorefa_k_bit_weights_activations_gradients():
    wq = DorefaWeights(2).forward(W)
    assert len(np.unique(wq)) <= 4 and np.abs(wq).max() == 1.0               # 2 quantize_2(.) - 1 in {-1, -1/3, 1/3, 1}
    assert np.allclose(np.sort(np.unique(wq)), np.unique(np.round((np.sort(np.unique(wq)) + 1) * 1.5) / 1.5 - 1))
    assert np.allclose(DorefaWeights(1).forward(W), np.where(W >= 0, 1, -1) * np.abs(W).mean())
    assert np.array_equal(DorefaWeights(32).forward(W), W)
    x = np.array([0.0, 0.1, 0.5, 0.74, 1.0], dtype=np.float32)
    assert np.allclose(DorefaActivations(2).forward(x), np.round(x * 3) / 3)
    grad = np.random.default_rng(0).standard_normal((4, 50)).astype(np.float32)
    gq = DorefaGradients(4, np.random.default_rng(3)).forward(grad)
    m = np.abs(grad).max(axis=1, keepdims=True)
    levels = (gq / (2 * m) + 0.5) * 15                                       # on the 4-bit grid of [-m, m]
    assert np.allclose(levels, np.round(levels), atol=1e-4)
    assert np.array_equal(gq, DorefaGradients(4, np.random.default_rng(3)).forward(grad))


def test_inq_power_of_two_rule_and_freezing():
    w = np.array([0.0, 0.9, -0.5, 0.3, 0.02, 0.014, 0.01, 0.003, -1.0])
    assert inq_max_exponent(w) == 0                                          # floor(log2(4/3))
    q = quantize_power_of_two(w, bits=5).dequantize()                         # exponents -7 .. 0
    assert q.tolist() == [0, 1, -0.5, 0.25, 2 ** -6, 2 ** -6, 2 ** -7, 0, -1]
    layer = IncrementalPowerOfTwoWeights(5)
    w32 = np.array([[0.9, 0.1], [-0.3, 0.02]], dtype=np.float32)
    out = layer.quantize_fraction(w32, 0.5)
    assert layer.frozen.tolist() == [[True, False], [True, False]]
    assert np.allclose(out, [[1.0, 0.1], [-0.25, 0.02]])
    assert layer.backward(np.ones((2, 2))).tolist() == [[0, 1], [0, 1]]      # frozen weights get no gradient
    assert layer.after_update(out + 1)[0, 0] == 1.0                          # and keep their power of two


@pytest.mark.parametrize("partition, fragment", [
    ((0.5, 0.75, 0.875), "must sum to 1"),
    ((0.5, 0.4, 1.0), "strictly increasing"),
    ((0.0, 1.0), "in (0, 1]"),
    ((), "at least one"),
])
def test_inq_partition_problems(partition, fragment):
    assert fragment in partition_problem(partition)
    assert partition_problem((0.5, 0.75, 0.875, 1.0)) is None


@pytest.mark.parametrize("base, bits", [("2", 0), ("sqrt2", 1)])
def test_log_quantization_and_log_domain_matmul(base, bits):
    rng = np.random.default_rng(4)
    w = rng.standard_normal((30, 6)) * 0.3
    x = np.maximum(rng.standard_normal((5, 30)), 0)
    qw, qx = LogWeights(4, base).quantized(w), LogActivations(3, base).quantized(x)
    values = qx.dequantize()
    assert values.max() <= 2.0 and np.all(np.isin(values[values > 0], 2.0 ** (np.arange(-12, 3) / (1 << bits))))
    exact = log_domain_matmul(qx, qw, bits)
    if base == "2":
        assert np.array_equal(exact, values @ qw.dequantize())               # shift-add == float products, bit for bit
    else:
        assert np.allclose(exact, values @ qw.dequantize(), rtol=1e-12)


def test_log2_extension_keeps_the_old_default_and_flushes_underflow():
    x = np.array([0.0, 1.0, -0.3, 2.9, 0.01])
    assert quantize_log2(x, bits=3).dequantize().tolist() == [0.0, 1.0, -1.0, 4.0, 1.0]   # 3 exponents 1 .. 4: -0.3 clips up
    flushed = quantize_log2(np.array([0.3, 0.01, 1.0]), bits=3, signed=False, underflow="zero", max_exponent=1)
    assert flushed.dequantize().tolist() == [0.25, 0.0, 1.0]
    assert quantize_log2(np.array([0.7]), bits=4, exponent_fraction_bits=1).dequantize()[0] == pytest.approx(2 ** -0.5)
    with pytest.raises(ValueError, match="non-negative"):
        quantize_log2(np.array([-1.0]), bits=3, signed=False)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.integers(1, 40), st.integers(1, 6), st.integers(2, 6), st.integers(1, 4),
       st.sampled_from([0, 1]), st.integers(0, 2 ** 31 - 1))
def test_log_domain_matmul_is_the_product_of_the_quantized_operands(m, k, n, weight_bits, activation_bits, step_bits,
                                                                     seed):
    """Property: exponent addition + integer shift-add gives x_q @ w_q (exactly in base 2)."""
    rng = np.random.default_rng(seed)
    base = "sqrt2" if step_bits else "2"
    w = rng.standard_normal((k, n)) * rng.uniform(0.01, 3)
    x = np.maximum(rng.standard_normal((m, k)), 0) * rng.uniform(0.1, 3)
    qw, qx = LogWeights(weight_bits, base).quantized(w), LogActivations(activation_bits, base).quantized(x)
    exact = log_domain_matmul(qx, qw, step_bits)
    reference = qx.dequantize() @ qw.dequantize()
    if step_bits == 0:
        assert np.array_equal(exact, reference)
    else:   # sqrt 2 is irrational: equal up to float rounding of the magnitudes summed
        scale = np.abs(qx.dequantize()) @ np.abs(qw.dequantize())
        assert np.all(np.abs(exact - reference) <= 1e-12 * scale)


def test_power_of_two_saturates_above_a_given_max_exponent():
    q = quantize_power_of_two(np.array([5.0, -0.6, 0.001]), bits=3, max_exponent=0)   # exponents -1, 0
    assert q.dequantize().tolist() == [1.0, -0.5, 0.0] and q.saturated == 1


def test_dorefa_weight_gradient_is_the_chain_rule_of_the_tanh_normalisation():
    q = DorefaWeights(4)
    q.forward(W)
    t = np.tanh(W)
    assert np.allclose(q.backward(np.full_like(W, 2.0)), 2.0 * (1 - t * t) / np.abs(t).max())
    assert np.array_equal(DorefaWeights(1).backward(W), W)                  # k = 1: straight through


def test_stochastic_binaryconnect_starts_uniform_over_the_clip_range():
    he = np.full((400, 50), 0.01, dtype=np.float32)
    start = BinaryConnectWeights(True, np.random.default_rng(0)).initial(he, np.random.default_rng(1))
    assert start.min() >= -1 and start.max() <= 1 and np.abs(start).mean() == pytest.approx(0.5, abs=0.02)
    assert BinaryConnectWeights().initial(he, np.random.default_rng(1)) is he           # deterministic: He kept
