"""DLU behaviour through the public API: datapath widths, the statistics block's cost, shipped
configs, bad input. Fast path vs reference and hand-derived examples: test_refinement.py."""
import pytest

from accel_sim import load_arch, load_workload, simulate
from accel_sim.foundations.energy import load_energy_table
from accel_sim.foundations.errors import InputError
from accel_sim.pipeline.simulate import simulate_layer
from accel_sim.foundations.workload import GemmLayer, Network
from tests.dlu.test_refinement import check_laws


def test_narrower_types_pack_more_lanes_and_finish_sooner():
    layer = GemmLayer("g", m=256, k=512, n=512)
    lanes, cycles = {}, {}
    for data_type in ("fp32", "int16", "int8", "int4", "binary"):
        arch = load_arch("dlu", {"dlu.data_type": data_type, "dram.bandwidth_mode": "calc"})
        result = simulate_layer(arch, layer).result
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


def test_reference_gives_the_same_frames_on_shipped_workloads():
    arch = load_arch("dlu", {"dlu.data_type": "int8", "dlu.local_memory": "4 KiB"})
    for name in ("tiny_conv", "lenet5"):
        network = load_workload(name)
        assert simulate(arch, network, reference=True).layers_frame().equals(simulate(arch, network).layers_frame())


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
