"""``accel-sim storage`` with a block-scaled format: elements as values, scales as metadata; a reduction
that is not whole blocks and an unknown format are refused in one line, exit 2."""
import pandas as pd

from tests.cli.cli_helpers import assert_one_line_error, run_cli


def workload(tmp_path, k):
    path = tmp_path / "w.yaml"
    path.write_text(f"name: t\nlayers:\n  - {{name: fc1, type: fc, in_features: {k}, out_features: 8}}\n")
    return path


def test_mxfp4_and_nvfp4_storage(tmp_path, capsys):
    out = tmp_path / "s.csv"
    for fmt, metadata in (("mxfp4", 8 * 2 * 8), ("nvfp4", 8 * 4 * 8 + 32)):
        result = run_cli(capsys, "storage", "--workload", workload(tmp_path, 64), "--format", fmt, "--out", out)
        assert result.code == 0, result.err
        row = pd.read_csv(out).iloc[0]
        assert (row.values_bits, row.metadata_bits, row.value_width_bits) == (8 * 64 * 4, metadata, 4)


def test_block_that_does_not_divide_the_reduction(tmp_path, capsys):
    assert_one_line_error(run_cli(capsys, "storage", "--workload", workload(tmp_path, 100), "--format", "mxfp4"),
                          "fc1", "block of 32", "got 100")


def test_unknown_block_format(tmp_path, capsys):
    assert_one_line_error(run_cli(capsys, "storage", "--workload", workload(tmp_path, 64), "--format", "mxfp3"),
                          "--format", "mxfp3", "nvfp4")
