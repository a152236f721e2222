"""Eyeriss v1 against its measured chip (Chen et al., JSSC 2017, Tables V and VI).

The measured figures are not repeated here: they are the cases of ``measured_hardware/eyeriss_v1.yaml``
(the silicon-validation registry), each with its source and the tolerance set before simulating, simulated
the way the silicon-validation study simulates every case (:func:`accel_sim.pipeline.measured.simulate_case`).
"""
from __future__ import annotations

import pandas as pd

from accel_sim.foundations.measured import MEASURED_DIR, MeasuredCase, load_group
from accel_sim.pipeline.measured import simulate_case
from accel_sim.pipeline.plot.studies.eyeriss import measured_vs_simulated
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme

CASES = MEASURED_DIR / "eyeriss_v1.yaml"


def compare(cases: list[MeasuredCase]) -> tuple[pd.DataFrame, list[Comparison]]:
    rows, comparisons = [], []
    for case in cases:
        simulated = simulate_case(case).value
        rows.append({"case": case.name, "workload": case.workload, "layer": case.layer or "all",
                     "quantity": case.quantity, "unit": case.unit, "measured": case.measured,
                     "simulated": simulated, "relative_error": (simulated - case.measured) / case.measured,
                     "tolerance": case.tolerance})
        comparisons.append(Comparison(f"{case.name} ({case.quantity})", case.unit, case.measured,
                                      simulated, case.source + " [measured silicon]", case.tolerance))
    return pd.DataFrame(rows), comparisons


@study("eyeriss", "Eyeriss v1 (row stationary) against the measured chip: AlexNet and VGG-16 CONV layers", cpu_s=40)
def eyeriss_study(workloads: tuple[str, ...] = ("eyeriss_alexnet_conv", "eyeriss_vgg16_conv")) -> StudyOutput:
    frame, comparisons = compare([c for c in load_group(CASES).cases if c.workload in workloads])
    layers = frame[(frame.workload == "eyeriss_alexnet_conv") & (frame.layer != "all")]
    within = frame[frame.relative_error.abs() <= frame.tolerance + 1e-12]
    failed = frame.drop(within.index)
    text = readme(__name__, cases=len(frame), within=len(within),
                  missed=", ".join(f"{r.case} ({r.relative_error:+.0%})" for r in failed.itertuples()) or "none")
    return StudyOutput(frame, measured_vs_simulated(layers), text, tuple(comparisons))
