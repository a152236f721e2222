"""The registry in measured_hardware/: every case is complete and points at shipped files; the committed
validation table matches the registry; a fast subset of the silicon-validation study runs."""
from __future__ import annotations

import csv
import re

import pandas as pd
import pytest

from accel_sim import load_arch
from accel_sim.foundations.config.loader import ARCH_DIR
from accel_sim.foundations.measured import (MEASURED_DIR, VALIDATION_TABLE, MeasuredGroup, load_registry,
                                            trust_columns, trust_text)
from accel_sim.foundations.workload.loader import WORKLOAD_DIR
from accel_sim.studies.silicon_validation import COLUMNS, run_groups
from accel_sim.systems.cpu_simd.measured import DEVICES as CPU_DEVICES

GROUPS = load_registry()
CASES = [(g, c) for g in GROUPS for c in g.cases]
# a locator: a table, figure, section, issue / PR thread, file path or URL
LOCATOR = re.compile(r"Table|Fig|section|abstract|README|#\d+|\.txt|\.py|\.md|https?://|Sec\.|comment", re.IGNORECASE)
SHIPPED_ARCHS = {p.stem for p in ARCH_DIR.glob("*.yaml")}


@pytest.mark.parametrize("group, case", CASES, ids=[f"{g.group}/{c.name}" for g, c in CASES])
def test_every_case_has_device_conditions_unit_locator_and_tolerance(group, case):
    assert case.device and case.conditions and case.unit and 0 <= case.tolerance < 20
    assert LOCATOR.search(case.source), f"{group.group}/{case.name}: the source names no table, figure or thread"
    runnable = case.device in SHIPPED_ARCHS
    on_cpu = case.device in CPU_DEVICES and (WORKLOAD_DIR / f"{case.workload}.yaml").is_file()
    assert runnable or on_cpu or case.note, f"{case.name}: a device with no arch config or CPU preset needs a note"
    if runnable and case.serving is not None:     # a serving run: the workload is the model's config
        assert case.workload == case.serving.model and (WORKLOAD_DIR / case.serving.model).is_file(), case.workload
    elif runnable:
        assert (WORKLOAD_DIR / f"{case.workload}.yaml").is_file(), case.workload
    if (runnable or on_cpu) and case.baseline is not None:
        devices = SHIPPED_ARCHS if runnable else set(CPU_DEVICES)
        assert case.baseline.device in devices and (WORKLOAD_DIR / f"{case.baseline.workload}.yaml").is_file()


# groups below the five cases, and why (the sources state no more measured figures in text)
SHORT = {"v100_sparse_kernels": "SparseRT and Sputnik tabulate only summary figures; per-matrix times are plotted"}


def test_the_groups_and_their_sizes():
    sizes = {g.group: len(g.cases) for g in GROUPS}
    assert all(size >= 5 for group, size in sizes.items() if group not in SHORT), sizes
    assert {"a100_dense_gemm", "a100_sparse_2to4", "llm_decode", "binary_cpu", "v100_sparse_kernels"} <= set(sizes)
    assert sum(sizes.values()) >= 30 and len(sizes) >= 5


def test_the_committed_validation_table_covers_the_registry():
    with VALIDATION_TABLE.open() as handle:
        rows = list(csv.DictReader(handle))
    committed = {(r["group"], r["device"]): int(r["cases"]) for r in rows}
    registry = {}
    for group, case in CASES:
        registry[(group.group, case.device)] = registry.get((group.group, case.device), 0) + 1
    assert committed == registry, "rerun `accel-sim reproduce silicon-validation` and copy validation.csv"
    assert {r["family"] for r in rows if r["device"] in SHIPPED_ARCHS} <= {"tensor_core", "simt", "systolic",
                                                                           "eyeriss", "pe_array", "lowbit"}
    for r in rows:
        if r["device"] in SHIPPED_ARCHS:
            assert r["family"] == load_arch(r["device"]).family


def test_a_fast_subset_of_the_study(tmp_path):
    dense = next(g for g in GROUPS if g.group == "a100_dense_gemm")
    subset = MeasuredGroup(dense.group, dense.description,
                           tuple(c for c in dense.cases if c.name in ("cutlass_square_4096", "linear_distilbert_ffn2_b1",
                                                                      "linear_distilbert_ffn1_b256")))
    output = run_groups((subset,))
    frame = output.tables["comparison"]
    assert list(frame.columns) == COLUMNS and len(frame) == 3
    ran = frame[frame.status == "simulated"]
    assert len(ran) == 2 and (ran.relative_error == ran.simulated / ran.measured - 1).all()
    refused = frame[frame.case == "linear_distilbert_ffn1_b256"].iloc[0]
    assert refused.status.startswith("not runnable:") and "limit" in refused.status and pd.isna(refused.simulated)
    groups = output.tables["groups"].iloc[0]
    assert groups.cases == 3 and groups.simulated_cases == 2 and groups.worst_case in set(ran.case)
    assert "a100_dense_gemm" in output.readme


def test_a_run_says_how_far_to_trust_it():
    assert trust_columns("systolic", "tpu_like_128x128_ws")["validated_against"] == "not validated against hardware"
    assert "not validated against hardware" in trust_text("systolic", "tpu_like_128x128_ws")
    dense = trust_columns("tensor_core", "ampere_a100_dense")
    assert dense["validated_against"] == "a100_dense_gemm" and dense["validation_cases"] >= 5
    assert 0 < dense["validation_geomean_abs_error"] <= dense["validation_worst_abs_error"]
    assert MEASURED_DIR.is_dir()


def test_the_written_comparison_csv_has_one_row_per_case(tmp_path):
    from accel_sim.studies.registry import Study, write_study
    dense = next(g for g in GROUPS if g.group == "a100_dense_gemm")
    subset = MeasuredGroup(dense.group, dense.description, dense.cases[2:4])
    write_study(Study("silicon-validation", "subset", lambda: run_groups((subset,))), tmp_path)
    written = pd.read_csv(tmp_path / "comparison.csv")
    assert list(written.columns) == COLUMNS and list(written.case) == [c.name for c in dense.cases[2:4]]
    assert (tmp_path / "validation.csv").is_file() and (tmp_path / "groups.csv").is_file()
