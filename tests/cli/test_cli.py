"""The command line: a run writes its report; bad input exits 2 with one line per problem."""
import subprocess
import sys

import pandas as pd
import pytest

from accel_sim.cli.main import main

REQUIRED_COLUMNS = ["layer", "cycles", "compute_cycles", "stall_cycles", "macs_dense", "macs_issued", "utilization",
                    "energy_pj", "dram_read_bytes", "dram_write_bytes", "sram_read_bytes", "sram_write_bytes", "time_s"]


def test_run_writes_report(tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["run", "--arch", "scalesim_32x32_ws", "--workload", "tiny_conv", "--out", str(out)]) == 0
    layers = pd.read_csv(out / "layers.csv")
    assert list(layers.columns[:len(REQUIRED_COLUMNS) + 1]) == REQUIRED_COLUMNS[:6] + ["macs_skipped"] + REQUIRED_COLUMNS[6:]
    summary = pd.read_csv(out / "summary.csv")
    for column in ("cycles", "energy_pj", "dram_read_bytes", "macs_dense"):
        assert summary[column].iloc[0] == pytest.approx(layers[column].sum())
    assert (out / "config.resolved.yaml").read_text().startswith("arch:")
    assert (out / "layers.svg").read_text().startswith("<svg")
    printed = capsys.readouterr().out
    assert "total:" in printed and layers["layer"].iloc[0] in printed


def test_override_changes_the_result(tmp_path, capsys):
    args = ["run", "--arch", "scalesim_32x32_ws", "--workload", "tiny_conv", "--no-figure"]
    main(args + ["--out", str(tmp_path / "a")])
    main(args + ["--set", "systolic.rows=8", "--out", str(tmp_path / "b")])
    a, b = (pd.read_csv(tmp_path / d / "layers.csv") for d in "ab")
    assert (b["compute_cycles"] >= a["compute_cycles"]).all() and (b["compute_cycles"] > a["compute_cycles"]).any()


@pytest.mark.parametrize("args, expected", [
    (["--arch", "no_such_arch"], "no_such_arch: file not found, neither as a path nor as a name in"),
    (["--arch", "no_such_arch"], "(names there: ampere_a100, "),
    (["--workload", "no_such_net"], "no_such_net: file not found"),
    (["--workload", "no_such_net"], "workloads (names there: alexnet, "),
    (["--set", "systolic.rows=0"], "--set (on "),
    (["--set", "systolic.rows=0"], "systolic.rows: expected a value > 0"),
    (["--set", "systolic.rowz=8"], "systolic.rowz: unknown field; did you mean 'rows'?"),
    (["--set", "nonsense"], "expected dotted.path=value"),
])
def test_bad_input_exits_2_with_one_line(args, expected):
    proc = subprocess.run([sys.executable, "-m", "accel_sim", "run", "--workload", "tiny_conv", *args],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr
