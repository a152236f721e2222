import pytest

from accel_sim import InputError
from accel_sim.foundations.energy import cost, load_energy_table
from accel_sim.foundations.results import ActionCount


@pytest.fixture(scope="module")
def table():
    return load_energy_table("horowitz_45nm")


def test_listed_numbers_come_back_exactly(table):
    assert table.energy_per_action_pj("mult_int", "op", 8) == 0.2
    assert table.energy_per_action_pj("add_int", "op", 32) == 0.1
    assert table.energy_per_action_pj("dram", "read", 32) == 640
    assert table.energy_per_action_pj("sram", "read", 64, 32 * 1024) == pytest.approx(20)


def test_width_and_capacity_scaling_rules(table):
    # adders linear in width, multipliers quadratic, storage per bit
    # 16 bits is equally far (x2) from 8 and 32: the wider entry is scaled (0.1 pJ / 2)
    assert table.energy_per_action_pj("add_int", "op", 16) == pytest.approx(0.05)
    assert table.energy_per_action_pj("mult_int", "op", 4) == pytest.approx(0.05)
    assert table.energy_per_action_pj("dram", "read", 8) == pytest.approx(160)
    # log-log between 8 KiB and 32 KiB: geometric mean at 16 KiB
    assert table.energy_per_action_pj("sram", "read", 64, 16 * 1024) == pytest.approx((10 * 20) ** 0.5)
    # held flat beyond the listed capacities
    assert table.energy_per_action_pj("sram", "read", 64, 4 * 1024**2) == pytest.approx(100)


def test_energy_is_the_sum_of_its_parts(table):
    actions = (ActionCount("dram", "dram", "read", 10, 8), ActionCount("buf", "sram", "write", 7, 8, 8192),
               ActionCount("pe", "mult_int", "op", 100, 8), ActionCount("pe", "add_int", "op", 100, 32))
    breakdown = cost(actions, table)
    assert breakdown.total_pj == pytest.approx(sum(table.energy_pj(a) for a in actions))
    assert breakdown.by_component_pj["pe"] == pytest.approx(100 * 0.2 + 100 * 0.1)


def test_unknown_class_is_a_clear_error(table):
    with pytest.raises(InputError, match="no energy for this component class"):
        table.energy_per_action_pj("flux_capacitor", "transfer", 16)


def test_user_table_is_validated(tmp_path):
    bad = tmp_path / "t.yaml"
    bad.write_text("name: t\nentries:\n  - {class: dram, action: read, bits: 32, energy: 5 pJJ, source: me}\n")
    with pytest.raises(InputError, match=r"entries\[0\]\.energy"):
        load_energy_table(bad)


def test_a_table_is_parsed_once_and_an_edit_is_seen(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("name: t\nentries:\n  - {class: dram, action: read, bits: 32, energy: 5 pJ, source: me}\n")
    first = load_energy_table(path)
    assert load_energy_table(path) is first
    path.write_text("name: t\nentries:\n  - {class: dram, action: read, bits: 32, energy: 7.5 pJ, source: me}\n")
    assert load_energy_table(path).energy_per_action_pj("dram", "read", 32) == 7.5


def test_a_missing_table_names_the_file(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_energy_table(tmp_path / "nope.yaml")
