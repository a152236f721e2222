"""Accelergy interchange: an ERT written from a run and read back costs the run identically; a
hand-made ERT / ART costs exactly as written; a bad ERT is one line naming the entry."""
import pytest
import yaml

from accel_sim import InputError, load_arch, load_workload, simulate
from accel_sim.cli.main import main
from accel_sim.foundations.energy import load_energy_table
from accel_sim.pipeline.report.files import write_accelergy
from accel_sim.pipeline.simulate import chip_area


@pytest.mark.parametrize("arch, node", [("eie_4pe_example", 45), ("scalesim_32x32_ws", 16)])
def test_a_run_costed_with_its_own_ert_gives_identical_energy(tmp_path, arch, node):
    network = load_workload("eie_4pe_example" if arch.startswith("eie") else "tiny_conv")
    run = simulate(load_arch(arch, overrides={"technology_node": node}), network)
    paths = write_accelergy(run, tmp_path)
    again = simulate(load_arch(arch, overrides={"technology_node": node, "energy_table": str(paths["ert"])}), network)
    for before, after in zip(run.energy, again.energy):
        assert dict(before.by_component_pj) == dict(after.by_component_pj)    # bit for bit
    counts = yaml.safe_load(paths["action_counts"].read_text())["action_counts"]
    written = sum(c["counts"] for local in counts["subtree"][0]["local"] for c in local["action_counts"])
    assert written == sum(a.count for r in run.layers for a in r.actions)


def test_a_hand_made_ert_costs_exactly_as_written(tmp_path):
    run = simulate(load_arch("eie_4pe_example"), load_workload("eie_4pe_example"))
    ert = {"ERT": {"version": 0.3, "tables": [
        {"name": "system.chip.PE[0..3].spmat_read", "actions": [{"name": "read", "energy": 7.25}]},
        {"name": "sram", "actions": [{"name": "read", "energy": 1.5}, {"name": "write", "energy": 2.0}]},
        *({"name": cls, "actions": [{"name": act, "energy": 0.0}]}
          for cls, act in {(a.component_class, a.action) for r in run.layers for a in r.actions
                           if a.component_class != "sram"}),
    ]}}
    path = tmp_path / "ERT.yaml"
    path.write_text(yaml.safe_dump(ert))
    costed = simulate(load_arch("eie_4pe_example", overrides={"energy_table": str(path)}), load_workload("eie_4pe_example"))
    spmat = sum(a.count for r in run.layers for a in r.actions if a.component == "spmat_read" and a.action == "read")
    assert sum(e.by_component_pj["spmat_read"] for e in costed.energy) == spmat * 7.25
    pointer = sum(a.count for r in run.layers for a in r.actions if a.component == "pointer_read")
    assert sum(e.by_component_pj["pointer_read"] for e in costed.energy) == pointer * 1.5   # by class


def test_a_hand_made_art_gives_area_as_written(tmp_path):
    art = {"ART": {"version": 0.3, "tables": [{"name": "x.spmat_read", "area": 400000}, {"name": "sram", "area": 1000},
                                             {"name": "register", "area": 10}, {"name": "mult_int", "area": 100},
                                             {"name": "add_int", "area": 20}]}}
    path = tmp_path / "ART.yaml"
    path.write_text(yaml.safe_dump(art))
    area = chip_area(load_arch("eie_4pe_example", overrides={"area_table": str(path)}))
    assert area.area_mm2["spmat_read"] == pytest.approx(4 * 400000 / 1e6)
    assert area.area_mm2["arithmetic"] == pytest.approx(4 * (10 + 100 + 20 + 20) / 1e6)


def test_a_negative_ert_energy_is_one_line_naming_the_entry(tmp_path, capsys):
    path = tmp_path / "ERT.yaml"
    path.write_text(yaml.safe_dump({"ERT": {"version": 0.3, "tables": [
        {"name": "a.spmat_read", "actions": [{"name": "read", "energy": -1.0}]}]}}))
    with pytest.raises(InputError):
        simulate(load_arch("eie_4pe_example", overrides={"energy_table": str(path)}), load_workload("eie_4pe_example"))
    code = main(["run", "--arch", "eie_4pe_example", "--workload", "eie_4pe_example", "--set", f"energy_table={path}"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "ERT.tables[0].actions[0].energy (a.spmat_read read): expected an energy in pJ >= 0, got -1.0" in err[0]


def test_an_ert_action_with_energies_for_arguments_we_do_not_count_is_refused(tmp_path):
    path = tmp_path / "ERT.yaml"
    path.write_text(yaml.safe_dump({"ERT": {"version": 0.3, "tables": [{"name": "s.spmat_read", "actions": [
        {"name": "read", "arguments": {"address_delta": 0}, "energy": 1.0},
        {"name": "read", "arguments": {"address_delta": 1}, "energy": 2.0}]}]}}))
    with pytest.raises(InputError, match="action read has 2 energies for different arguments"):
        load_energy_table(path).energy_per_action_pj("spmat_read", "sram", "read", 64, 128 * 1024)
