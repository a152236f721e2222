"""Cnvlutin and its dense baseline: reference = fast path, conservation, speed-up behaviour."""
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim import load_arch, simulate
from accel_sim.cnvlutin.model import simulate_layer, simulate_layer_reference
from accel_sim.energy import load_energy_table
from accel_sim.errors import InputError
from accel_sim.workload import ConvLayer, GemmLayer, Network
from accel_sim.workload.layer import OperandSource


@st.composite
def layers(draw):
    density = draw(st.sampled_from([1.0, 0.6, 0.3, 0.05]))
    source = OperandSource(activation_pattern=draw(st.sampled_from(["uniform", "clustered"])), seed=draw(st.integers(0, 3)))
    if draw(st.booleans()):
        return GemmLayer("fc", m=draw(st.integers(1, 4)), k=draw(st.integers(1, 80)), n=draw(st.integers(1, 300)),
                         input_density=density, operands=source)
    groups = draw(st.sampled_from([1, 2]))
    k = draw(st.sampled_from([1, 3]))
    pad = k // 2
    return ConvLayer("conv", in_h=draw(st.integers(3, 6)), in_w=draw(st.integers(3, 6)),
                     in_channels=draw(st.integers(1, 24)) * groups, out_channels=draw(st.integers(1, 4)) * groups,
                     kernel_h=k, kernel_w=k, pad_top=pad, pad_bottom=pad, pad_left=pad, pad_right=pad,
                     stride_h=draw(st.sampled_from([1, 2])), stride_w=1, groups=groups, input_density=density,
                     operands=source)


@settings(max_examples=80, deadline=None)
@given(layer=layers(), skipping=st.booleans(), lanes=st.sampled_from([4, 16]), empty=st.integers(0, 1),
       units=st.sampled_from([1, 2, 16]))
def test_reference_and_fast_path_agree(layer, skipping, lanes, empty, units):
    arch = load_arch("cnvlutin", {"cnvlutin.zero_skipping": skipping, "cnvlutin.neuron_lanes": lanes,
                                  "cnvlutin.empty_brick_cycles": empty, "cnvlutin.units": units,
                                  "cnvlutin.filters_per_unit": 4})
    fast, reference = simulate_layer(arch, layer), simulate_layer_reference(arch, layer)
    assert fast.cycles == reference.cycles
    assert fast == reference


@settings(max_examples=15, deadline=None)
@given(layer=layers(), config=st.sampled_from(["cnvlutin", "dadiannao"]), mode=st.sampled_from(["calc", "user"]))
def test_conservation(layer, config, mode):
    arch = load_arch(config, {"dram.bandwidth_mode": mode, "dram.bandwidth": "4 B/cycle"})
    run = simulate(arch, Network("n", (layer,)))
    result, energy = run.layers[0], run.energy[0]
    assert result.macs_issued + result.metrics["macs_skipped"] == result.macs_dense == layer.macs
    assert result.cycles >= math.ceil(result.macs_issued / result.peak_macs_per_cycle)
    assert result.cycles >= result.metrics["dram_cycles"]
    assert result.dram_read_bytes >= (layer.input_elements + layer.weight_elements) * arch.word_bytes
    table = load_energy_table(arch.energy_table)
    assert energy.total_pj == pytest.approx(sum(table.energy_pj(a) for a in result.actions))


def test_dense_input_gives_no_speedup_and_zeros_give_speedup():
    dense = ConvLayer("c", in_h=10, in_w=10, in_channels=64, out_channels=32, kernel_h=3, kernel_w=3, input_density=1.0)
    base, cnv = load_arch("dadiannao"), load_arch("cnvlutin")
    assert simulate_layer(cnv, dense).cycles == simulate_layer(base, dense).cycles
    speedups = []
    for density in (0.8, 0.5, 0.2):
        sparse = ConvLayer("c", in_h=10, in_w=10, in_channels=64, out_channels=32, kernel_h=3, kernel_w=3,
                           input_density=density)
        speedups.append(simulate_layer(base, sparse).cycles / simulate_layer(cnv, sparse).cycles)
    assert speedups == sorted(speedups) and speedups[0] > 1.0
    assert speedups[-1] < 1 / 0.2  # lanes wait for the slowest at every window: below the ideal


def test_baseline_cycles_closed_form():
    """DaDianNao: one brick per cycle per window per pass of 256 filters."""
    layer = ConvLayer("c", in_h=7, in_w=7, in_channels=40, out_channels=300, kernel_h=3, kernel_w=3, input_density=0.5)
    result = simulate_layer(load_arch("dadiannao"), layer)
    assert result.cycles == 5 * 5 * (3 * 3 * math.ceil(40 / 16)) * math.ceil(300 / 256)
    assert result.macs_issued == layer.macs


def test_bad_config():
    with pytest.raises(InputError, match="cnvlutin.empty_brick_cycles"):
        load_arch("cnvlutin", {"cnvlutin.empty_brick_cycles": 3})
    with pytest.raises(InputError, match="cnvlutin.units"):
        load_arch("cnvlutin", {"cnvlutin.units": 0})


@settings(max_examples=20, deadline=None)
@given(layer=layers(), lanes=st.sampled_from([4, 16]), empty=st.integers(0, 1))
def test_cnvlutin_never_slower_than_its_baseline(layer, lanes, empty):
    """A lane's work at a position is at most its slice depth, the baseline's cycles there."""
    opts = {"cnvlutin.neuron_lanes": lanes, "cnvlutin.empty_brick_cycles": empty}
    cnv = simulate_layer(load_arch("cnvlutin", opts), layer)
    base = simulate_layer(load_arch("dadiannao", opts), layer)
    assert cnv.cycles <= base.cycles
    assert cnv.macs_issued <= base.macs_issued == layer.macs
