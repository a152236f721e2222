"""The datapath's arithmetic (packed XNOR + popcount, zero-skipping shift-add, wrapping int-k)
equals a plain numpy product of the same integers, bit for bit, on generated operands and on
generated layers."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from accel_sim import load_arch
from accel_sim.models.lowbit.family import FAMILY
from accel_sim.models.lowbit.functional import (binary_gemm, input_codes, int_gemm, layer_accumulators, pack_signs,
                                         skip_zero_gemm, weight_codes)
from accel_sim.foundations.workload import ConvLayer, GemmLayer

shapes = st.tuples(st.integers(1, 6), st.integers(1, 140), st.integers(1, 7))


def wrapped(values, bits):
    return (values + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1)


@settings(derandomize=True, max_examples=40, deadline=None)
@given(data=st.data(), shape=shapes, word_bits=st.sampled_from([8, 16, 32, 64]))
def test_xnor_popcount_equals_the_sign_product(data, shape, word_bits):
    m, k, n = shape
    a = data.draw(hnp.arrays(np.int64, (m, k), elements=st.sampled_from([-1, 1])))
    w = data.draw(hnp.arrays(np.int64, (k, n), elements=st.sampled_from([-1, 1])))
    assert np.array_equal(binary_gemm(a, w, word_bits), a @ w)


def test_packing_puts_one_sign_per_bit():
    signs = np.array([[1, -1, 1, 1] + [-1] * 60 + [1]])
    words = pack_signs(signs, 64)
    assert words.shape == (1, 2) and int(words[0, 0]) == 0b1101 and int(words[0, 1]) == 1


@settings(derandomize=True, max_examples=40, deadline=None)
@given(data=st.data(), shape=shapes, max_shift=st.integers(0, 6))
def test_zero_skipping_shift_add_equals_the_product(data, shape, max_shift):
    m, k, n = shape
    x = data.draw(hnp.arrays(np.int64, (m, k), elements=st.integers(-128, 127)))
    sign = data.draw(hnp.arrays(np.int64, (k, n), elements=st.sampled_from([-1, 0, 1])))
    shift = data.draw(hnp.arrays(np.int64, (k, n), elements=st.integers(0, max_shift)))
    w = sign * (1 << shift)
    assert np.array_equal(skip_zero_gemm(x, w), x @ w)


@settings(derandomize=True, max_examples=30, deadline=None)
@given(data=st.data(), shape=shapes, bits=st.sampled_from([4, 8]), acc=st.sampled_from([12, 16, 32]))
def test_int_k_wraps_like_the_accumulator(data, shape, bits, acc):
    m, k, n = shape
    levels = st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    x = data.draw(hnp.arrays(np.int64, (m, k), elements=levels))
    w = data.draw(hnp.arrays(np.int64, (k, n), elements=levels))
    assert np.array_equal(int_gemm(x, w, acc), wrapped(x @ w, acc))


layers = st.one_of(
    st.builds(lambda m, k, n, d: GemmLayer("g", m=m, k=k, n=n, weight_density=d), st.integers(1, 6),
              st.integers(1, 130), st.integers(1, 12), st.sampled_from([1.0, 0.4])),
    st.builds(lambda h, c, k, r, g, p: ConvLayer("c", in_h=h, in_w=h, in_channels=c * g, out_channels=k * g,
                                                 kernel_h=r, kernel_w=r, groups=g, pad_top=p, pad_bottom=p,
                                                 pad_left=p, pad_right=p),
              st.integers(3, 6), st.integers(1, 3), st.integers(1, 4), st.integers(1, 3), st.integers(1, 2),
              st.integers(0, 1)),
)




@settings(derandomize=True, max_examples=30, deadline=None)
@given(layer=layers, precision=st.sampled_from(["binary", "ternary", "log2", "int8", "int4"]),
       word_bits=st.sampled_from([8, 64]))
def test_layer_outputs_are_bit_exact(layer, precision, word_bits):
    arch = load_arch("lowbit", {"lowbit.precision": precision, "lowbit.word_bits": word_bits})
    plan = FAMILY.plan(arch, layer)
    w, _ = weight_codes(layer, precision, arch.lowbit)
    x, _ = input_codes(layer, precision, arch.lowbit)
    n = w.shape[1] // x.shape[0]
    expected = np.stack([x[g] @ w[:, g * n:(g + 1) * n] for g in range(x.shape[0])])
    assert np.array_equal(layer_accumulators(plan), expected)
    if precision in ("ternary", "log2"):  # the zero-skipping plan counts exactly the non-zero codes
        assert int(plan.column_elements.sum()) == int(np.count_nonzero(w))


def test_im2col_matches_a_direct_convolution():
    from accel_sim.models.lowbit.functional import im2col
    from accel_sim.foundations.workload.operands import layer_operands, weight_matrix
    layer = ConvLayer("c", in_h=5, in_w=6, in_channels=4, out_channels=6, kernel_h=3, kernel_w=2, groups=2,
                      stride_h=2, stride_w=1, pad_top=1, pad_bottom=0, pad_left=1, pad_right=1, batch=2)
    ops = layer_operands(layer)
    x = np.pad(ops.inputs.astype(np.float64), ((0, 0), (0, 0), (1, 0), (1, 1)))
    w = ops.weights.astype(np.float64)
    direct = np.zeros((2, 6, layer.out_h, layer.out_w))
    for b in range(2):
        for f in range(6):
            g = f // 3
            for i in range(layer.out_h):
                for j in range(layer.out_w):
                    patch = x[b, 2 * g:2 * g + 2, 2 * i:2 * i + 3, j:j + 2]
                    direct[b, f, i, j] = (patch * w[f]).sum()
    cols, matrix = im2col(layer, ops.inputs.astype(np.float64)), weight_matrix(layer, w)
    via_gemm = np.stack([cols[g] @ matrix[:, 3 * g:3 * g + 3] for g in range(2)])  # (g, b*oh*ow, 3)
    expected = direct.reshape(2, 2, 3, layer.out_h * layer.out_w).transpose(1, 0, 3, 2).reshape(2, -1, 3)
    assert np.allclose(via_gemm, expected)


def test_xnor_net_beta_scales_each_row_by_its_mean_magnitude():
    from accel_sim.models.lowbit.functional import layer_outputs
    from accel_sim.foundations.workload.operands import layer_operands
    layer = GemmLayer("g", m=3, k=70, n=4)
    arch = load_arch("lowbit", {"lowbit.activation_scale": True})
    plan = FAMILY.plan(arch, layer)
    x = layer_operands(layer).inputs.astype(np.float64)
    w = layer_operands(layer).weights.astype(np.float64)
    alpha = np.abs(w).mean(axis=0)
    beta = np.abs(x).mean(axis=1, keepdims=True)
    expected = (np.where(x >= 0, 1, -1) @ np.where(w >= 0, 1, -1)) * alpha * beta
    assert np.allclose(layer_outputs(plan)[0], expected, rtol=1e-12)
