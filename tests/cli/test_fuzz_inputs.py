"""Fuzz the input boundary (issue 21): corrupted copies of the shipped arch configs, a workload,
a SCALE-Sim topology and a sweep file, each run through ``accel-sim`` in this process as a user
would. Every case must end in exit 0, or exit 2 with only ``accel-sim: error:`` lines (one per
problem; one corrupted field gives one), never a traceback or exit 1, within 30 s.

CI: 500 cases with hypothesis's fixed (derandomized) seed. A longer run on demand:
``ACCEL_SIM_FUZZ_EXAMPLES=5000 python -m pytest tests/cli/test_fuzz_inputs.py``.
"""
from __future__ import annotations

import copy
import math
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from accel_sim.cli.main import main  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("ACCEL_SIM_FUZZ_EXAMPLES", "500"))
SHARE = {"arch": 0.4, "workload": 0.3, "topology": 0.15, "sweep": 0.15}  # of the examples
TIME_LIMIT_S = 30.0
ARCHS = sorted(p.name for p in (REPO / "arch_configs").glob("*.yaml"))
# Tiny on purpose: a case that passes validation simulates in milliseconds.
TINY_WORKLOAD = {"name": "fuzz", "layers": [
    {"name": "c1", "type": "conv", "in_h": 6, "in_w": 6, "in_channels": 4, "out_channels": 4, "kernel": 3,
     "padding": 1, "weight_density": 0.5},
    {"name": "fc", "type": "fc", "in_features": 16, "out_features": 8, "weight_sparsity": "2:4"}]}
TINY_FC = {"name": "fuzz_fc", "layers": [{"name": "fc", "type": "fc", "in_features": 16, "out_features": 8,
                                          "weight_density": 0.5}]}
TOPOLOGY = ("Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
            "c1, 8, 8, 3, 3, 4, 4, 1,\nc2, 6, 6, 1, 1, 4, 8, 2,\n")
SWEEP = {"name": "fuzz", "arch": "scalesim_32x32_ws", "workload": "fuzz.yaml",
         "axes": {"systolic.rows": [4, 8], "systolic.ifmap_sram.size": ["1 KiB"]}, "metrics": ["edp"]}
BAD_VALUES = [-1, 0, -0.5, 10**12, 1e300, math.nan, math.inf, -math.inf, "abc", "64 KiBB", "12 parsecs",
              "1 GHz", "", [1, 2], {"a": 1}, True, None, "2:0", "5:4", 1.5]


def _leaves(value: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _leaves(v, path + (k,))] + ([path] if path else [])
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _leaves(v, path + (i,))] + ([path] if path else [])
    return [path]


def _corrupt(doc: Any, path: tuple, action: str, value: Any) -> Any:
    doc = copy.deepcopy(doc)
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if action == "delete":
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return doc


@st.composite
def corrupted_yaml(draw, doc: Any) -> str:
    """``doc`` with one leaf replaced by a bad value, deleted, or a top-level key given twice."""
    action = draw(st.sampled_from(["replace", "replace", "replace", "delete", "duplicate"]))
    if action == "duplicate":
        key = draw(st.sampled_from(sorted(doc)))
        return yaml.safe_dump(doc, sort_keys=False) + yaml.safe_dump({key: doc[key]}, sort_keys=False)
    path = draw(st.sampled_from(_leaves(doc)))
    return yaml.safe_dump(_corrupt(doc, path, action, draw(st.sampled_from(BAD_VALUES))), sort_keys=False)


def _check(args: list[str], folder: Path, capsys) -> None:
    capsys.readouterr()
    start = time.monotonic()
    code = main(args + ["--out", str(folder / "out")] if args[0] in ("run", "sweep") else args)
    elapsed = time.monotonic() - start
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert elapsed < TIME_LIMIT_S, (args, elapsed)
    assert "Traceback" not in err, err
    if code == 2:   # the errors, after any warnings the input earned on the way (an unused config section)
        errors = [line for line in lines if not line.startswith("accel-sim: warning: ")]
        assert errors and all(line.startswith("accel-sim: error: ") for line in errors), err
    else:
        assert code == 0, (code, err)


def _settings(share: str):
    return settings(max_examples=max(1, round(EXAMPLES * SHARE[share])), derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
                    database=None)


def _arch_docs() -> dict[str, dict]:
    return {name: yaml.safe_load((REPO / "arch_configs" / name).read_text()) for name in ARCHS}


ARCH_DOCS = _arch_docs()


@_settings("arch")
@given(data=st.data(), name=st.sampled_from(ARCHS))
def test_corrupted_arch_configs(data, name, capsys):
    text = data.draw(corrupted_yaml(ARCH_DOCS[name]))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "arch.yaml").write_text(text)
        workload = TINY_FC if ARCH_DOCS[name].get("family") == "eie" or "eie" in name else TINY_WORKLOAD
        (folder / "fuzz.yaml").write_text(yaml.safe_dump(workload))
        # ``extends:`` names a config next to the file or in arch_configs/: it still resolves.
        _check(["run", "--arch", str(folder / "arch.yaml"), "--workload", str(folder / "fuzz.yaml"), "--no-figure",
                "--quiet"], folder, capsys)


@_settings("workload")
@given(data=st.data(), arch=st.sampled_from(["scalesim_32x32_ws", "scnn", "pe_array", "ampere_a100", "dlu"]))
def test_corrupted_workloads(data, arch, capsys):
    text = data.draw(corrupted_yaml(TINY_WORKLOAD))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "fuzz.yaml").write_text(text)
        _check(["run", "--arch", arch, "--workload", str(folder / "fuzz.yaml"), "--no-figure", "--quiet"],
               folder, capsys)


@_settings("topology")
@given(row=st.integers(0, 2), column=st.integers(0, 8),
       value=st.sampled_from(["0", "-3", "x", "", "1e3", "100000000000", "nan", "2:4", "3:2", "1.5"]),
       drop=st.booleans())
def test_corrupted_topologies(row, column, value, drop, capsys):
    lines = [line.split(",") for line in TOPOLOGY.splitlines()]
    cells = lines[row]
    column = min(column, len(cells) - 1)
    if drop:
        del cells[column]
    else:
        cells[column] = value
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "topo.csv").write_text("\n".join(",".join(c) for c in lines) + "\n")
        _check(["run", "--arch", "scalesim_32x32_ws", "--workload", str(folder / "topo.csv"), "--no-figure",
                "--quiet"], folder, capsys)


@_settings("sweep")
@given(data=st.data())
def test_corrupted_sweep_files(data, capsys):
    text = data.draw(corrupted_yaml(SWEEP))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "fuzz.yaml").write_text(yaml.safe_dump(TINY_WORKLOAD))
        (folder / "sweep.yaml").write_text(text)
        _check(["sweep", str(folder / "sweep.yaml"), "--quiet"], folder, capsys)
