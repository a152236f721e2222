"""The small slips a newcomer met, each held: tutorial count in the README, --out's help (SVG), whole
layer names and an x-axis title in layers.svg, the printed columns explained (util, dynamic energy, DRAM
writes per fold) there and in the user guide, progress lines under --set, --reference not silent before
its first layer ends, in_features named as written, size errors naming the config's file."""
import re
from pathlib import Path

from accel_sim.cli.main import build_parser, main
from accel_sim.pipeline.plot.layers_svg import X_TITLE, layer_overview_svg

REPO = Path(__file__).resolve().parents[2]
WORDS = {4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}


def test_readme_counts_the_tutorials():
    count = len(list((REPO / "tutorials").glob("[0-9][0-9]_*.py")))
    assert f"(`tutorials/README.md`): {WORDS[count]} scripts" in (REPO / "README.md").read_text()


def test_run_help_says_the_figure_is_svg():
    run = build_parser()._subparsers._group_actions[0].choices["run"]
    text = run.format_help()
    assert "PNG" not in text and "layers.svg" in " ".join(text.split())


def test_layer_names_are_whole_and_the_x_axis_has_a_title():
    long = "encoder.layer.11.attention.self.query_projection"
    row = {"layer": long, "compute_cycles": 5, "stall_cycles": 1, "energy_dram_pj": 3.0}
    svg = layer_overview_svg([row], "t")
    assert f">{long}</text>" in svg and X_TITLE in svg
    height = float(re.search(r'height="(\d+)"', svg).group(1))
    assert height > 40 + 220 + 30 + 220 + 6.5 * len(long)  # room for the rotated name under the panels


def test_printed_columns_are_explained(capsys):
    assert main(["run", "--workload", "tiny_conv"]) == 0
    out = capsys.readouterr().out
    assert "util: MACs issued" in out and "dynamic energy" in out and "once per fold" in out
    guide = (REPO / "docs" / "user_guide.md").read_text()
    assert "dynamic energy only" in guide and "SCALE-Sim's convention" in guide and "`util`" in guide


def test_progress_under_set_names_the_override_and_reference_says_when_a_layer_starts(capsys):
    assert main(["run", "--workload", "tiny_conv", "--reference", "--set", "systolic.rows=64"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "tiny_conv on tpu_like_128x128_ws with --set systolic.rows=64: layer 1/3 (conv1) started"
    assert all("with --set systolic.rows=64" in line for line in err)


def test_negative_in_features_is_named_as_written(tmp_path, capsys):
    path = tmp_path / "w.yaml"
    path.write_text("name: t\nlayers:\n  - {name: f, type: fc, in_features: -64, out_features: 16}\n")
    assert main(["run", "--workload", str(path)]) == 2
    err = capsys.readouterr().err
    assert "layers[0].in_features" in err and "-64" in err and "k must" not in err


def test_size_errors_name_the_config_file(tmp_path, capsys):
    path = tmp_path / "w.yaml"
    path.write_text("name: t\nlayers:\n  - {name: g, type: gemm, m: 100000, k: 100000, n: 100000}\n")
    assert main(["run", "--arch", "pe_array", "--workload", str(path)]) == 2
    err = capsys.readouterr().err
    assert "arch_configs/pe_array.yaml" in err, err
