"""The numpy layers: gradients against finite differences, im2col / col2im adjoint, pooling, batch norm."""
import numpy as np
import pytest

from accel_sim.systems.nn.lowbit.im2col import col2im, im2col
from accel_sim.systems.nn.lowbit.layers import BatchNorm, GemmLayer, MaxPool2, Quantizers, power_of_two
from accel_sim.systems.nn.lowbit.quantizer import GradientQuantizer, InputQuantizer, WeightQuantizer
from accel_sim.systems.nn.lowbit.xnor_net import XnorInputs


def _float_layer(fan_in, outputs, kernel=None, inputs=None):
    rng = np.random.default_rng(0)
    layer = GemmLayer(fan_in, outputs, Quantizers(WeightQuantizer(), inputs or InputQuantizer(), GradientQuantizer()),
                      rng, kernel=kernel, padding=1 if kernel else 0, bias=True)
    layer.weights = layer.weights.astype(np.float64)
    layer.bias = layer.bias.astype(np.float64) + 0.1
    return layer


def test_im2col_matches_a_direct_convolution_and_col2im_is_its_adjoint():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 5, 5, 3))
    w = rng.standard_normal((3, 3, 3, 4))                      # kernel row, kernel col, channel, filter
    y = (im2col(x, 3, 1) @ w.reshape(27, 4)).reshape(2, 5, 5, 4)
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    direct = np.einsum("nijc,ijcf->nf", padded[:, 1:4, 2:5, :], w)   # output position (1, 2)
    assert np.allclose(y[:, 1, 2, :], direct)
    cols = rng.standard_normal((50, 27))
    assert np.isclose(np.sum(im2col(x, 3, 1) * cols), np.sum(x * col2im(cols, x.shape, 3, 1)))   # <Ax, c> = <x, A^T c>


@pytest.mark.parametrize("kernel", [None, 3])
def test_gemm_layer_gradients_match_finite_differences(kernel):
    rng = np.random.default_rng(2)
    layer = _float_layer(27 if kernel else 6, 4, kernel)
    x = rng.standard_normal((2, 4, 4, 3) if kernel else (3, 6))
    upstream = rng.standard_normal(layer.forward(x).shape)
    layer.forward(x)
    grad_x = layer.backward(upstream)
    grad_w = layer.gradients()[0]
    eps = 1e-6
    for index in [(0, 0), (5, 2)] if not kernel else [(0, 0), (20, 3)]:
        layer.weights[index] += eps
        plus = np.sum(layer.forward(x, train=False) * upstream)
        layer.weights[index] -= 2 * eps
        minus = np.sum(layer.forward(x, train=False) * upstream)
        layer.weights[index] += eps
        assert grad_w[index] == pytest.approx((plus - minus) / (2 * eps), rel=1e-5)
    index = (1, 2, 1, 0) if kernel else (1, 4)
    x[index] += eps
    plus = np.sum(layer.forward(x, train=False) * upstream)
    x[index] -= 2 * eps
    minus = np.sum(layer.forward(x, train=False) * upstream)
    assert grad_x[index] == pytest.approx((plus - minus) / (2 * eps), rel=1e-5)


def test_xnor_input_scale_multiplies_each_receptive_field_row():
    layer = _float_layer(4, 2, inputs=XnorInputs())
    x = np.array([[1.0, -2.0, 3.0, -4.0]])
    y = layer.forward(x)
    assert np.allclose(y, (np.sign(x) * 2.5) @ layer.weights + layer.bias)   # beta = mean |x| = 2.5


def test_batch_norm_gradient_and_running_statistics():
    rng = np.random.default_rng(3)
    bn = BatchNorm(3)
    bn.gamma = np.array([1.5, 0.5, 2.0])
    x = rng.standard_normal((8, 3)) * 3 + 1
    upstream = rng.standard_normal((8, 3))
    y = bn.forward(x)
    assert np.allclose(y.mean(axis=0), bn.beta, atol=1e-5)
    grad = bn.backward(upstream)

    def loss(z):
        probe = BatchNorm(3)
        probe.gamma = bn.gamma
        return np.sum(probe.forward(z).astype(np.float64) * upstream)

    eps = 1e-3
    x2 = x.copy()
    x2[2, 1] += eps
    plus = loss(x2)
    x2[2, 1] -= 2 * eps
    assert grad[2, 1] == pytest.approx((plus - loss(x2)) / (2 * eps), rel=2e-2)
    assert np.allclose(bn.running_mean, 0.1 * x.mean(axis=0), rtol=1e-5)


def test_shift_based_batch_norm_scales_by_powers_of_two():
    assert power_of_two(np.array([0.3, -3.0, 1.0])).tolist() == [0.25, -4.0, 1.0]
    bn = BatchNorm(1, shift_based=True)
    x = np.array([[0.0], [3.0]], dtype=np.float32)                       # var 2.25: 1/std = 0.667 -> 0.5
    assert bn.forward(x)[:, 0].tolist() == [-0.75, 0.75]


def test_max_pool_forward_and_gradient_to_the_first_maximum():
    x = np.array([1, 5, 2, 5, 0, 0, 3, 3, 7, 1, 1, 1, 2, 2, 2, 9], dtype=float).reshape(1, 4, 4, 1)
    pool = MaxPool2()
    y = pool.forward(x)
    assert y[0, :, :, 0].tolist() == [[5, 5], [7, 9]]
    g = pool.backward(np.ones_like(y))[0, :, :, 0]
    assert g.sum() == 4 and g[0, 1] == 1 and g[0, 3] == 1                # ties: the first maximum


@pytest.mark.parametrize("channels", [1, 3, 16])   # both copy strategies of im2col (few / many channels)
def test_im2col_is_the_receptive_field_of_every_output_position(channels):
    x = np.random.default_rng(3).standard_normal((2, 5, 4, channels)).astype(np.float32)
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    cols = im2col(x, 3, 1)
    expected = np.stack([padded[n, i:i + 3, j:j + 3, :].ravel() for n in range(2) for i in range(5) for j in range(4)])
    assert cols.dtype == x.dtype and cols.tobytes() == expected.tobytes()
