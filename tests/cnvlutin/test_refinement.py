"""Cnvlutin refinement: the fast path and the discrete-event reference agree on every counter,
and both agree with hand-derived counts of small layers (so a bug in the shared plan, or in the
accounting, fails here too)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim import load_arch
from accel_sim.models.cnvlutin.family import FAMILY
from accel_sim.foundations.energy import load_energy_table
from accel_sim.foundations.errors import SimulationError
from accel_sim.pipeline.simulate import simulate_layer
from accel_sim.foundations.workload import ConvLayer, GemmLayer
from accel_sim.foundations.workload.layer import OperandSource


def cnvlutin(**options):
    top_level = ("word_bits",)
    return load_arch("cnvlutin", {f"cnvlutin.{k}" if "." not in k and k not in top_level else k: v
                                  for k, v in options.items()})


def conv_with_inputs(tmp_path, inputs: np.ndarray, name="c", **shape) -> ConvLayer:
    """A conv layer whose input tensor is ``inputs`` (1, C, H, W)."""
    path = tmp_path / f"{name}.npz"
    np.savez(path, inputs=inputs.astype(np.float32))
    _, c, h, w = inputs.shape
    return ConvLayer(name, in_h=h, in_w=w, in_channels=c, operands=OperandSource(payload=str(path)), **shape)


@pytest.fixture
def three_channels(tmp_path):
    """1 x 1 conv, 3 channels on a 2 x 2 input, 5 filters. With 2 lanes, lane 0 holds channels 0-1
    and lane 1 channel 2 (and a padding channel). Non-zeros per lane and position (y, x):
    lane 0: (0,0) 2, (1,0) 1; lane 1: (1,0) 1, (1,1) 1."""
    x = np.zeros((1, 3, 2, 2))
    x[0, 0] = [[1, 0], [0, 0]]
    x[0, 1] = [[2, 0], [3, 0]]
    x[0, 2] = [[0, 0], [4, 5]]
    return conv_with_inputs(tmp_path, x, out_channels=5, kernel_h=1, kernel_w=1)


# passes of 2, 2 and 1 filters; 8-bit words (1 byte) to keep the byte counts readable
ARCH_OF_EXAMPLE = {"neuron_lanes": 2, "units": 1, "filters_per_unit": 2, "word_bits": 8}


@pytest.mark.parametrize("skipping, empty, compute", [
    (True, 1, 3 * (2 + 1 + 1 + 1)),   # per window the slowest lane; an empty brick costs 1
    (True, 0, 3 * (2 + 0 + 1 + 1)),   # empty bricks free
    (False, 1, 3 * 4 * 2),           # baseline: slice depth 2 per window, 4 windows, 3 passes
])
def test_worked_example_counters(three_channels, skipping, empty, compute):
    arch = cnvlutin(zero_skipping=skipping, empty_brick_cycles=empty, **ARCH_OF_EXAMPLE)
    plan = FAMILY.plan(arch, three_channels)
    assert (plan.channels, plan.slice_depth, plan.filters_per_pass) == (3, 2, (2, 2, 1))
    expected = dict(cycles=compute, compute_cycles=compute, dram_cycles=0, window_slots=4 * 2 * 2,
                    window_nonzeros=5, neuron_reads=3 * (5 if skipping else 16),
                    offset_reads=15 if skipping else 0, macs_issued=5 * 5 if skipping else 4 * 3 * 5,
                    dram_read_words=12 + 15, dram_write_words=4 * 5)
    for path in (FAMILY.fast, FAMILY.reference):
        assert path(plan, None).as_dict() == expected


@pytest.mark.parametrize("bandwidth, latency, cycles", [
    ("4 B/cycle", 2, 15),        # streams 3, 4, 5 cycles + 2 latency: under compute
    ("1 B/cycle", 2, 20 + 2),    # the output stream (20 words) is the longest
    ("1 B/cycle", 0, 20),
])
def test_worked_example_dram_bound(three_channels, bandwidth, latency, cycles):
    arch = cnvlutin(**ARCH_OF_EXAMPLE, **{"dram.bandwidth_mode": "user", "dram.bandwidth": bandwidth,
                                          "dram.latency": latency})
    plan = FAMILY.plan(arch, three_channels)
    for path in (FAMILY.fast, FAMILY.reference):
        counters = path(plan, None)
        assert (counters.cycles, counters.compute_cycles) == (cycles, 15)
        assert counters.dram_cycles == max(3, 4, 5) + latency if cycles == 15 else counters.dram_cycles == cycles


def test_worked_example_actions_and_bytes(three_channels):
    arch = cnvlutin(**ARCH_OF_EXAMPLE)
    result = simulate_layer(arch, three_channels).result
    spec = arch.cnvlutin
    actions = {(a.component, a.component_class, a.action, a.bits): a.count for a in result.actions}
    neuron_writes = [a.count for a in result.actions if (a.component, a.action) == ("neuron_memory", "write")]
    assert neuron_writes == [12, 20]
    assert actions == {
        ("dram", "dram", "read", 8): 27, ("dram", "dram", "write", 8): 20,
        ("neuron_memory", "sram", "write", 8): 20, ("neuron_memory", "sram", "read", 8): 15,
        ("synapse_buffer", "sram", "write", 8): 15, ("synapse_buffer", "sram", "read", 8): 25,
        ("units", "mult_int", "op", 8): 25, ("units", "add_int", "op", spec.accumulator_bits): 25,
        ("units", "mult_int", "skip", 8): 60 - 25, ("neuron_memory", "sram", "read", 1): 15,
    }
    assert (result.cycles, result.compute_cycles, result.stall_cycles) == (15, 15, 0)
    assert (result.macs_dense, result.macs_issued, result.macs_skipped) == (60, 25, 35)
    assert result.peak_macs_per_cycle == 1 * 2 * 2
    assert (result.dram_read_bytes, result.dram_write_bytes) == (27, 20)
    assert result.sram_read_bytes == 15 + 25 + math.ceil(15 * 1 / 8)
    assert result.sram_write_bytes == 12 + 15 + 20
    assert dict(result.metrics) == {"macs_skipped": 35.0, "macs_gated": 0.0, "filter_passes": 3.0,
                                    "activation_density_seen": 5 / 16, "dram_cycles": 0.0}
    assert set(result.operand_hashes) == {"weight_hash", "input_hash"}


def test_worked_example_baseline_actions(three_channels):
    result = simulate_layer(cnvlutin(zero_skipping=False, **ARCH_OF_EXAMPLE), three_channels).result
    reads = [a for a in result.actions if (a.component, a.action) == ("neuron_memory", "read")]
    assert [(a.count, a.bits) for a in reads] == [(48, 8)]  # every slot, no offsets
    assert result.macs_issued == result.macs_dense == 60
    assert result.sram_read_bytes == 48 + 60


def test_strided_window_example(tmp_path):
    """2 x 1 kernel, stride (2, 1) on a 3 x 4 input, one channel: out 1 x 4; the third row is never
    read. The windows (columns of rows 0-1) hold 1, 1, 0 and 1 non-zeros of their 2 positions."""
    x = np.array([[[[1, 0, 0, 2], [0, 3, 0, 0], [5, 5, 5, 5]]]])
    layer = conv_with_inputs(tmp_path, x, out_channels=1, kernel_h=2, kernel_w=1, stride_h=2, stride_w=1)
    for empty, compute in ((0, 3), (1, 3 + 5)):
        plan = FAMILY.plan(cnvlutin(neuron_lanes=1, empty_brick_cycles=empty), layer)
        for path in (FAMILY.fast, FAMILY.reference):
            counters = path(plan, None)
            assert (counters.compute_cycles, counters.window_nonzeros, counters.window_slots) == (compute, 3, 8)


def test_plan_of_worked_example(three_channels):
    plan = FAMILY.plan(cnvlutin(**ARCH_OF_EXAMPLE), three_channels)
    (work,) = plan.groups
    assert work.lane_nonzeros.tolist() == [[[[2, 0], [1, 0]], [[0, 0], [1, 1]]]]
    assert (work.kernel, work.stride, work.out) == ((1, 1), (1, 1), (2, 2))


def test_three_lanes_one_channel_each(three_channels):
    """Lane i holds channel i: at (1, 0) lanes 1 and 2 hold one non-zero each, so every window takes
    one cycle (empty bricks cost one); offsets are 2 bits wide."""
    arch = cnvlutin(**{**ARCH_OF_EXAMPLE, "neuron_lanes": 3})
    plan = FAMILY.plan(arch, three_channels)
    assert plan.groups[0].lane_nonzeros[0, :, 1, 0].tolist() == [0, 1, 1]
    for path in (FAMILY.fast, FAMILY.reference):
        assert path(plan, None).compute_cycles == 3 * 4
    result = FAMILY.account(plan, FAMILY.fast(plan, None))
    assert result.sram_read_bytes == 15 + 25 + math.ceil(15 * 2 / 8)


def test_gemm_worked_example(tmp_path):
    """FC layer, m = 2 input vectors of k = 3, n = 2 outputs, 4 lanes of one element each:
    vector 0 holds non-zeros in lanes 0 and 2, vector 1 none."""
    path = tmp_path / "fc.npz"
    np.savez(path, inputs=np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0]], dtype=np.float32))
    layer = GemmLayer("fc", m=2, k=3, n=2, operands=OperandSource(payload=str(path)))
    for empty, compute in ((0, 1), (1, 2)):
        plan = FAMILY.plan(cnvlutin(**{**ARCH_OF_EXAMPLE, "neuron_lanes": 4, "empty_brick_cycles": empty}), layer)
        assert plan.groups[0].lane_nonzeros[:, :, 0, 0].tolist() == [[1, 0, 1, 0], [0, 0, 0, 0]]
        for count in (FAMILY.fast, FAMILY.reference):
            counters = count(plan, None)
            assert (counters.compute_cycles, counters.window_nonzeros, counters.macs_issued) == (compute, 2, 4)
            assert counters.window_slots == 2 * 4


def test_padding_and_groups_example(tmp_path):
    """3 x 3 kernel, padding 1, 2 groups of 1 channel on a 1 x 2 input: every window sees both pixels
    of its group's channel; group 0 holds one non-zero, group 1 two."""
    x = np.array([[[[7, 0]], [[1, 2]]]])
    layer = conv_with_inputs(tmp_path, x, out_channels=2, kernel_h=3, kernel_w=3, pad_top=1, pad_bottom=1,
                             pad_left=1, pad_right=1, groups=2)
    plan = FAMILY.plan(cnvlutin(neuron_lanes=1, empty_brick_cycles=0), layer)
    assert [g.lane_nonzeros.shape for g in plan.groups] == [(1, 1, 3, 4)] * 2
    for path in (FAMILY.fast, FAMILY.reference):
        counters = path(plan, None)
        assert counters.compute_cycles == 2 * 1 + 2 * 2    # 2 windows x (1 + 2) non-zeros
        assert counters.macs_issued == 2 * 1 + 2 * 2       # one filter per group
        assert counters.window_slots == 2 * 2 * 9           # 2 groups x 2 windows x 9 positions


def test_gemm_layer_is_one_pixel_images():
    layer = GemmLayer("fc", m=3, k=10, n=7, input_density=0.5)
    plan = FAMILY.plan(cnvlutin(neuron_lanes=4), layer)
    assert plan.channels == 10 and plan.slice_depth == 3 and len(plan.groups) == 1
    work = plan.groups[0]
    assert (work.kernel, work.stride, work.out, work.lane_nonzeros.shape) == ((1, 1), (1, 1), (1, 1), (3, 4, 1, 1))


@st.composite
def layers(draw):
    density = draw(st.sampled_from([1.0, 0.6, 0.3, 0.05]))
    source = OperandSource(activation_pattern=draw(st.sampled_from(["uniform", "clustered"])),
                           seed=draw(st.integers(0, 3)))
    if draw(st.booleans()):
        return GemmLayer("fc", m=draw(st.integers(1, 3)), k=draw(st.integers(1, 40)), n=draw(st.integers(1, 70)),
                         input_density=density, operands=source)
    groups = draw(st.sampled_from([1, 2]))
    k = draw(st.sampled_from([1, 3]))
    pad = k // 2
    return ConvLayer("conv", in_h=draw(st.integers(3, 5)), in_w=draw(st.integers(3, 5)),
                     in_channels=draw(st.integers(1, 12)) * groups, out_channels=draw(st.integers(1, 3)) * groups,
                     kernel_h=k, kernel_w=k, pad_top=pad, pad_bottom=pad, pad_left=pad, pad_right=pad,
                     stride_h=draw(st.sampled_from([1, 2])), stride_w=draw(st.sampled_from([1, 2])), groups=groups,
                     input_density=density, operands=source)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(layer=layers(), skipping=st.booleans(), lanes=st.sampled_from([3, 4, 16]), empty=st.integers(0, 1),
       units=st.sampled_from([1, 2]), mode=st.sampled_from(["calc", "user"]),
       bandwidth=st.sampled_from(["1 B/cycle", "16 B/cycle"]), latency=st.integers(0, 3))
def test_fast_and_reference_agree_on_every_counter(layer, skipping, lanes, empty, units, mode, bandwidth, latency):
    arch = cnvlutin(zero_skipping=skipping, neuron_lanes=lanes, empty_brick_cycles=empty, units=units,
                    filters_per_unit=4, **{"dram.bandwidth_mode": mode, "dram.bandwidth": bandwidth,
                                           "dram.latency": latency})
    assert FAMILY.refinement(arch, layer) == []
    result = FAMILY.layer_result(arch, layer)
    assert result.macs_issued + result.metrics["macs_skipped"] == result.macs_dense == layer.macs
    assert result.cycles >= math.ceil(result.macs_issued / result.peak_macs_per_cycle)
    assert result.cycles >= result.metrics["dram_cycles"]
    assert result.dram_read_bytes >= (layer.input_elements + layer.weight_elements) * arch.word_bytes
    assert result.dram_write_bytes >= layer.output_elements * arch.word_bytes
    assert result == FAMILY.layer_result(arch, layer, reference=True)


def test_energy_is_the_sum_of_its_parts(three_channels):
    arch = cnvlutin(**ARCH_OF_EXAMPLE)
    run = simulate_layer(arch, three_channels)
    table = load_energy_table(arch.energy_table)
    assert run.energy.total_pj == pytest.approx(sum(table.energy_pj(a) for a in run.result.actions))


def test_max_cycles_guard(three_channels):
    plan = FAMILY.plan(cnvlutin(**ARCH_OF_EXAMPLE), three_channels)
    for path in (FAMILY.fast, FAMILY.reference):
        assert path(plan, 15).cycles == 15
        with pytest.raises(SimulationError, match="max_cycles"):
            path(plan, 14)
