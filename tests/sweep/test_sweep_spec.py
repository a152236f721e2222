"""Sweep files: expansion modes, and every bad input reported together with file and dotted path."""
import copy
import subprocess
import sys

import pytest
import yaml
from sweep_fakes import REPO, SMALL_SWEEP

from accel_sim.foundations.errors import InputError
from accel_sim.pipeline.sweep import load_sweep, sweep_from_mapping
from accel_sim.pipeline.sweep.expand import Axis, AxisValue, expand, grid_size
from accel_sim.pipeline.sweep.spec import nearest_path


def sweep_with(**changes):
    raw = copy.deepcopy(SMALL_SWEEP)
    for key, value in changes.items():
        if value is None:
            raw.pop(key, None)
        else:
            raw[key] = value
    return raw


def problems_of(raw, file="s.yaml"):
    with pytest.raises(InputError) as info:
        sweep_from_mapping(raw, file)
    return [str(p) for p in info.value.problems]


def plain_axis(name, *values):
    return Axis(name, tuple(AxisValue(v, ((name, v),)) for v in values))


# --- expansion ------------------------------------------------------------------------------

def test_grid_is_every_combination_last_axis_fastest():
    sweep = sweep_from_mapping(SMALL_SWEEP)
    assert len(sweep.points) == 12 and [p.index for p in sweep.points] == list(range(12))
    first, second, last = sweep.points[0], sweep.points[1], sweep.points[-1]
    assert dict(first.overrides) == {"systolic.rows": 8, "systolic.cols": 8, "systolic.dataflow": "os",
                                     "systolic.ifmap_sram.size": "16 KiB"}
    assert dict(second.overrides)["systolic.ifmap_sram.size"] == "64 KiB"
    assert dict(last.overrides)["systolic.rows"] == 16 and dict(last.overrides)["systolic.dataflow"] == "is"
    assert dict(first.labels) == {"array": "8/8", "systolic.dataflow": "os", "systolic.ifmap_sram.size": "16 KiB"}
    assert dict(first.values)["systolic.ifmap_sram.size"] == 16 * 1024   # resolved, base units
    assert sweep.axes == ("array", "systolic.dataflow", "systolic.ifmap_sram.size")
    assert sweep.linked_axes == (("array", ("8/8", "16/16")),)
    assert len(set(p.key for p in sweep.points)) == 12


def test_zip_pairs_the_ith_values():
    raw = sweep_with(mode="zip", axes={"systolic.rows": [8, 16, 32], "systolic.cols": [4, 8, 16]})
    sweep = sweep_from_mapping(raw)
    assert [(p.arch.systolic.rows, p.arch.systolic.cols) for p in sweep.points] == [(8, 4), (16, 8), (32, 16)]


def test_random_draws_distinct_grid_points_reproducibly():
    axes = [plain_axis("a", *range(7)), plain_axis("b", *range(5)), plain_axis("c", *range(3))]
    grid = {p.overrides for p in expand(axes, "grid")}
    draw = expand(axes, "random", samples=40, seed=3)
    assert len(draw) == 40 and len({p.overrides for p in draw}) == 40 and {p.overrides for p in draw} <= grid
    assert draw == expand(axes, "random", samples=40, seed=3)
    assert {p.overrides for p in draw} != {p.overrides for p in expand(axes, "random", samples=40, seed=4)}
    order = [p.overrides for p in expand(axes, "grid")]
    assert [order.index(p.overrides) for p in draw] == sorted(order.index(p.overrides) for p in draw)
    assert len(expand(axes, "random", samples=grid_size(axes), seed=0)) == 105


def test_random_mode_from_a_sweep_file():
    sweep = sweep_from_mapping(sweep_with(mode="random", samples=5, seed=1))
    assert len(sweep.points) == 5 and len(set(sweep.unique_keys())) == 5


def test_explicit_points_and_duplicate_configs_share_a_key():
    points = [{"systolic.rows": 8}, {"systolic.rows": 16, "systolic.dataflow": "os"}, {"systolic.rows": 8}]
    sweep = sweep_from_mapping(sweep_with(axes=None, points=points))
    assert len(sweep.points) == 3 and sweep.points[0].key == sweep.points[2].key
    assert len(sweep.unique_keys()) == 2
    assert sweep.varied_paths == ("systolic.rows", "systolic.dataflow") == sweep.axes
    assert dict(sweep.points[0].values) == {"systolic.rows": 8, "systolic.dataflow": "ws"}  # base value filled in


def test_fixed_overrides_apply_to_every_point():
    sweep = sweep_from_mapping(sweep_with(overrides={"dram.bandwidth_mode": "user", "clock": "500 MHz"}))
    assert {(p.arch.dram.bandwidth_mode, p.arch.clock) for p in sweep.points} == {("user", 5e8)}


def test_relative_paths_resolve_against_the_sweep_folder_first(tmp_path):
    (tmp_path / "mine.yaml").write_text("extends: scalesim_32x32_ws\nname: mine\nsystolic: {rows: 4}\n")
    (tmp_path / "net.yaml").write_text(yaml.safe_dump({"name": "one", "layers": [
        {"name": "g", "type": "gemm", "m": 4, "k": 4, "n": 4}]}))
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(sweep_with(arch="mine", workload="net.yaml",
                                                               axes={"systolic.cols": [2, 4]})))
    sweep = load_sweep(tmp_path / "s.yaml")
    assert sweep.arch_file == tmp_path / "mine.yaml" and sweep.network.name == "one"
    assert [(p.arch.name, p.arch.systolic.rows, p.arch.systolic.cols) for p in sweep.points] == [
        ("mine", 4, 2), ("mine", 4, 4)]


def test_shipped_sweep_files_load():
    big = load_sweep(REPO / "sweeps" / "systolic_resnet18_200.yaml")
    assert len(big.points) == 200 == len(big.unique_keys())
    assert {p.arch.systolic.dataflow for p in big.points} == {"os", "ws"}
    assert len({p.arch.systolic.rows for p in big.points}) == 5
    assert len({p.arch.systolic.ifmap_sram.size for p in big.points}) == 20
    assert len(load_sweep(REPO / "sweeps" / "systolic_small.yaml").points) == 18


# --- bad input -----------------------------------------------------------------------------

def test_unknown_axis_path_names_the_nearest_valid_one():
    problems = problems_of(sweep_with(axes={"systolic.rowz": [8, 16]}))
    assert problems == ["s.yaml: axes.systolic.rowz: unknown arch field 'systolic.rowz'; "
                        "nearest valid path: 'systolic.rows'"]
    assert "nearest valid path: 'systolic.ifmap_sram.size'" in problems_of(
        sweep_with(axes={"systolic.ifmap_sram.sise": [1]}))[0]
    assert "nearest valid path: 'systolic.dataflow'" in problems_of(sweep_with(axes={"dataflow": ["os"]}))[0]


def test_every_problem_is_reported_together():
    axes = {"systolic.rowz": [8, 16], "systolic.dataflow": [], "systolic.cols": [8, 16, 32],
            "array": [{"systolic.rows": 8}, {"systolic.colz": 8}], "systolic.word_bits": [8]}
    problems = problems_of(sweep_with(mode="zip", axes=axes, seed=3))
    expected = [
        "s.yaml: axes.systolic.rowz: unknown arch field 'systolic.rowz'; nearest valid path: 'systolic.rows'",
        "s.yaml: axes.systolic.dataflow: empty axis: give at least one value",
        "s.yaml: axes.array[1].systolic.colz: unknown arch field 'systolic.colz'; nearest valid path: 'systolic.cols'",
        "s.yaml: axes.systolic.word_bits: unknown arch field 'systolic.word_bits'; nearest valid path: 'word_bits'",
        "s.yaml: seed: only used with mode: random",
    ]
    for line in expected:
        assert line in problems
    assert any(p.startswith("s.yaml: axes.array: has 2 values but axes.systolic.cols has 3; zip mode")
               for p in problems)


def test_bad_values_name_the_axis_entry_and_the_point():
    problems = problems_of(sweep_with(axes={"systolic.rows": [8, 0], "systolic.dataflow": ["os", "sideways"]}))
    assert any(p.startswith("s.yaml: axes.systolic.rows[1]: expected a value > 0, got 0 (arch field systolic.rows, "
                            "point 2:") for p in problems)
    assert any(p.startswith("s.yaml: axes.systolic.dataflow[1]: expected one of os, ws, is; got 'sideways'")
               for p in problems)
    assert len(problems) == 2   # each bad value once, not once per point


def test_structure_errors_come_from_the_schema():
    problems = problems_of(sweep_with(axis={"systolic.rows": [1]}, metrics=["edp", "speed"]))
    assert "s.yaml: axis: unknown field; did you mean 'axes'?" in problems
    assert any(p.startswith("s.yaml: metrics[1]: expected one of edp,") for p in problems)
    assert problems_of(sweep_with(axes={"systolic.rows": 8})) == [
        "s.yaml: axes.systolic.rows: expected a list, got int"]
    assert problems_of(sweep_with(name=None)) == ["s.yaml: name: required field is missing "
                                                  "(Short name of the sweep, used in reports and the result store.)"]


@pytest.mark.parametrize("changes, expected", [
    ({"axes": {}}, "s.yaml: axes: no axes"),
    ({"axes": None}, "s.yaml: axes: give either 'axes' or 'points'"),
    ({"points": [{"systolic.rows": 4}]}, "s.yaml: axes: give either 'axes' or 'points'"),
    ({"axes": None, "points": [{"systolic.rows": 4}, {"systolic.rowz": 4}]},
     "s.yaml: points[1].systolic.rowz: unknown arch field 'systolic.rowz'; nearest valid path: 'systolic.rows'"),
    ({"mode": "random"}, "s.yaml: samples: mode random needs samples"),
    ({"mode": "random", "samples": 13}, "s.yaml: samples: 13 is more than the 12 distinct points of the grid"),
    ({"axes": {"systolic.rows": [8, 16, 8]}}, "s.yaml: axes.systolic.rows[2]: value 8 repeats axes.systolic.rows[0]"),
    ({"overrides": {"systolic.rows": 4}}, "s.yaml: overrides.systolic.rows: also varied by the sweep"),
    ({"overrides": {"systolic.rowz": 4}}, "s.yaml: overrides.systolic.rowz: unknown arch field"),
    ({"arch": "no_such_arch"}, "s.yaml: arch: no_such_arch: file not found"),
    ({"workload": "no_such_net"}, "s.yaml: workload: no_such_net: file not found"),
])
def test_bad_sweep_files(changes, expected):
    problems = problems_of(sweep_with(**changes))
    assert any(p.startswith(expected) for p in problems), problems


def test_nearest_path_always_names_a_valid_path():
    assert nearest_path("rows", ("name", "systolic.rows", "systolic.cols")) == "systolic.rows"
    assert nearest_path("systolic.ofmap_sram.bankz", ("systolic.ofmap_sram.banks", "systolic.ifmap_sram.banks")) \
        == "systolic.ofmap_sram.banks"


def test_cli_bad_sweep_exits_2_with_one_line_per_problem(tmp_path):
    file = tmp_path / "bad.yaml"
    file.write_text(yaml.safe_dump(sweep_with(axes={"systolic.rowz": [8], "systolic.dataflow": []}), sort_keys=False))
    proc = subprocess.run([sys.executable, "-m", "accel_sim", "sweep", str(file), "--out", str(tmp_path / "o")],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines == [f"accel-sim: error: {file}: axes.systolic.rowz: unknown arch field 'systolic.rowz'; "
                     "nearest valid path: 'systolic.rows'",
                     f"accel-sim: error: {file}: axes.systolic.dataflow: empty axis: give at least one value"]
    assert not (tmp_path / "o").exists()
