"""Every measured-hardware case of ``measured_hardware/`` against its simulated counterpart (issue 33).

Each case is simulated as a user would (:func:`accel_sim.pipeline.measured.simulate_case`: ``load_arch`` /
``load_workload`` / ``simulate``; a case on a CPU preset through the CPU SIMD model,
:mod:`accel_sim.systems.cpu_simd.measured`). A case the simulator cannot run (a device that is no shipped arch config, a
workload that is not shipped, a layer too large) stays in the table with the reason. Per group: the
geometric mean of |relative error| over the cases that ran, and the worst case; per group and device the same,
written as ``validation.csv`` (committed as ``measured_hardware/validation.csv``: what a run's README and
summary.csv quote as its trust).
"""
from __future__ import annotations

import math

import pandas as pd

from accel_sim.foundations.config.loader import REPO_ROOT
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.measured import MEASURED_DIR, VALIDATION_COLUMNS, MeasuredCase, MeasuredGroup, load_registry
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.measured import simulate_case
from accel_sim.pipeline.simulate import reused_layer_runs
from accel_sim.systems.serving.measured import simulate_serving_case
from accel_sim.pipeline.plot.studies.silicon_validation import predicted_vs_measured
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme
from accel_sim.systems.cpu_simd.measured import DEVICES as CPU_DEVICES
from accel_sim.systems.cpu_simd.measured import FAMILY as CPU_FAMILY
from accel_sim.systems.cpu_simd.measured import simulate_cpu_case

COLUMNS = ["group", "case", "device", "family", "quantity", "unit", "measured", "simulated", "relative_error",
           "tolerance", "within", "status", "source", "note"]
GROUP_COLUMNS = ["group", "cases", "simulated_cases", "within", "geomean_abs_error", "worst_case", "worst_abs_error"]


def _family(device: str) -> str:
    if device in CPU_DEVICES:
        return CPU_FAMILY
    try:
        return load_arch(device).family
    except (InputError, ValueError):
        return ""


def case_row(group: MeasuredGroup, case: MeasuredCase) -> dict:
    """One row of comparison.csv: the case, its simulated figure and error, or why it did not run."""
    row = {"group": group.group, "case": case.name, "device": case.device, "family": "",
           "quantity": case.quantity, "unit": case.unit, "measured": case.measured, "simulated": math.nan,
           "relative_error": math.nan, "tolerance": case.tolerance, "within": False, "status": "",
           "source": case.source, "note": case.note}
    try:
        simulated = simulate_serving_case(case) if case.serving is not None else \
            simulate_cpu_case(case) or simulate_case(case)
    except (InputError, ValueError) as err:
        first = str(err).splitlines()[0].replace(f"{REPO_ROOT}/", "")   # the same text from any clone
        return {**row, "family": _family(case.device), "status": f"not runnable: {first}"}
    error = simulated.value / case.measured - 1
    return {**row, "family": simulated.family, "simulated": simulated.value, "relative_error": error,
            "within": abs(error) <= case.tolerance, "status": "simulated"}


def comparison_table(groups: tuple[MeasuredGroup, ...]) -> pd.DataFrame:
    return pd.DataFrame([case_row(g, c) for g in groups for c in g.cases], columns=COLUMNS)


def _summary(part: pd.DataFrame) -> dict:
    ran = part[part["status"] == "simulated"]
    errors = ran["relative_error"].abs()
    worst = errors.idxmax() if len(ran) else None
    # exact counts (tolerance 0, e.g. active PEs) are reported by "within", not averaged: one exact zero would
    # make a geometric mean of the others zero
    graded = errors[ran["tolerance"] > 0]
    return {"cases": len(part), "simulated_cases": len(ran), "within": int(ran["within"].sum()),
            "geomean_abs_error": math.exp(graded.clip(lower=1e-12).map(math.log).mean()) if len(graded) else math.nan,
            "worst_case": "" if worst is None else part.loc[worst, "case"],
            "worst_abs_error": math.nan if worst is None else float(errors[worst])}


def group_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per group: cases, how many ran and met their tolerance, geometric-mean |error|, the worst case."""
    return pd.DataFrame([{"group": g, **_summary(part)} for g, part in frame.groupby("group", sort=True)],
                        columns=GROUP_COLUMNS)


def validation_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per group and device (with its family): what a run on that device quotes as its validation."""
    rows = [{"group": g, "family": family, "device": device, **_summary(part)}
            for (g, family, device), part in frame.groupby(["group", "family", "device"], sort=True)]
    return pd.DataFrame(rows, columns=list(VALIDATION_COLUMNS) + ["within"])[list(VALIDATION_COLUMNS)]


def _markdown(groups: pd.DataFrame) -> str:
    lines = ["| group | cases | simulated | within tolerance | geometric-mean abs. error | worst case |",
             "|---|---|---|---|---|---|"]
    for row in groups.itertuples():
        mean = "" if math.isnan(row.geomean_abs_error) else f"{100 * row.geomean_abs_error:.1f} %"
        worst = "" if not row.worst_case else f"{row.worst_case} ({100 * row.worst_abs_error:.1f} %)"
        lines.append(f"| {row.group} | {row.cases} | {row.simulated_cases} | {row.within} | {mean} | {worst} |")
    return "\n".join(lines)


def _comparisons(frame: pd.DataFrame) -> tuple[Comparison, ...]:
    return tuple(Comparison(f"{r.group} / {r.case}: {r.quantity}", r.unit, float(r.measured), float(r.simulated),
                            r.source, tolerance=float(r.tolerance)) for r in frame.itertuples())


def run_groups(groups: tuple[MeasuredGroup, ...]) -> StudyOutput:
    """The study over ``groups`` (the whole registry, or a subset in the test suite)."""
    with reused_layer_runs():   # a case of one layer runs a layer of another case's whole network (Eyeriss' AlexNet)
        frame = comparison_table(groups)
    per_group = group_table(frame)
    not_run = frame[frame["status"] != "simulated"]
    text = readme(__name__, cases=len(frame), groups=len(per_group), simulated=int((frame.status == "simulated").sum()),
                  group_table=_markdown(per_group), not_runnable=len(not_run), folder=MEASURED_DIR.name)
    return StudyOutput(frame, predicted_vs_measured(frame), text, _comparisons(frame),
                       tables={"comparison": frame, "groups": per_group, "validation": validation_table(frame)})


@study("silicon-validation", "Checked against silicon: every measured-hardware case (measured_hardware/)", cpu_s=16.0)
def silicon_validation() -> StudyOutput:
    return run_groups(load_registry())
