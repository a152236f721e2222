"""The report is written without pandas and matplotlib (issue 22): its CSVs are the text pandas
writes for the same rows, its figure an SVG with one bar segment per layer and part."""
from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from accel_sim import load_arch, load_workload, simulate
from accel_sim.pipeline.plot.layers_svg import layer_overview_svg
from accel_sim.pipeline.report.files import csv_text, layer_table, write_report

PAIRS = [("scalesim_32x32_ws", "tiny_conv"), ("eie_4pe_example", "eie_4pe_example"), ("pe_array_reassignment", "lenet5"),
         ("scnn", "tiny_conv"), ("cnvlutin", "lenet5"), ("dlu", "lenet5"), ("ampere_a100", "lenet_300_100")]


@pytest.mark.parametrize(("arch", "workload"), PAIRS)
def test_csv_files_are_what_pandas_writes(arch, workload):
    run = simulate(load_arch(arch), load_workload(workload))
    assert csv_text(run.layer_rows()) == run.layers_frame().to_csv(index=False)
    assert csv_text([run.summary_row()]) == run.summary_frame().to_csv(index=False)


def test_csv_of_mixed_and_missing_columns_matches_pandas():
    rows = [{"layer": "a", "n": 1, "x": 0.1 + 0.2, "flag": True, "big": 1e16, "tiny": 1e-5, "maybe": 3,
             "word": "x,y", "mixed": 1},
            {"layer": "b", "n": np.int64(2), "x": np.float64(2.0), "flag": False, "big": 123456789.125, "tiny": 0.0001,
             "extra": 7, "word": 'say "hi"', "mixed": "z"},
            {"layer": "c", "n": 3, "x": 1, "flag": np.bool_(True), "big": -0.0, "tiny": float("inf"), "maybe": 4.5,
             "extra": False, "mixed": 2.5}]
    assert csv_text(rows) == pd.DataFrame(rows).to_csv(index=False)


def test_summary_sums_like_pandas_with_a_column_missing_in_some_layers():
    run = simulate(load_arch("pe_array_reassignment"), load_workload("lenet5"))
    rows = run.layer_rows()
    frame = run.layers_frame()
    summary = run.summary_row()
    for column in ("cycles", "energy_pj", "dram_read_bytes"):
        assert summary[column] == frame[column].sum()
    assert rows[0]["layer"] in layer_table(run) and f"total: {summary['cycles']:,} cycles" in layer_table(run)


def test_figure_has_a_bar_per_layer_and_part(tmp_path):
    run = simulate(load_arch("scalesim_32x32_ws"), load_workload("tiny_conv"))
    paths = write_report(run, tmp_path)
    svg = ET.parse(paths["figure"]).getroot()
    rows = run.layer_rows()
    titles = [el.findtext("{http://www.w3.org/2000/svg}title") or "" for el in svg.iter("{http://www.w3.org/2000/svg}rect")]
    parts = [key for key in rows[0] if key.startswith("energy_") and key != "energy_pj"]
    for row in rows:
        assert any(t.startswith(f"{row['layer']} compute: ") for t in titles)
        energy_bars = [t for t in titles if t.startswith(f"{row['layer']} ") and "compute" not in t and "stall" not in t]
        assert len(energy_bars) == sum(row[p] > 0 for p in parts)
    assert f"{run.network.name} on {run.arch.name}" in layer_overview_svg(rows, f"{run.network.name} on {run.arch.name}")


def test_a_run_imports_neither_pandas_nor_matplotlib(tmp_path):
    """Nor SimPy (the fast path runs no reference) nor urllib (what xml.sax.saxutils would pull in)."""
    code = ("import sys, io, contextlib\nfrom accel_sim.cli.main import main\n"
            f"with contextlib.redirect_stdout(io.StringIO()): main(['run', '--workload', 'tiny_conv', '--out', {str(tmp_path)!r}])\n"
            "print(sorted(m for m in ('pandas', 'matplotlib', 'simpy', 'urllib.request') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    assert (tmp_path / "layers.svg").exists() and (tmp_path / "layers.csv").exists()
