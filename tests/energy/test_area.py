"""Area, leakage and technology scaling: priced after the run from the area table, never in models."""
import math

import pytest
import yaml

from accel_sim import InputError, load_arch, load_workload, simulate
from accel_sim.cli.main import main
from accel_sim.foundations.energy.area import area_of, static_energy
from accel_sim.foundations.energy.area_table import load_area_table
from accel_sim.foundations.energy.technology import scale_factors
from accel_sim.foundations.results.components import Component
from accel_sim.pipeline.simulate import chip_area

EIE_MM2, SCNN_MM2, BAR = 40.8, 7.9, 0.20   # Han et al. ISCA 2016; Parashar et al. ISCA 2017 (16 nm)


@pytest.fixture(scope="module")
def table():
    return load_area_table("cacti_aladdin_45nm_area")


def test_eie_and_scnn_chip_areas_from_the_tables_alone():
    eie = chip_area(load_arch("eie")).total_mm2
    scnn = chip_area(load_arch("scnn", overrides={"technology_node": 16})).total_mm2
    assert abs(eie / EIE_MM2 - 1) <= BAR, eie
    assert abs(scnn / SCNN_MM2 - 1) <= BAR, scnn


def test_listed_entries_come_back_and_scale_by_their_rules(table):
    sram = table.block(Component("b", "sram", 1, 64, 128 * 1024))
    assert sram.area_um2 == pytest.approx(0.429589e6)           # CACTI 128 KiB, 64-bit row
    assert sram.leakage_uw == pytest.approx(3.341, rel=1e-3)
    double = table.block(Component("b", "sram", 1, 64, 2 * 1024 * 1024))   # beyond the table: linear
    assert double.area_um2 == pytest.approx(2 * table.block(Component("b", "sram", 1, 64, 1024 * 1024)).area_um2)
    mult32, mult16 = (table.block(Component("m", "mult_int", 1, bits)).area_um2 for bits in (32, 16))
    assert mult16 == pytest.approx(mult32 / 4)                   # quadratic in width
    assert mult32 == pytest.approx(6350 * scale_factors(40, 45).area)   # Aladdin 40 nm, scaled to 45 nm
    crossbar = table.block(Component("x", "crossbar", 1, 24, ports=16 * 32)).area_um2
    assert crossbar == pytest.approx(table.block(Component("x", "crossbar", 1, 1)).area_um2 * 24 * 16 * 32)


def test_area_and_static_energy_are_sums_of_parts(table):
    blocks = (Component("a", "register", 3, 16), Component("a", "add_int", 2, 32), Component("s", "sram", 4, 16, 4096))
    breakdown = area_of(blocks, table, 45)
    one = {c: table.block(c) for c in blocks}
    assert breakdown.area_mm2["a"] == pytest.approx((3 * one[blocks[0]].area_um2 + 2 * one[blocks[1]].area_um2) / 1e6)
    assert breakdown.total_mm2 == pytest.approx(sum(breakdown.area_mm2.values()))
    static = static_energy(breakdown, 2e-3)
    assert static.total_pj == pytest.approx(breakdown.total_leakage_uw * 2e-3 * 1e6)   # uW x s -> pJ


def test_technology_node_scales_area_energy_and_static_energy():
    arch45, arch16 = load_arch("scnn"), load_arch("scnn", overrides={"technology_node": 16})
    factors = scale_factors(45, 16)
    assert factors.area == 0.19 and factors.delay == pytest.approx(16 / 45)   # Stillmaker & Baas, classical delay
    assert chip_area(arch16).total_mm2 == pytest.approx(chip_area(arch45).total_mm2 * 0.19)
    network = load_workload("tiny_conv")
    run45, run16 = simulate(arch45, network), simulate(arch16, network)
    assert run16.summary_row()["energy_pj"] == pytest.approx(run45.summary_row()["energy_pj"] * factors.energy)
    assert run16.summary_row()["cycles"] == run45.summary_row()["cycles"]   # the clock is the config's


def test_summary_reports_area_leakage_and_static_energy_beside_dynamic():
    run = simulate(load_arch("scalesim_32x32_ws"), load_workload("tiny_conv"))
    row = run.summary_row()
    assert row["area_mm2"] == pytest.approx(sum(v for k, v in row.items() if k.startswith("area_") and k != "area_mm2"))
    seconds = row["cycles"] / run.arch.clock
    assert row["static_energy_pj"] == pytest.approx(row["leakage_power_uw"] * seconds * 1e6)
    assert row["energy_pj"] == pytest.approx(sum(v for k, v in row.items() if k.startswith("energy_") and k != "energy_pj"))


def test_a_family_without_blocks_reports_no_area():
    row = simulate(load_arch("pe_array"), load_workload("tiny_conv")).summary_row()
    assert not [k for k in row if k.startswith("area") or k == "static_energy_pj"]


def test_a_block_the_area_table_lacks_is_one_line_naming_it(tmp_path, capsys):
    source = load_area_table("cacti_aladdin_45nm_area").file
    raw = yaml.safe_load(open(source))
    raw["entries"] = [e for e in raw["entries"] if e["class"] != "mult_int"]
    path = tmp_path / "no_mult.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(InputError, match="no area for component 'arithmetic' \\(class mult_int, used by arch eie\\)"):
        chip_area(load_arch("eie", overrides={"area_table": str(path)}))
    code = main(["run", "--arch", "eie", "--workload", "eie_4pe_example", "--set", f"area_table={path}",
                 "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "'arithmetic' (class mult_int" in err[0]


def test_an_unknown_node_is_one_line(capsys, tmp_path):
    code = main(["run", "--arch", "eie", "--workload", "eie_4pe_example", "--set", "technology_node=17",
                 "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "technology_node: expected one of" in err[0] and "got 17" in err[0]
    assert not math.isnan(scale_factors(45, 22).area)


def test_area_breakdown_study_compares_both_chips_and_their_modules():
    from accel_sim.studies.area_breakdown import area_breakdown
    output = area_breakdown.run() if hasattr(area_breakdown, "run") else area_breakdown()
    chips = [c for c in output.comparisons if "chip area" in c.quantity]
    assert len(chips) == 2 and all(c.within_tolerance for c in chips)
    modules = [c for c in output.comparisons if "per PE" in c.quantity]
    assert len(modules) == 10                    # every modelled module of both papers' breakdowns
    eie = output.results[output.results["chip"].str.startswith("EIE")]
    assert eie["simulated_mm2"].sum() * 64 == pytest.approx(chip_area(load_arch("eie")).total_mm2)
