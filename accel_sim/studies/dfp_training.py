"""Training the digits classifier in dynamic fixed point on the simulated DLU.

Same seed, same schedule, same network (64-300-100-10 MLP, SGD with momentum) for every
row: float32; 16-bit and 8-bit dynamic fixed point with each point-update rule; 8-bit with
round-to-nearest instead of stochastic rounding; and an 8-bit static point (set once from
the first step's statistics, never updated). Every tensor (weights, activations, gradients,
updates) goes through the format with the point chosen by the simulated statistics
hardware; each training step's GEMMs run on the ``dlu`` model for cycles and energy.
"""
from __future__ import annotations

import pandas as pd

from accel_sim.pipeline.catalog import load_arch
from accel_sim.systems.nn.dlu_training import DLUTrainingRun, train_on_dlu
from accel_sim.systems.nn.digits import load_digits_split
from accel_sim.systems.nn.training import DEFAULT_SCHEDULE, Schedule
from accel_sim.pipeline.plot.studies.dfp_training import training_formats
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme, schedule_values

ARCH = "dlu"
WATCHED_TENSOR = "da2"   # gradient of the second hidden layer's activations (a GEMM result)
DLU_RELEASE = ("Fujitsu Laboratories press release, 24 April 2017 (xSIG 2017), 'Fujitsu Develops Circuit Technology "
               "to Improve Energy Efficiency of Hardware Used for Deep Learning': 16- and 8-bit dynamic fixed point "
               "on LeNet")
COLUMNS = ["format", "rule", "bits", "test_accuracy", "overflow_rate", "cycles_per_step", "energy_pj_per_step"]
# (format label, dlu.data_type, rule, rounding, static)
CONFIGURATIONS = (
    ("float32", "fp32", "-", "-", False),
    *(("dfp16", "int16", rule, "nearest", False) for rule in ("overflow", "max", "percentile")),
    *(("dfp8", "int8", rule, "stochastic", False) for rule in ("overflow", "max", "percentile")),
    ("dfp8-nearest", "int8", "overflow", "nearest", False),
    ("static8", "int8", "max", "stochastic", True),
)


def run_configuration(data_type: str, rule: str, rounding: str, static: bool, schedule: Schedule,
                      watch: tuple[str, ...] = ()) -> DLUTrainingRun:
    overrides = {"dlu.data_type": data_type}
    if data_type != "fp32":
        overrides.update({"dlu.update_rule": rule, "dlu.rounding": rounding})
    return train_on_dlu(load_arch(ARCH, overrides), load_digits_split(), schedule, static=static, watch=watch,
                        per_epoch_accuracy=False)   # the study reads the final accuracy only


def dfp_training_table(schedule: Schedule = DEFAULT_SCHEDULE) -> tuple[pd.DataFrame, dict[str, DLUTrainingRun]]:
    rows, runs = [], {}
    for label, data_type, rule, rounding, static in CONFIGURATIONS:
        watch = (WATCHED_TENSOR,) if (label, rule) == ("dfp8", "overflow") else ()
        result = run_configuration(data_type, rule, rounding, static, schedule, watch)
        runs[f"{label}/{rule}"] = result
        rows.append({"format": label, "rule": rule, "bits": 32 if data_type == "fp32" else int(data_type[3:]),
                     "test_accuracy": result.run.test_accuracy, "overflow_rate": result.overflow_rate,
                     "cycles_per_step": result.step.cycles, "energy_pj_per_step": result.step.energy_pj})
    return pd.DataFrame(rows, columns=COLUMNS), runs


@study("dfp-training", "Training the digits classifier in float32, 16-bit and 8-bit dynamic fixed point on a DLU", cpu_s=6.1)
def dfp_training(schedule: Schedule = DEFAULT_SCHEDULE) -> StudyOutput:
    frame, runs = dfp_training_table(schedule)
    by = {(f, r): row for f, r, row in zip(frame["format"], frame["rule"], frame.itertuples())}
    f32 = by[("float32", "-")].test_accuracy
    gap16 = max(f32 - by[("dfp16", r)].test_accuracy for r in ("overflow", "max", "percentile"))
    gap8 = max(f32 - by[("dfp8", r)].test_accuracy for r in ("overflow", "max", "percentile"))
    static, dynamic = by[("static8", "max")], by[("dfp8", "max")]
    static_verdict = ("worse than" if static.test_accuracy < dynamic.test_accuracy - 0.005
                      else "NOT worse than")
    energy16 = by[("dfp16", "overflow")].energy_pj_per_step / by[("float32", "-")].energy_pj_per_step
    energy8 = by[("dfp8", "overflow")].energy_pj_per_step / by[("float32", "-")].energy_pj_per_step
    memory_share = {name: runs[key].step.memory_energy_pj / runs[key].step.energy_pj
                    for name, key in (("float32", "float32/-"), ("dfp8", "dfp8/overflow"))}
    nearest_gap = f32 - by[("dfp8-nearest", "overflow")].test_accuracy
    text = readme(
        __name__,
        **schedule_values(schedule),
        gap16=f"{100 * gap16:.2f}",
        gap8=f"{100 * gap8:.2f}",
        nearest_gap=f"{100 * nearest_gap:.2f}",
        static_test_accuracy=f"{100 * static.test_accuracy:.1f}",
        static_overflow_rate=f"{100 * static.overflow_rate:.1f}",
        static_verdict=static_verdict,
        dynamic_test_accuracy=f"{100 * dynamic.test_accuracy:.1f}",
        energy16=f"{energy16:.2f}",
        energy8=f"{energy8:.2f}",
        memory_share_float32=f"{100 * memory_share['float32']:.0f}",
        memory_share_dfp8=f"{100 * memory_share['dfp8']:.0f}",
        watched_tensor=WATCHED_TENSOR,
    )
    comparisons = (
        Comparison("16-bit DFP accuracy loss vs float32, worst rule (published: almost none; digits MLP)", "points",
                   None, 100 * float(gap16), DLU_RELEASE),
        Comparison("8-bit DFP accuracy loss vs float32, worst rule (published: small; digits MLP)", "points", None,
                   100 * float(gap8), DLU_RELEASE),
    )
    return StudyOutput(frame, training_formats(frame, runs, WATCHED_TENSOR), text, comparisons)
