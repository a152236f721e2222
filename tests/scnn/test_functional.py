"""The reference's products, summed where they belong (halo exchange) and after ReLU, equal a numpy convolution."""
import numpy as np
import pytest

from accel_sim import load_arch
from accel_sim.scnn.plan import plan
from accel_sim.scnn.plan.operands import conv_operands, convolution, layer_outputs
from accel_sim.scnn.plan.tiling import conv_view
from accel_sim.scnn.reference import reference_outputs
from accel_sim.workload import ConvLayer, GemmLayer
from tests.scnn._layers import chunked_case, small_case


@pytest.mark.parametrize("seed", range(0, 60, 3))
def test_reference_outputs_equal_numpy_convolution(seed):
    arch, layer = small_case(seed, design="scnn")
    expected = layer_outputs(layer)
    assert np.allclose(reference_outputs(plan(arch, layer)), expected, atol=1e-4)


@pytest.mark.parametrize("seed", range(0, 40, 2))
def test_outputs_summed_over_channel_chunks_equal_numpy(seed):
    arch, layer = chunked_case(seed, design="scnn")
    assert np.allclose(reference_outputs(plan(arch, layer)), layer_outputs(layer), atol=1e-4)


def test_numpy_convolution_matches_a_direct_loop():
    layer = ConvLayer("c", in_h=7, in_w=6, in_channels=4, out_channels=4, kernel_h=3, kernel_w=3, stride_h=2,
                      stride_w=2, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1, groups=2, input_density=0.5)
    view = conv_view(layer)
    weights, inputs = conv_operands(layer)
    out = convolution(view, weights, inputs)
    x = np.pad(inputs[0].astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    for g in range(2):
        for k in range(2):
            for oy in range(view.out_h):
                for ox in range(view.out_w):
                    ref = (weights[g, k] * x[g, :, 2 * oy:2 * oy + 3, 2 * ox:2 * ox + 3]).sum()
                    assert out[0, g, k, oy, ox] == pytest.approx(ref, abs=1e-4)


def test_fc_layer_runs_as_a_1x1_conv():
    arch = load_arch("scnn", {"scnn.pe_rows": 2, "scnn.pe_cols": 2})
    layer = GemmLayer("fc", m=1, k=24, n=10, weight_density=0.5, input_density=0.5)
    ops = conv_operands(layer)
    expected = np.maximum(ops[1][0, 0, :, 0, 0] @ ops[0][0, :, :, 0, 0].T, 0)
    assert np.allclose(reference_outputs(plan(arch, layer))[0, 0, :, 0, 0], expected, atol=1e-4)
