"""The four EIE studies, on two small benchmark layers and reduced sweeps."""
import numpy as np
import pandas as pd
import pytest

from accel_sim.studies.eie_benchmarks import (COLUMNS, TABLE_IV_ACTUAL_US, TABLE_IV_THEORETICAL_US, eie_benchmarks,
                                              geomean_error_factor)
from accel_sim.studies.eie_fifo_depth import eie_fifo_depth
from accel_sim.studies.eie_pe_scaling import eie_pe_scaling
from accel_sim.studies.eie_sram_width import eie_sram_width
from accel_sim.studies.registry import all_studies, write_study
from accel_sim.foundations.workload.loader import load_workload

SMALL = ("Alex-8", "NT-LSTM")


def test_studies_are_registered():
    assert {"eie-benchmarks", "eie-fifo-depth", "eie-pe-scaling", "eie-sram-width"} <= set(all_studies())


def test_benchmarks_table():
    out = eie_benchmarks(layers=SMALL)
    frame = out.results
    assert tuple(frame.columns) == COLUMNS
    assert frame["layer"].tolist() == list(SMALL)
    assert (frame["time_us"] >= frame["ideal_time_us"]).all()
    assert (frame["time_us"] == frame["cycles"] / 800e6 * 1e6).all()
    assert frame["load_efficiency"].between(0, 1).all() and frame["padding_fraction"].between(0, 1).all()
    # Alex-8: 1000 rows over 64 PEs = at most 16 local rows, so no zero run exceeds 15: no padding
    assert frame.set_index("layer").loc["Alex-8", "padding_fraction"] == 0
    assert frame.set_index("layer").loc["NT-LSTM", "padding_fraction"] > 0
    assert (frame["energy_pj"] > 0).all()
    # every layer on chip (eie.yaml: grow_on_chip), on the brief's 16-bit pointers and 32 KB pointer SRAM
    assert (frame["dram_spill_bytes"] == 0).all() and (frame["pointer_bits"] == 16).all()
    assert (frame["pointer_sram_kib"] == 32).all()
    assert (frame["balanced_time_us"] >= frame["ideal_time_us"]).all() and (frame["time_us"] >= frame["balanced_time_us"]).all()
    shares = [c for c in out.comparisons if c.unit == "fraction"]
    assert [c.quantity.split()[0] for c in shares] == ["act_queue", "pointer_read", "spmat_read", "arithmetic", "act_rw"]
    assert sum(c.published for c in shares) == pytest.approx(1) and sum(c.simulated for c in shares) == pytest.approx(1)


def test_fifo_depth_study_efficiency_rises_with_depth():
    frame = eie_fifo_depth(layers=("NT-LSTM",), depths=(1, 8, 64)).results
    eff = frame["load_efficiency"].tolist()
    assert eff == sorted(eff) and eff[0] < eff[-1]
    assert frame["cycles"].is_monotonic_decreasing


def test_pe_scaling_study():
    frame = eie_pe_scaling(layers=("NT-LSTM",), pe_counts=(4, 16, 64)).results
    assert frame["speedup"].iloc[0] == 1 and frame["speedup"].is_monotonic_increasing
    # 16x the PEs: padding entries disappear (fewer entries), load balance worsens
    assert frame["padding_fraction"].is_monotonic_decreasing
    assert frame["load_efficiency"].is_monotonic_decreasing


def test_sram_width_study_reads_fall_with_width(tmp_path):
    from accel_sim.studies.registry import Study

    out = write_study(Study("eie-sram-width", "t", lambda: eie_sram_width(layers=("NT-LSTM",), widths=(8, 64, 512))),
                      tmp_path)
    frame = out.results
    assert frame["spmat_reads"].is_monotonic_decreasing
    assert frame["read_energy_pj"].is_monotonic_increasing   # linear-width SRAM energy: the reported gap
    assert (tmp_path / "figure.png").stat().st_size > 0
    readme = (tmp_path / "README.md").read_text()
    assert "| sparse-matrix SRAM width with the least total read energy | bits | 64 | 8 | -87.5 % |" in readme
    comparison = pd.read_csv(tmp_path / "comparison.csv")
    assert comparison[["published", "simulated"]].values.tolist() == [[64, 8]]


def test_benchmarks_compare_every_table_iv_time():
    frame = eie_benchmarks(layers=SMALL).results.set_index("layer")
    rows = {c.quantity: c for c in eie_benchmarks(layers=SMALL).comparisons}
    actual = rows["Alex-8 time on EIE (Table IV actual)"]
    assert (actual.published, actual.simulated, actual.unit) == (9.9, frame.loc["Alex-8", "time_us"], "us")
    theoretical = rows["NT-LSTM time with perfect load balance (Table IV theoretical; simulated: entries / 64 PEs)"]
    assert (theoretical.published, theoretical.simulated) == (6.5, frame.loc["NT-LSTM", "balanced_time_us"])
    geomean = rows["geometric-mean error factor of the 2 Table IV actual times, exp(mean abs(ln(sim / pub)))"]
    expected = np.exp((abs(np.log(frame.loc["Alex-8", "time_us"] / 9.9))
                       + abs(np.log(frame.loc["NT-LSTM", "time_us"] / 7.5))) / 2)
    assert geomean.simulated == pytest.approx(expected) and geomean.tolerance == 0.15
    assert set(TABLE_IV_ACTUAL_US) == set(TABLE_IV_THEORETICAL_US) == {layer.name for layer in
                                                                      load_workload("eie_benchmarks").layers}


def test_geomean_error_factor():
    # 10 % fast on one layer and 10 % slow on the other do not cancel
    assert geomean_error_factor([1.1, 1 / 1.1], [1, 1]) == pytest.approx(1.1)
    assert geomean_error_factor([2.0, 3.0], [2.0, 3.0]) == 1


@pytest.mark.parametrize("name", ["eie_benchmarks", "eie_benchmarks_structured"])
def test_benchmark_workloads(name):
    network = load_workload(name)
    table = {layer.name: (layer.k, layer.n, layer.weight_density, layer.input_density) for layer in network.layers}
    assert table == {
        "Alex-6": (9216, 4096, 0.09, 0.351), "Alex-7": (4096, 4096, 0.09, 0.353), "Alex-8": (4096, 1000, 0.25, 0.375),
        "VGG-6": (25088, 4096, 0.04, 0.183), "VGG-7": (4096, 4096, 0.04, 0.375), "VGG-8": (4096, 1000, 0.23, 0.411),
        "NT-We": (4096, 600, 0.10, 1.0), "NT-Wd": (600, 8791, 0.11, 1.0), "NT-LSTM": (1201, 2400, 0.10, 1.0)}
    patterns = {layer.operands.weight_pattern for layer in network.layers}
    assert patterns == ({"unstructured"} if name == "eie_benchmarks" else {"block", "unstructured"})


def test_a_timing_sweep_costs_each_value_as_simulate_layer_does():
    from accel_sim.pipeline.simulate import simulate_layer
    from accel_sim.studies.eie_common import benchmark_layers, eie_arch, timing_sweep
    (layer,) = benchmark_layers(("NT-We",))
    for swept, width, run in timing_sweep("spmat_sram_width", (16, 128), ("NT-We",)):
        direct = simulate_layer(eie_arch(spmat_sram_width=width), layer)
        assert swept == layer and run.result == direct.result and run.energy == direct.energy
