"""The eyeriss study's per-layer VGG-16 figures against Table VI's own totals, and the model's AlexNet CONV5 power
split against what Chen et al., JSSC 2017, Sec. VI-A say of the chip's (Fig. 16, post-layout): ALUs under 10 %,
data movement (spads, global buffer, NoC) at most 45 %, the clock network above the spads."""
import dataclasses

import pytest

from accel_sim.foundations.workload.loader import load_workload
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.simulate import simulate
from accel_sim.studies.eyeriss import VGG16_TABLE_VI


def test_table_vi_layers_add_up_to_the_tables_totals():
    """Table VI's total row: 4309.5 ms, 3755.2 ms processing, 11035.8 MB of global-buffer accesses, 321.1 MB of DRAM
    accesses, 236 mW; the layers as the table's image prints them add up to each within its last digit's rounding."""
    total = sum(row[1] for row in VGG16_TABLE_VI)
    assert total == pytest.approx(4309.5, abs=0.15)
    assert sum(row[2] for row in VGG16_TABLE_VI) == pytest.approx(3755.2, abs=0.15)
    assert sum(row[4] for row in VGG16_TABLE_VI) == pytest.approx(11035.8, abs=0.15)
    assert sum(row[5] for row in VGG16_TABLE_VI) == pytest.approx(321.1, abs=0.25)
    assert sum(row[1] * row[6] for row in VGG16_TABLE_VI) / total == pytest.approx(236, abs=0.5)
    assert all(row[2] <= row[1] for row in VGG16_TABLE_VI)
    assert [row[0] for row in VGG16_TABLE_VI] == [layer.name for layer in load_workload("eyeriss_vgg16_conv").layers]


def test_conv5_power_split_meets_the_papers_statements():
    network = load_workload("eyeriss_alexnet_conv")
    network = dataclasses.replace(network, layers=tuple(layer for layer in network.layers if layer.name == "conv5"))
    row = simulate(load_arch("eyeriss_v1"), network).layer_rows()[0]
    chip = row["energy_pj"] + row["static_energy_pj"] - row["energy_dram_pj"]
    moving = row["energy_spads_pj"] + row["energy_glb_pj"] + row["energy_array_network_pj"]
    assert row["energy_pe_array_pj"] < 0.10 * chip
    assert moving <= 0.45 * chip
    assert row["energy_clock_network_pj"] > row["energy_spads_pj"]
