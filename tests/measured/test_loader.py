"""The measured-hardware loader refuses incomplete cases, one line per problem naming the file, the case and
the field, every problem at once."""
from __future__ import annotations

import pytest
import yaml

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.measured import load_group

CASE = {"name": "gemm_4096", "device": "ampere_a100_dense", "workload": "measured/a100_gemm", "layer": "square_4096",
        "conditions": {"precision": "fp16", "library": "CUTLASS"}, "quantity": "time_s", "unit": "s",
        "measured": 0.0006, "source": "somewhere, Table 1", "tolerance": 0.15}


def write(tmp_path, cases, **head):
    path = tmp_path / "group.yaml"
    path.write_text(yaml.safe_dump({"group": "g", "description": "d", **head, "cases": cases}))
    return path


def problems(tmp_path, cases):
    with pytest.raises(InputError) as err:
        load_group(write(tmp_path, cases))
    return [str(p) for p in err.value.problems]


def test_a_complete_case_loads(tmp_path):
    group = load_group(write(tmp_path, [CASE]))
    assert group.group == "g" and group.cases[0].measured == 0.0006 and group.cases[0].conditions["precision"] == "fp16"


@pytest.mark.parametrize("missing", ["unit", "source", "tolerance", "conditions", "measured", "device", "quantity"])
def test_a_case_without_a_field_is_refused_naming_file_case_and_field(tmp_path, missing):
    case = {k: v for k, v in CASE.items() if k != missing}
    (line,) = problems(tmp_path, [case])
    assert "\n" not in line
    assert str(tmp_path / "group.yaml") in line and "cases[0] (gemm_4096)" in line and f".{missing}:" in line


@pytest.mark.parametrize("field, value, says", [
    ("conditions", {}, "conditions"), ("source", "  ", "source"), ("unit", "", "unit"), ("tolerance", -0.1, "tolerance"),
    ("measured", -1.0, "measured"), ("unit", "ms", "unit: quantity time_s is measured in 's'"),
])
def test_empty_or_wrong_values_are_refused(tmp_path, field, value, says):
    (line,) = problems(tmp_path, [{**CASE, field: value}])
    assert "cases[0] (gemm_4096)" in line and says in line


def test_speedup_needs_a_baseline_and_only_speedup_has_one(tmp_path):
    speedup = {**CASE, "quantity": "speedup", "unit": "x"}
    (line,) = problems(tmp_path, [speedup])
    assert "baseline" in line
    baseline = {"device": "ampere_a100_dense", "workload": "measured/a100_gemm"}
    (line,) = problems(tmp_path, [{**CASE, "baseline": baseline}])
    assert "baseline" in line


def test_tokens_per_s_needs_the_batch(tmp_path):
    case = {**CASE, "quantity": "tokens_per_s", "unit": "tokens/s"}
    (line,) = problems(tmp_path, [case])
    assert "conditions.batch" in line


def test_every_problem_of_every_case_at_once(tmp_path):
    lines = problems(tmp_path, [{k: v for k, v in CASE.items() if k != "unit"},
                                {**{k: v for k, v in CASE.items() if k != "source"}, "name": "second"},
                                {**CASE, "name": "gemm_4096", "colour": "red"}])
    assert any("cases[0] (gemm_4096).unit" in line for line in lines)
    assert any("cases[1] (second).source" in line for line in lines)
    assert any("cases[2] (gemm_4096).colour: unknown field" in line for line in lines)


def test_duplicate_case_names_are_refused(tmp_path):
    (line,) = problems(tmp_path, [CASE, CASE])
    assert "cases[1] (gemm_4096).name" in line and "duplicate" in line


def test_tokens_per_s_per_gpu_needs_a_serving_run(tmp_path):
    case = {**CASE, "quantity": "tokens_per_s_per_gpu", "unit": "tokens/s/GPU", "conditions": {"batch": 4}}
    (line,) = problems(tmp_path, [case])
    assert "serving" in line and "tokens_per_s_per_gpu" in line
