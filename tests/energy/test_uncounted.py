"""A config's uncounted_blocks (blocks no action counts, at their shares of the chip's power in a published
breakdown) are charged after counting: share / (1 - the shares' sum) x the counted on-chip energy; the DRAM is
not part of the chip. Worked by hand, then on Eyeriss v1 (Chen et al., JSSC 2017, Fig. 16)."""
from __future__ import annotations

import pytest

from accel_sim import InputError, load_arch
from accel_sim.foundations.energy.cost import EnergyBreakdown, with_uncounted
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.pipeline.simulate import simulate


def test_blocks_take_their_shares_of_the_chip_by_hand():
    energy = EnergyBreakdown({"dram": 100.0, "spads": 60.0, "clock": 20.0})
    out = with_uncounted(energy, [("control", 0.1), ("pads", 0.1)])
    # on chip 60 + 20 = 80 pJ is 1 - 0.2 of the chip: the chip is 100 pJ, each block 0.1 x 100 = 10 pJ
    assert out.by_component_pj["control"] == pytest.approx(10.0)
    assert out.by_component_pj["pads"] == pytest.approx(10.0)
    assert out.total_pj == pytest.approx(200.0)          # energy = sum of parts, the DRAM's 100 pJ untouched
    assert {k: out.by_component_pj[k] for k in energy.by_component_pj} == dict(energy.by_component_pj)
    assert with_uncounted(energy, []) is energy


def test_eyeriss_v1_blocks_are_the_fig16_shares_of_its_dynamic_chip_energy():
    network = load_workload("tiny_conv")
    arch = load_arch("eyeriss_v1")
    row = simulate(arch, network).summary_row()
    bare = simulate(load_arch("eyeriss_v1", overrides={"uncounted_blocks": []}), network).summary_row()
    blocks = {b.block: b.share for b in arch.uncounted_blocks}
    assert sum(blocks.values()) == pytest.approx(0.1365)   # 9.65 + 1.8 + 2.1 + 0.1 % (Fig. 16, mean of CONV1, CONV5)
    counted_chip = bare["energy_pj"] - bare["energy_dram_pj"]
    chip = row["energy_pj"] - row["energy_dram_pj"]
    assert chip == pytest.approx(counted_chip / (1 - 0.1365), rel=1e-12)
    for block, share in blocks.items():
        assert row[f"energy_{block}_pj"] == pytest.approx(share * chip, rel=1e-12)
    assert row["cycles"] == bare["cycles"] and row["static_energy_pj"] == bare["static_energy_pj"]
    assert "energy_pe_control_pj" not in simulate(load_arch("eyeriss_v2"), network).summary_row()


def test_shares_that_leave_nothing_to_the_counted_blocks_are_refused():
    blocks = [{"block": "a", "share": 0.6, "source": "x"}, {"block": "b", "share": 0.5, "source": "y"}]
    with pytest.raises(InputError, match="uncounted_blocks: the shares add up to 1.1"):
        load_arch("eyeriss_v1", overrides={"uncounted_blocks": blocks})
