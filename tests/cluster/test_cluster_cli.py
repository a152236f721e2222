"""``accel-sim cluster``: what it prints, and one line with exit 2 for each of issue 18's bad inputs."""
import pytest

from tests.cli.cli_helpers import assert_one_line_error, run_cli

CONFIG = "dlu_64_edr"


@pytest.mark.parametrize("override, field, expected", [
    ("devices=0", "devices", "expected a value > 0, got 0"),
    ("gradients.bucket=1GiB", "gradients.bucket", "larger than the whole gradient of alexnet_dense"),
    ("network.bandwidth=0 Gb/s", "network.bandwidth", "expected a value > 0"),
    ("host.pcie_bandwidth=0", "host.pcie_bandwidth", "expected a value > 0"),
    ("device.memory=1 MiB", "device.memory", "cannot hold even the smallest layer of alexnet_dense"),
    ("network.topology=mesh", "network.topology", "expected one of ring, tree, parameter_server"),
    ("host.memory_bandwidth=0 GB/s", "host.memory_bandwidth", "expected a value > 0"),
    ("host.devices_per_switch=0", "host.devices_per_switch", "expected a value > 0, got 0"),
])
def test_bad_cluster_input_is_one_line_exit_2(capsys, override, field, expected):
    line = assert_one_line_error(run_cli(capsys, "cluster", CONFIG, "--set", override), f": {field}: ", expected)
    assert "dlu_64_edr.yaml" in line


def test_unknown_device_arch_names_the_cluster_field(capsys):
    assert_one_line_error(run_cli(capsys, "cluster", CONFIG, "--set", "device.arch=no_such_arch"),
                          "dlu_64_edr.yaml: device.arch: ", "no_such_arch", "file not found")


def test_cluster_prints_step_breakdown_and_scaling(capsys, tmp_path):
    out = tmp_path / "scaling.csv"
    result = run_cli(capsys, "cluster", CONFIG, "--set", "devices=4", "--set", "workload=tiny_conv",
                     "--set", "gradients.bucket=32 KiB", "--set", "gradients.chunk=8 KiB", "--out", out)
    assert result.code == 0, result.err
    assert "exposed communication" in result.out and "speed-up" in result.out
    import pandas as pd
    frame = pd.read_csv(out)
    assert frame["devices"].tolist() == [1, 2, 4]
    assert frame["speedup"].iloc[0] == pytest.approx(1.0)
    assert (frame["step_s"] >= frame["compute_s"] * (1 - 1e-9)).all()
