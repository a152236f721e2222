"""DLU model: fast path == per-tile SimPy reference, conservation laws, datapath widths, bad input."""
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim import load_arch, load_workload, simulate
from accel_sim.dlu.model import simulate_layer, simulate_layer_reference
from accel_sim.energy import load_energy_table
from accel_sim.errors import InputError
from accel_sim.workload import ConvLayer, GemmLayer, Network

SMALL = {"dlu.processing_units": 2, "dlu.elements_per_unit": 2, "dlu.simd_lanes": 2, "dlu.local_memory": "1 KiB"}

layers = st.one_of(
    st.builds(lambda m, k, n: GemmLayer("g", m=m, k=k, n=n), st.integers(1, 24), st.integers(1, 64), st.integers(1, 40)),
    st.builds(lambda h, c, k, r, g: ConvLayer("c", in_h=h, in_w=h, in_channels=c * g, out_channels=k * g,
                                              kernel_h=r, kernel_w=r, groups=g),
              st.integers(3, 7), st.integers(1, 4), st.integers(1, 6), st.integers(1, 3), st.integers(1, 2)),
)


@settings(max_examples=30, deadline=None)
@given(layer=layers, data_type=st.sampled_from(["fp32", "fp16", "int16", "int8", "int4", "ternary", "binary"]),
       mode=st.sampled_from(["calc", "user"]), bandwidth=st.integers(1, 16), latency=st.integers(0, 20),
       stats_rate=st.integers(1, 4), memory=st.sampled_from(["512 B", "4 KiB", "64 KiB"]), split=st.booleans())
def test_reference_equals_fast_path(layer, data_type, mode, bandwidth, latency, stats_rate, memory, split):
    arch = load_arch("dlu", dict(SMALL, **{"dlu.data_type": data_type, "dram.bandwidth_mode": mode,
                                           "dram.bandwidth": bandwidth, "dram.latency": latency,
                                           "dlu.stats_results_per_cycle": stats_rate, "dlu.local_memory": memory,
                                           "dlu.accumulator_bits": 32, "dlu.split_by_sign": split}))
    fast, ref = simulate_layer(arch, layer), simulate_layer_reference(arch, layer)
    assert (fast.cycles, fast.compute_cycles, fast.stall_cycles) == (ref.cycles, ref.compute_cycles, ref.stall_cycles)
    assert fast.actions == ref.actions
    check_laws(arch, layer, fast)


def check_laws(arch, layer, result):
    assert result.macs_issued == result.macs_dense == layer.macs
    assert result.cycles >= math.ceil(layer.macs / result.peak_macs_per_cycle)
    bits = arch.dlu.bits
    weights = layer.weight_elements * bits / 8
    assert result.dram_read_bytes >= math.floor(weights)
    assert result.dram_write_bytes >= math.floor(layer.output_elements * bits / 8)
    if arch.dram.bandwidth_mode == "user":
        assert result.cycles >= math.ceil(result.dram_write_bytes / arch.dram.bandwidth)
    else:
        assert result.stall_cycles == 0


def test_reference_log_shows_the_lockstep_pipeline():
    arch = load_arch("dlu", dict(SMALL, **{"dram.latency": 3, "dram.bandwidth": 4, "dlu.data_type": "int16",
                                           "dlu.local_memory": "64 B"}))
    log = []
    simulate_layer_reference(arch, GemmLayer("g", m=1, k=16, n=8), log=log)
    # 8 lanes at int16 (2 x 2 x 2 x 2): one 1x8 block; 2 x 64 B = 1024 bits of memory, a tile may use
    # 512: chunks of 512 // (9 x 16) = 3, so 6 tiles (5 x 3 + 1) in 8 lock-step steps
    barriers = [t for who, t, _ in log if who == "barrier"]
    loads = [(s, e) for who, s, e in log if who.startswith("load")]
    assert len(loads) == 6 and len(barriers) == 8
    assert loads[0] == (0, 3 + math.ceil(8 * 3 * 2 / 4))   # latency + 8 x 3 weights x 2 B at 4 B per cycle
    arrays = [(s, e) for who, s, e in log if who == "array"]
    assert [e - s for s, e in arrays] == [3, 3, 3, 3, 3, 1]
    assert all(start >= barriers[i] for i, (start, _) in enumerate(arrays))  # tile i computes after step i
    stats = [(s, e) for who, s, e in log if who == "statistics"]
    assert [e - s for s, e in stats] == [0] * 5 + [2 + math.ceil(4 / 16)]   # only the completed block: 4 results per unit
    assert log[-1][0] == "readout" and log[-1][2] - log[-1][1] == 2 * 32      # 2 units x 32 counters


def test_narrower_types_pack_more_lanes_and_finish_sooner():
    layer = GemmLayer("g", m=256, k=512, n=512)
    lanes, cycles = {}, {}
    for data_type in ("fp32", "int16", "int8", "int4", "binary"):
        arch = load_arch("dlu", {"dlu.data_type": data_type, "dram.bandwidth_mode": "calc"})
        result = simulate_layer(arch, layer)
        lanes[data_type], cycles[data_type] = result.peak_macs_per_cycle, result.compute_cycles
    assert lanes["int16"] == 2 * lanes["fp32"] and lanes["int8"] == 4 * lanes["fp32"]
    assert lanes["binary"] == 32 * lanes["fp32"]
    assert cycles["fp32"] > cycles["int16"] > cycles["int8"] > cycles["int4"]


def test_statistics_block_is_counted_and_costs_time():
    layer = GemmLayer("g", m=64, k=8, n=512)
    on = load_arch("dlu", {"dram.bandwidth_mode": "calc", "dlu.stats_results_per_cycle": 1})
    off = load_arch("dlu", {"dram.bandwidth_mode": "calc", "dlu.statistics": False})
    with_stats, without = simulate(on, Network("n", (layer,))), simulate(off, Network("n", (layer,)))
    assert with_stats.layers[0].cycles > without.layers[0].cycles
    stats_energy = with_stats.energy[0].by_component_pj["statistics"]
    assert stats_energy > 0 and "statistics" not in without.energy[0].by_component_pj
    assert with_stats.layers[0].metrics["statistics_results"] == 64 * 512
    table = load_energy_table(on.energy_table)
    assert with_stats.energy[0].total_pj == pytest.approx(sum(table.energy_pj(a) for a in with_stats.layers[0].actions))


def test_shipped_config_runs_every_shipped_workload_with_the_laws():
    arch = load_arch("dlu")
    for name in ("lenet_300_100", "tiny_conv", "lenet5", "mobilenet_v2"):
        network = load_workload(name)
        run = simulate(arch, network)
        for layer, result in zip(network.layers, run.layers):
            check_laws(arch, layer, result)


def test_same_config_same_result():
    arch = load_arch("dlu")
    network = load_workload("tiny_conv")
    assert simulate(arch, network).layers_frame().equals(simulate(arch, network).layers_frame())


@pytest.mark.parametrize("overrides, message", [
    ({"dlu.data_type": "int2"}, "expected one of fp32"),
    ({"dlu.update_rule": "median"}, "expected one of overflow, max, percentile"),
    ({"dlu.initial_point": 9, "dlu.data_type": "int8"}, "outside the 8-bit word"),
    ({"dlu.min_fraction_bits": 5, "dlu.max_fraction_bits": 2}, "min_fraction_bits 5 > dlu.max_fraction_bits 2"),
    ({"dlu.accumulator_bits": 12, "dlu.data_type": "int8"}, "narrower than a product"),
    ({"dlu.lane_bits": 8, "dlu.data_type": "int16"}, "wider than dlu.lane_bits"),
    ({"dlu.max_overflow_rate": 2}, "expected a value <= 1"),
])
def test_bad_config_names_the_field(overrides, message):
    with pytest.raises(InputError, match=message):
        load_arch("dlu", overrides)
