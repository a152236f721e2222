"""Arch configs: every shipped file loads; bad input names the file and field, all at once."""
from pathlib import Path

import pytest

from accel_sim import InputError, load_arch
from accel_sim.foundations.config.loader import ARCH_DIR

SHIPPED = sorted(ARCH_DIR.glob("*.yaml"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_config_loads(path):
    arch = load_arch(path)
    assert arch.name == path.stem
    assert getattr(arch, arch.family) is not None


def test_extends_merges_nested_sections():
    ws, os_ = load_arch("tpu_like_128x128_ws"), load_arch("tpu_like_128x128_os")
    assert os_.systolic.dataflow == "os"
    assert os_.systolic.ifmap_sram == ws.systolic.ifmap_sram
    assert os_.systolic.rows == ws.systolic.rows == 128


def test_units_are_parsed_once_into_base_units():
    arch = load_arch("tpu_like_128x128_ws")
    assert arch.systolic.ifmap_sram.size == 6144 * 1024
    assert arch.clock == 1e9


def test_overrides_apply_before_validation():
    arch = load_arch("tpu_like_128x128_ws", {"systolic.rows": 64, "dram.bandwidth_mode": "user"})
    assert arch.systolic.rows == 64 and arch.dram.bandwidth_mode == "user"
    with pytest.raises(InputError, match="systolic.rows"):
        load_arch("tpu_like_128x128_ws", {"systolic.rows": -3})


def write(tmp_path: Path, text: str, name: str = "arch.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


BASE = """name: t
family: systolic
systolic:
  rows: 8
  cols: 8
  dataflow: ws
  ifmap_sram: {size: 8 KiB}
  filter_sram: {size: 8 KiB}
  ofmap_sram: {size: 8 KiB}
"""


@pytest.mark.parametrize("text, path, expected", [
    (BASE + "colour: red\n", "colour", "unknown field"),
    (BASE.replace("rows: 8", "rowz: 8"), "systolic.rowz", "did you mean 'rows'"),
    (BASE.replace("8 KiB}\n  filter", "8 KiX}\n  filter"), "systolic.ifmap_sram.size", "unknown unit"),
    (BASE + "clock: 800 Mhz\n", "clock", "unknown unit 'Mhz'"),
    (BASE.replace("rows: 8", "rows: 0"), "systolic.rows", "> 0"),
    (BASE.replace("cols: 8", "cols: -4"), "systolic.cols", "> 0"),
    (BASE.replace("dataflow: ws", "dataflow: xs"), "systolic.dataflow", "one of os, ws, is"),
    (BASE.replace("rows: 8", "rows: eight"), "systolic.rows", "expected an integer"),
    (BASE.replace("family: systolic", "family: tpu"), "family", "one of systolic"),
    ("name: t\nfamily: systolic\n", "", "needs a 'systolic:' section"),
    (BASE.replace("  ofmap_sram: {size: 8 KiB}\n", ""), "systolic.ofmap_sram", "required field is missing"),
    (BASE + "dram: {bandwidth: 10 B/fortnight}\n", "dram.bandwidth", "per 'cycle' or per 's'"),
    (BASE.replace("dataflow: ws", "dataflow: os") + "  nm_sparsity: true\n", "systolic", "weight stationary|'ws' only"),
])
def test_bad_field_is_named_with_file_and_path(tmp_path, text, path, expected):
    file = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        load_arch(file)
    matching = [p for p in info.value.problems if p.path == path or (not path and p.path in ("", "(top level)"))]
    assert matching, f"no problem at {path!r}: {info.value.problems}"
    assert all(p.file == str(file) for p in info.value.problems)
    import re
    assert any(re.search(expected, p.message) for p in matching), matching


def test_all_problems_are_reported_together(tmp_path):
    text = BASE.replace("rows: 8", "rows: 0").replace("cols: 8", "cols: x") + "extra: 1\nclock: 3 parsecs\n"
    with pytest.raises(InputError) as info:
        load_arch(write(tmp_path, text))
    assert {p.path for p in info.value.problems} == {"systolic.rows", "systolic.cols", "extra", "clock"}


def test_malformed_yaml_names_the_line(tmp_path):
    with pytest.raises(InputError) as info:
        load_arch(write(tmp_path, "name: x\n  bad: [\n"))
    (problem,) = info.value.problems
    assert problem.path.startswith("line 2") and "malformed YAML" in problem.message


def test_missing_file_and_missing_parent(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        load_arch(tmp_path / "nope.yaml")
    with pytest.raises(InputError, match="extends: no config named 'nope'"):
        load_arch(write(tmp_path, "extends: nope\n"))


def test_circular_extends_is_an_error(tmp_path):
    write(tmp_path, "extends: b.yaml\n", "a.yaml")
    write(tmp_path, "extends: a.yaml\n", "b.yaml")
    with pytest.raises(InputError, match="circular"):
        load_arch(tmp_path / "a.yaml")


def test_yaml_tags_are_not_executed(tmp_path):
    with pytest.raises(InputError, match="malformed YAML"):
        load_arch(write(tmp_path, "name: !!python/object/apply:os.system ['true']\n"))
