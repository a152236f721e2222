"""A run's folder says how far to trust it: README.md and the last columns of summary.csv."""
from __future__ import annotations

import pandas as pd

from accel_sim import load_arch, load_workload, simulate
from accel_sim.pipeline.report.files import write_report


def test_an_unvalidated_run_says_so(tmp_path):
    run = simulate(load_arch("scalesim_32x32_ws"), load_workload("tiny_conv"))
    paths = write_report(run, tmp_path, figure=False)
    summary = pd.read_csv(paths["summary"])
    assert list(summary.columns[-4:]) == ["validated_against", "validation_cases", "validation_geomean_abs_error",
                                          "validation_worst_abs_error"]
    assert summary["validated_against"].iloc[0] == "not validated against hardware"
    assert "not validated against hardware" in paths["readme"].read_text()
    # the result columns before them are the run's summary row, unchanged
    assert list(summary.columns[:-4]) == list(run.summary_frame().columns)


def test_a_validated_run_names_its_group(tmp_path):
    run = simulate(load_arch("ampere_a100_dense"), load_workload("tiny_conv"))
    paths = write_report(run, tmp_path, figure=False)
    assert pd.read_csv(paths["summary"])["validated_against"].iloc[0] == "a100_dense_gemm"
    text = paths["readme"].read_text()
    assert "measured group a100_dense_gemm" in text and "geometric-mean |error|" in text
