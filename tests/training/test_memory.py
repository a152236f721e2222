"""The training-memory planner against hand-counted liveness, and its laws on generated networks."""
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.systems.training.memory import largest_batch, largest_width, plan_memory, smallest_layer_bytes, widen
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer, Network
from accel_sim.foundations.workload.loader import load_workload

TWO_FC = Network("two", (GemmLayer("fc1", m=1, k=4, n=3), GemmLayer("fc2", m=1, k=3, n=2)))


def test_hand_counted_peaks_of_two_fc_layers():
    # W0 12, W1 6; X0 4, Y0 3, Y1 2; dY1 2, dY0 3; dW1 6, dW0 12 (one byte per element)
    conventional = plan_memory(TWO_FC, 1, "conventional", bytes_per_element=1)
    assert conventional.peak_bytes == 12 + 6 + 4 + 3 + 2 + 2 + 3 + 6 + 12
    liveness = plan_memory(TWO_FC, 1, "liveness", bytes_per_element=1)
    # fc1's weight gradient: weights 18 + X0 4 + dY0 3 + dW1 6 (kept to the update) + dW0 12
    assert (liveness.peak_bytes, liveness.peak_op) == (43, "fc1.weight_gradient")
    reordered = plan_memory(TWO_FC, 1, "reordered", bytes_per_element=1)
    # weights larger than inputs: input error first, then the gradient fused into W (no dW buffers)
    assert (reordered.peak_bytes, reordered.peak_op) == (18 + 4 + 3 + 2 + 3, "fc2.input_error")


def test_conv_with_large_input_takes_weight_gradient_first_and_reuses_the_input():
    net = Network("conv", (ConvLayer("c0", in_h=8, in_w=8, in_channels=2, out_channels=2, kernel_h=1, kernel_w=1),
                           ConvLayer("c1", in_h=8, in_w=8, in_channels=2, out_channels=2, kernel_h=1, kernel_w=1)))
    # W 4 + 4; X0 = Y0 = Y1 = dY1 = dY0 = 128 elements; dW 4 + 4
    liveness = plan_memory(net, 1, "liveness", 1)
    reordered = plan_memory(net, 1, "reordered", 1)
    # liveness, c1.weight_gradient: X0, Y0, dY1, dY0 and dW1 live with the weights
    assert liveness.peak_bytes == 8 + 4 * 128 + 4
    # reordered: c1's weight gradient first frees Y0 (its input) before dY0 is written into its place,
    # so the backward stays at 3 x 128 + dW1 and the peak is the loss (X0, Y0, Y1, dY1)
    assert (reordered.peak_bytes, reordered.peak_op) == (8 + 4 * 128, "loss")
    assert plan_memory(net, 1, "conventional", 1).peak_bytes == 8 + 5 * 128 + 8


@st.composite
def chains(draw):
    widths = draw(st.lists(st.integers(1, 40), min_size=2, max_size=6))
    return Network("chain", tuple(GemmLayer(f"fc{i}", m=1, k=a, n=b) for i, (a, b) in enumerate(zip(widths, widths[1:]))))


@settings(max_examples=50, deadline=None)
@given(chains(), st.integers(1, 64))
def test_reordered_never_above_liveness_never_above_conventional(net, batch):
    peaks = [plan_memory(net, batch, s).peak_bytes for s in ("reordered", "liveness", "conventional")]
    assert peaks == sorted(peaks)
    weights = sum(layer.weight_elements for layer in net.layers) * 4
    assert peaks[0] >= weights   # the weights always live


def test_largest_batch_is_the_boundary():
    net = load_workload("alexnet_dense")
    memory = 2 * 2**30
    for schedule in ("conventional", "reordered"):
        b = largest_batch(net, memory, schedule)
        assert plan_memory(net, b, schedule).peak_bytes <= memory < plan_memory(net, b + 1, schedule).peak_bytes
    assert largest_batch(net, 1000, "reordered") == 0


def test_widen_keeps_data_and_classes_and_chains():
    net = load_workload("alexnet_dense")
    wide = widen(net, 2.0)
    assert wide.layers[0].in_channels == 3 and wide.layers[-1].n == 1000
    assert wide.layers[1].in_channels == 2 * 96 and wide.layers[5].k == 2 * 9216
    width = largest_width(net, 32, 2 * 2**30, "reordered")
    assert plan_memory(widen(net, width), 32, "reordered").peak_bytes <= 2 * 2**30
    assert smallest_layer_bytes(TWO_FC) == (6 + 3 + 2) * 4
