"""Per-layer precision on the command line: a binary layer whose operand file is not binary, an
unknown precision name and a precision the chosen array lacks are refused in one line, exit 2;
a good binary file runs."""
import numpy as np

from tests.cli.cli_helpers import assert_one_line_error, run_cli


def workload(tmp_path, precision, payload=None):
    extra = f", operands: {payload}" if payload else ""
    path = tmp_path / "w.yaml"
    path.write_text("name: t\nlayers:\n"
                    f"  - {{name: fc1, type: fc, in_features: 16, out_features: 8, precision: {precision}{extra}}}\n")
    return path


def test_binary_layer_with_a_non_binary_operand_file(tmp_path, capsys):
    np.savez(tmp_path / "w.npz", weights=np.random.default_rng(0).standard_normal((16, 8)).astype(np.float32))
    line = assert_one_line_error(run_cli(capsys, "run", "--arch", "lowbit", "--workload",
                                         workload(tmp_path, "binary", "w.npz")),
                                 "w.npz", "weights", "precision binary", "+/-alpha per filter", "filter 0")
    assert "layers[0] (fc1)" in line


def test_ternary_layer_with_two_magnitudes_in_a_filter(tmp_path, capsys):
    weights = np.zeros((16, 8), dtype=np.float32)
    weights[0, :], weights[1, :], weights[2, 3] = 0.5, -0.5, 0.25
    np.savez(tmp_path / "w.npz", weights=weights)
    assert_one_line_error(run_cli(capsys, "run", "--arch", "lowbit", "--workload",
                                  workload(tmp_path, "ternary", "w.npz")), "precision ternary", "filter 3")


def test_binary_operand_file_runs(tmp_path, capsys):
    signs = np.where(np.random.default_rng(1).standard_normal((16, 8)) >= 0, 0.5, -0.5).astype(np.float32)
    np.savez(tmp_path / "w.npz", weights=signs)
    result = run_cli(capsys, "run", "--arch", "lowbit", "--workload", workload(tmp_path, "binary", "w.npz"))
    assert result.code == 0, result.err


def test_unknown_precision_name(tmp_path, capsys):
    assert_one_line_error(run_cli(capsys, "run", "--arch", "lowbit", "--workload", workload(tmp_path, "int3")),
                          "layers[0].precision", "expected one of", "binary", "log2", "'int3'")


def test_precision_the_array_lacks(tmp_path, capsys):
    assert_one_line_error(run_cli(capsys, "run", "--arch", "dlu", "--workload", workload(tmp_path, "log2")),
                          "fc1", "precision", "log2 is not a dlu data type")
    assert_one_line_error(run_cli(capsys, "run", "--arch", "lowbit", "--workload", workload(tmp_path, "fp16")),
                          "fc1", "no fp16 datapath")
