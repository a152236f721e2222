"""Eyeriss conservation laws, bad input and the shipped config on the measured workload."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accel_sim import load_arch
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload import ConvLayer
from accel_sim.foundations.workload.layer import OperandSource
from accel_sim.foundations.workload.operands import layer_operands
from accel_sim.models.eyeriss.family import FAMILY
from accel_sim.models.eyeriss.plan.rlc import rlc_words
from accel_sim.foundations.energy.cost import cost
from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.pipeline.simulate import energy_factor, simulate_layer
from tests.cli.cli_helpers import assert_one_line_error, run_cli


def eyeriss(**options):
    return load_arch("eyeriss_v1", {f"eyeriss.{k}": v for k, v in options.items()})


@given(st.integers(1, 3), st.integers(3, 12), st.sampled_from([0.1, 0.5, 0.9]), st.integers(1, 3), st.integers(0, 9))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_conservation(kernel, size, density, pe_cols, seed):
    layer = ConvLayer("c", in_h=size, in_w=size, in_channels=3, out_channels=5, kernel_h=kernel, kernel_w=kernel,
                      batch=2, input_density=density, operands=OperandSource(seed=seed))
    arch = eyeriss(pe_rows=kernel + 1, pe_cols=pe_cols, glb_size=4000)
    plan, counters = FAMILY.counters(arch, layer)
    assert counters.macs_issued + counters.macs_gated == layer.macs
    # the coded footprint: every ifmap plane as one stream, read at least once
    planes = layer_operands(layer).inputs.reshape(2 * 3, -1) != 0
    footprint = int(rlc_words(planes, arch.eyeriss.max_run, arch.eyeriss.rlc_pairs_per_word).sum()) * 64
    assert counters.dram_ifmap_read_bits >= footprint
    result = FAMILY.account(plan, counters)
    assert result.cycles >= counters.processing_cycles >= layer.macs / (arch.eyeriss.pes * 1)
    assert result.macs_issued <= result.macs_dense


def test_gating_saves_energy_not_cycles():
    layer = ConvLayer("c", in_h=9, in_w=9, in_channels=4, out_channels=8, kernel_h=3, kernel_w=3, input_density=0.3)
    gated, plain = (simulate_layer(eyeriss(zero_gating=g), layer) for g in (True, False))
    assert gated.result.cycles == plain.result.cycles
    assert gated.energy.total_pj < plain.energy.total_pj


@pytest.mark.parametrize("options, layer, field", [
    ({}, ConvLayer("tall", in_h=20, in_w=20, in_channels=1, out_channels=1, kernel_h=13, kernel_w=3), "kernel_h"),
    ({"glb_size": 100}, ConvLayer("big", in_h=20, in_w=20, in_channels=1, out_channels=1, kernel_h=3, kernel_w=3),
     "eyeriss.glb_size"),
    ({}, ConvLayer("wide", in_h=20, in_w=20, in_channels=1, out_channels=1, kernel_h=3, kernel_w=13), "kernel_w"),
])
def test_bad_layers_name_the_field(options, layer, field):
    with pytest.raises(InputError) as err:
        FAMILY.plan(eyeriss(**options), layer)
    assert field in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("setting, expected", [
    ("eyeriss.filter_spad_entries=0", "eyeriss.filter_spad_entries"),
    ("eyeriss.glb_size=64", "eyeriss.glb_size"),
    ("eyeriss.pe_rows=2", "kernel_h"),
])
def test_cli_bad_input_exits_2_with_one_line(capsys, tmp_path, setting, expected):
    result = run_cli(capsys, "run", "--arch", "eyeriss_v1", "--workload", "tiny_conv", "--set", setting,
                     "--out", tmp_path)
    assert_one_line_error(result, expected)


def test_shipped_config_runs_a_small_layer():
    layer = ConvLayer("c", in_h=15, in_w=15, in_channels=8, out_channels=16, kernel_h=3, kernel_w=3, pad_top=1,
                      pad_bottom=1, pad_left=1, pad_right=1, input_density=0.4)
    run = simulate_layer(load_arch("eyeriss_v1"), layer)
    result, energy = run.result, run.energy
    assert result.macs_issued + result.metrics["macs_gated"] == result.macs_dense
    assert energy.total_pj > 0 and np.isfinite(energy.total_pj)


def test_clock_network_is_charged_every_cycle_for_the_tree_and_each_used_pe():
    """The clock network (CNNergy's bottom-up model of this chip's clock) costs one tree charge a cycle and
    one leaf charge per used PE a cycle (unused PEs are clock gated), and is part of the energy total (with the
    actions' energy and the blocks no action counts, ``uncounted_blocks``)."""
    layer = ConvLayer("c", in_h=9, in_w=9, in_channels=4, out_channels=6, kernel_h=3, kernel_w=3, batch=1,
                      input_density=0.5, operands=OperandSource(seed=1))
    arch = eyeriss()
    run = simulate_layer(arch, layer)
    clock = {a.action: a.count for a in run.result.actions if a.component == "clock_network"}
    assert clock == {"cycle": run.result.cycles,
                     "pe_cycle": int(run.result.metrics["active_pes"]) * run.result.cycles}
    per_cycle = run.energy.by_component_pj["clock_network"] / run.result.cycles
    assert per_cycle == pytest.approx(9.223 + 3.108 * run.result.metrics["active_pes"], rel=2e-3)  # 65 nm, 1 V
    others = tuple(a for a in run.result.actions if a.component != "clock_network")
    rest = cost(others, load_energy_table(arch.energy_table), energy_factor(arch, load_energy_table(arch.energy_table)))
    uncounted = sum(run.energy.by_component_pj[b.block] for b in arch.uncounted_blocks)
    assert rest.total_pj + run.energy.by_component_pj["clock_network"] + uncounted == pytest.approx(
        run.energy.total_pj, rel=1e-12)


def test_a_shared_ofmap_mask_plans_the_same(tmp_path):
    """A layer's ReLU(conv) non-zeros written to the shared operand folder by one plan and read back by the next
    (another process of ``reproduce all``) give the tables computed without the folder."""
    from accel_sim.foundations.workload.operand_cache import MIN_ELEMENTS, shared_operands
    from accel_sim.models.eyeriss.plan import plan

    layer = ConvLayer("c", in_h=66, in_w=66, in_channels=4, out_channels=64, kernel_h=3, kernel_w=3, batch=1,
                      input_density=0.6, operands=OperandSource(seed=3))
    assert layer.out_channels * layer.out_h * layer.out_w >= MIN_ELEMENTS   # goes through the folder
    arch = eyeriss()
    tables = [(p.ifmap_bits, p.ofmap_bits, p.zero_uses) for p in [plan(arch, layer)]]
    with shared_operands(tmp_path):
        tables += [(p.ifmap_bits, p.ofmap_bits, p.zero_uses) for p in (plan(arch, layer), plan(arch, layer))]
    assert len(list(tmp_path.iterdir())) == 1
    assert all(np.array_equal(a, b) for t in tables[1:] for a, b in zip(tables[0], t))


@pytest.mark.parametrize("stride,stride_w,groups,pad", [(1, 1, 1, 1), (2, 1, 1, 0), (3, 2, 2, 2), (1, 3, 4, 0)])
def test_ofmaps_are_the_sliding_window_products_bit_for_bit(stride, stride_w, groups, pad):
    """The plan's ReLU(conv) (filters times the im2col columns, copied one filter tap at a time) equals np.tensordot
    over a sliding-window view of the padded ifmaps in every bit (the ofmap run-length code reads its zeros)."""
    from accel_sim.foundations.workload.loop_nest import loop_nest
    from accel_sim.models.eyeriss.plan import _outputs, _padded_inputs

    layer = ConvLayer("c", in_h=13, in_w=11, in_channels=8, out_channels=12, kernel_h=3, kernel_w=5, batch=2,
                      stride_h=stride, stride_w=stride_w, pad_top=pad, pad_bottom=pad, pad_left=pad, groups=groups, input_density=0.7, operands=OperandSource(seed=5))
    shape, ops = loop_nest(layer), layer_operands(layer)
    x = _padded_inputs(layer, shape, ops.inputs)
    w = ops.weights.reshape(groups, shape.filters, shape.channels, shape.filter_rows, shape.filter_cols)
    expected = np.empty((groups, 2, shape.filters, shape.out_rows, shape.out_cols), dtype=np.float32)
    for g in range(groups):
        for image in range(2):
            windows = np.lib.stride_tricks.sliding_window_view(x[g, image], (3, 5), axis=(1, 2))
            windows = windows[:, ::stride, ::stride_w][:, :shape.out_rows, :shape.out_cols]
            expected[g, image] = np.tensordot(w[g], windows, axes=([1, 2, 3], [0, 3, 4]))
    got = _outputs(layer, shape, x, ops.weights)
    assert np.array_equal(got.view(np.uint32), np.maximum(expected, 0).view(np.uint32))
