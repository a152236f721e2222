"""Our systolic model against SCALE-Sim 3.0.0, layer by layer (dense, layer-wise N:M and
row-wise sparsity cases).

Reads the SCALE-Sim reference cases shipped in ``tests/data/scalesim/<case>/`` (each:
the ``.cfg``, the topology ``.csv`` and SCALE-Sim's ``COMPUTE_REPORT.csv``), runs them
through ``load_arch`` / ``load_workload`` / ``simulate`` exactly as a user would, and
tabulates SCALE-Sim's "Total Cycles" and "Stall Cycles" next to ours.
"""
from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from accel_sim.foundations.config.loader import REPO_ROOT
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.plot.studies.scalesim_validation import cycles_against_scalesim
from accel_sim.pipeline.simulate import simulate
from accel_sim.studies.template import readme
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.foundations.workload.loader import load_workload

CASES_DIR = REPO_ROOT / "tests" / "data" / "scalesim"


def case_files(case: Path) -> tuple[Path, Path, Path]:
    """(cfg, topology csv, SCALE-Sim COMPUTE_REPORT.csv) of one reference case."""
    (cfg,) = sorted(case.glob("*.cfg"))
    (topology,) = [p for p in sorted(case.glob("*.csv")) if not p.name.isupper() and "REPORT" not in p.name]
    return cfg, topology, case / "COMPUTE_REPORT.csv"


def compare_case(case: Path) -> pd.DataFrame:
    cfg, topology, report = case_files(case)
    arch, network = load_arch(cfg), load_workload(topology)
    rows = [r for r in csv.reader(report.read_text().splitlines()[1:]) if r]
    run = simulate(arch, network)
    return pd.DataFrame([{
        "case": case.name, "bandwidth_mode": arch.dram.bandwidth_mode, "dataflow": arch.systolic.dataflow,
        "array": f"{arch.systolic.rows}x{arch.systolic.cols}", "layer": result.layer,
        "scalesim_cycles": int(row[2]), "cycles": result.cycles,
        "scalesim_stall_cycles": int(row[3]), "stall_cycles": result.stall_cycles,
    } for result, row in zip(run.layers, rows)])


@study("scalesim-validation",
        "Dense systolic array vs SCALE-Sim 3.0.0 (cycles and stalls, every reference case)", cpu_s=2.7)
def scalesim_validation() -> StudyOutput:
    frame = pd.concat([compare_case(c) for c in sorted(p for p in CASES_DIR.iterdir() if p.is_dir())],
                      ignore_index=True)
    frame["cycles_error"] = frame["cycles"] / frame["scalesim_cycles"] - 1
    stalled = frame["scalesim_stall_cycles"] > 0
    frame["stall_error"] = (frame["stall_cycles"] / frame["scalesim_stall_cycles"].where(stalled) - 1)
    calc, user = frame[frame.bandwidth_mode == "calc"], frame[frame.bandwidth_mode == "user"]
    source = "SCALE-Sim 3.0.0 COMPUTE_REPORT.csv (tests/data/scalesim/)"
    comparisons = [Comparison(f"{row.case} {row.layer}: total cycles ({row.bandwidth_mode.upper()})", "cycles",
                              float(row.scalesim_cycles), float(row.cycles), source, tolerance=0.0)
                   for row in frame.itertuples()]
    comparisons += [Comparison(f"{row.case} {row.layer}: stall cycles ({row.bandwidth_mode.upper()})", "cycles",
                               float(row.scalesim_stall_cycles), float(row.stall_cycles), source, tolerance=0.0)
                    for row in frame[stalled].itertuples()]
    exact = int((calc["cycles"] == calc["scalesim_cycles"]).sum())
    worst_stall = float(user["stall_error"].abs().max()) if len(user) else 0.0
    text = readme(__name__, calc_cases=len(calc), exact=exact, user_cases=len(user),
                  worst_stall_percent=f"{100 * worst_stall:.2f}")
    return StudyOutput(frame, cycles_against_scalesim(frame), text, tuple(comparisons))
