"""Estimate before work: a sweep is counted from its axes and refused above a stated limit before any
point is built (one line naming the size and the limit), ``--max-points`` raises the limit, and a long
validation shows progress; ``import-hf`` refuses absurd sizes before building anything."""
import io
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from accel_sim.cli.main import main
from accel_sim.foundations.errors import InputError
from accel_sim.pipeline.sweep import sweep_from_mapping
from accel_sim.pipeline.sweep.spec import DEFAULT_MAX_POINTS

REPO = Path(__file__).resolve().parents[2]


def _grid(tmp_path, side):
    values = ", ".join(str(i) for i in range(1, side + 1))
    path = tmp_path / "big.yaml"
    path.write_text(f"name: big\narch: scalesim_32x32_ws\nworkload: tiny_conv\n"
                    f"axes:\n  systolic.rows: [{values}]\n  systolic.cols: [{values}]\n")
    return path


def test_a_million_point_sweep_is_refused_in_one_line_within_5_s(tmp_path):
    path = _grid(tmp_path, 1000)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "accel_sim", "sweep", str(path), "--out", str(tmp_path / "o")],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    elapsed = time.monotonic() - start
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "1,000,000 points (1000 x 1000 grid)" in lines[0] and f"limit of {DEFAULT_MAX_POINTS:,}" in lines[0]
    assert "--max-points" in lines[0]
    assert elapsed < 5, elapsed
    assert not (tmp_path / "o" / "results.sqlite").exists()


def test_the_limit_is_checked_before_any_point_is_built():
    values = list(range(1, 201))
    with pytest.raises(InputError, match="40,000 points"):
        sweep_from_mapping({"name": "s", "arch": "scalesim_32x32_ws", "workload": "tiny_conv",
                            "axes": {"systolic.rows": values, "systolic.cols": values}})
    with pytest.raises(InputError, match="limit of 3"):
        sweep_from_mapping({"name": "s", "arch": "scalesim_32x32_ws", "workload": "tiny_conv",
                            "axes": {"systolic.rows": [8, 16], "systolic.cols": [8, 16]}}, max_points=3)


def test_max_points_raises_the_limit_and_validation_shows_progress(monkeypatch):
    import accel_sim.pipeline.sweep.spec as spec
    monkeypatch.setattr(spec, "VALIDATION_QUIET_S", 0.0)
    stream = io.StringIO()
    sweep = sweep_from_mapping({"name": "s", "arch": "scalesim_32x32_ws", "workload": "tiny_conv",
                                "axes": {"systolic.rows": [8, 16], "systolic.cols": [8, 16]}},
                               max_points=4, progress=stream)
    assert len(sweep.points) == 4
    first = stream.getvalue().splitlines()[0]
    assert first.startswith("s: validating the 2 x 2 grid (limit 4): 1/4 points")


def test_max_points_on_the_command_line(tmp_path, capsys):
    path = _grid(tmp_path, 2)
    assert main(["sweep", str(path), "--out", str(tmp_path / "o"), "--max-points", "3", "--quiet"]) == 2
    assert "4 points (2 x 2 grid) is more than the limit of 3" in capsys.readouterr().err
    assert main(["sweep", str(path), "--out", str(tmp_path / "o"), "--max-points", "4", "--quiet"]) == 0


@pytest.mark.parametrize("key,value,limit", [("num_hidden_layers", 10**9, "1,024"), ("hidden_size", 10**7, "131,072"),
                                             ("vocab_size", 10**9, "2,097,152")])
def test_import_hf_refuses_absurd_sizes_before_building(tmp_path, key, value, limit):
    config = json.loads((REPO / "workloads/llm/configs/llama_2_7b.json").read_text())
    config[key] = value
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(config))
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "accel_sim", "import-hf", str(path), "--phase", "decode",
                           "--context", "128", "--out", str(tmp_path / "o")],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert time.monotonic() - start < 5
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, lines
    assert f"{key}: {value:,} is more than the limit of {limit}" in lines[0]
