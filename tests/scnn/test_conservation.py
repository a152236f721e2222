"""Conservation laws of the SCNN model beyond the refinement files (issue 5): channel chunks change
no product; energy is the sum of its parts."""
import dataclasses

import pytest

from accel_sim import load_arch, simulate
from accel_sim.foundations.energy import load_energy_table
from accel_sim.models.scnn.family import FAMILY
from accel_sim.foundations.workload import ConvLayer, Network
from tests.scnn._layers import chunked_case


def test_channel_chunks_change_no_product():
    """An FC / GEMM layer has one temporal tile whatever the IARAM: chunking its channels leaves the
    products, Kc and the useful MACs unchanged, and its loads make it no faster."""
    chunked_gemms = 0
    for seed in range(40):
        arch, layer = chunked_case(seed)
        if layer.kind != "gemm":
            continue
        roomy = load_arch("scnn", {f"scnn.{field.name}": getattr(arch.scnn, field.name)
                                   for field in dataclasses.fields(arch.scnn) if field.name != "iaram_size"})
        chunked, whole = FAMILY.layer_result(arch, layer), FAMILY.layer_result(roomy, layer)
        assert whole.metrics["channel_chunks"] == 1
        for metric in ("products_issued", "kc", "output_groups", "temporal_tiles"):
            assert chunked.metrics[metric] == whole.metrics[metric], (seed, metric)
        assert chunked.macs_issued == whole.macs_issued
        assert chunked.cycles >= whole.cycles, seed
        chunked_gemms += chunked.metrics["channel_chunks"] > 1
    assert chunked_gemms >= 10


def test_energy_is_the_sum_of_its_parts_and_runs_are_deterministic():
    arch = load_arch("scnn")
    layer = ConvLayer("c", in_h=20, in_w=20, in_channels=16, out_channels=32, kernel_h=3, kernel_w=3, pad_top=1,
                      pad_bottom=1, pad_left=1, pad_right=1, weight_density=0.4, input_density=0.5)
    network = Network("n", (layer,))
    run = simulate(arch, network)
    table = load_energy_table(arch.energy_table)
    energy = run.energy[0]
    assert energy.total_pj == pytest.approx(sum(table.energy_pj(a) for a in run.layers[0].actions))
    assert {"multipliers", "crossbar", "accumulator_banks", "iaram", "oaram", "weight_fifo", "halo_links",
            "ppu", "dram"} <= set(energy.by_component_pj)
    assert all(v >= 0 for v in energy.by_component_pj.values())
    assert simulate(arch, network).layers_frame().equals(run.layers_frame())
