"""Backward GEMM shapes against an independent count from the convolution's own fields, and per-layer
timing through the public simulate path on three families."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.simulate import simulate_layer
from accel_sim.systems.training.backward import at_batch, training_gemms
from accel_sim.systems.training.timing import network_timing
from accel_sim.foundations.workload.layer import BatchedGemmLayer, ConvLayer, GemmLayer, Network


def conv_macs(c: ConvLayer) -> int:
    """Every output pixel of every sample, every filter: R x S x (C / groups) products."""
    out_h = (c.in_h + c.pad_top + c.pad_bottom - c.kernel_h) // c.stride_h + 1
    out_w = (c.in_w + c.pad_left + c.pad_right - c.kernel_w) // c.stride_w + 1
    return c.batch * out_h * out_w * c.out_channels * c.kernel_h * c.kernel_w * (c.in_channels // c.groups)


@st.composite
def convs(draw):
    groups = draw(st.sampled_from([1, 2, 4]))
    kernel = draw(st.integers(1, 5))
    return ConvLayer("c", in_h=draw(st.integers(kernel, 20)), in_w=draw(st.integers(kernel, 20)),
                     in_channels=groups * draw(st.integers(1, 8)), out_channels=groups * draw(st.integers(1, 8)),
                     kernel_h=kernel, kernel_w=kernel, stride_h=draw(st.integers(1, 3)), stride_w=draw(st.integers(1, 3)),
                     groups=groups, batch=draw(st.integers(1, 4)))


@settings(max_examples=60, deadline=None)
@given(convs())
def test_each_backward_gemm_has_the_forward_macs_and_the_transposed_shape(conv):
    gemms = training_gemms(conv)
    expected = conv_macs(conv)
    assert gemms.forward.macs == gemms.input_error.macs == gemms.weight_gradient.macs == expected
    k = conv.kernel_h * conv.kernel_w * conv.in_channels // conv.groups
    m = conv.batch * conv.out_h * conv.out_w
    n = conv.out_channels // conv.groups
    # input error: dX (m x k) = dY (m x n) W^T; weight gradient: dW (k x n) = X^T (k x m) dY
    for layer, shape in ((gemms.input_error, (m, n, k)), (gemms.weight_gradient, (k, m, n))):
        assert (layer.m, layer.k, layer.n) == shape
        assert isinstance(layer, BatchedGemmLayer if conv.groups > 1 else GemmLayer)
        if conv.groups > 1:
            assert layer.instances == conv.groups
    # outputs are the shapes of the tensors they are the errors of
    assert gemms.input_error.output_elements == m * k * conv.groups
    assert gemms.weight_gradient.output_elements == conv.weight_elements


def test_first_layer_has_no_input_error_and_batch_scales_fc_rows():
    fc = GemmLayer("fc", m=1, k=10, n=3)
    assert training_gemms(fc, needs_input_error=False).input_error is None
    assert at_batch(fc, 8).m == 8 and at_batch(fc, 8).macs == 8 * fc.macs
    with pytest.raises(ValueError):
        at_batch(fc, 0)


@pytest.mark.parametrize("arch", ["dlu", "ampere_a100_dense", "scalesim_32x32_ws"])
def test_timing_runs_each_gemm_through_simulate_layer(arch):
    spec = load_arch(arch)
    net = Network("small", (ConvLayer("c1", in_h=8, in_w=8, in_channels=4, out_channels=8, kernel_h=3, kernel_w=3),
                            GemmLayer("fc", m=1, k=288, n=10)))
    timing = network_timing(spec, net, batch=2)
    first, second = timing.layers
    assert first.input_error_s == 0 and second.input_error_s > 0
    for layer, row in zip(net.layers, timing.layers):
        gemms = training_gemms(at_batch(layer, 2), needs_input_error=layer is not net.layers[0])
        expected = {name: simulate_layer(spec, g).result.cycles / spec.clock for name, g in gemms.passes()}
        assert row.forward_s == expected["forward"]
        assert row.weight_gradient_s == expected["weight_gradient"]
        assert row.input_error_s == expected.get("input_error", 0.0)
        assert row.macs == sum(g.macs for _, g in gemms.passes())   # dense families issue every MAC
    assert timing.compute_s == pytest.approx(sum(r.forward_s + r.backward_s for r in timing.layers))
    assert timing.weights == 4 * 8 * 9 + 288 * 10
