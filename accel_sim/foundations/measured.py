"""Measured-hardware cases (DESIGN.md, "Trust"): the registry in ``measured_hardware/``, one YAML file per
group, each case a figure measured on a real chip, GPU or CPU with its device, workload, conditions, unit,
source and a tolerance written down before simulating.

A group file::

    group: a100_dense_gemm
    description: "..."
    cases:
      - name: cublas_fp16_4096            # unique within the group
        device: ampere_a100_dense          # a shipped arch config
        workload: measured/a100_gemm       # a shipped workload (a name in workloads/ or a path)
        layer: gemm_4096                   # one layer of it; absent = the whole workload
        baseline: {device: ..., workload: ..., layer: ...}   # quantity speedup only: the run divided into
        conditions: {precision: fp16, library: "cuBLAS 11.x"}  # free-form, required, not empty
        quantity: time_s
        unit: s
        measured: 0.00123
        source: "Author et al., Venue Year, Table N (row ...)"
        tolerance: 0.15                    # relative, on |simulated / measured - 1|
        note: "..."                        # optional: what the simulator cannot run, or the mechanism of a gap

:func:`load_group` validates a file at the boundary, every problem at once, each naming the file, the case
(index and name) and the field. Which devices a group validated is read back at run time from the table the
``silicon-validation`` study writes (:func:`validation_for`), never by re-simulating.
"""
from __future__ import annotations

import csv
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accel_sim.foundations.config.loader import REPO_ROOT
from accel_sim.foundations.config.schema import build, spec_field
from accel_sim.foundations.config.yaml_io import read_yaml
from accel_sim.foundations.errors import InputError, Problem

MEASURED_DIR = REPO_ROOT / "measured_hardware"
# The per-group, per-device summary the silicon-validation study writes (committed; read at run time).
VALIDATION_TABLE = MEASURED_DIR / "validation.csv"
VALIDATION_COLUMNS = ("group", "family", "device", "cases", "simulated_cases", "geomean_abs_error",
                      "worst_case", "worst_abs_error")
# Quantities a case may name besides a metric column of the run (the summary row's columns).
QUANTITIES = ("time_s", "power_w", "chip_power_w", "dram_bytes", "energy_j", "throughput_per_s", "speedup", "tokens_per_s",
              "tokens_per_s_per_gpu", "geomean_speedup")
UNITS = {"time_s": "s", "power_w": "W", "chip_power_w": "W", "dram_bytes": "B", "energy_j": "J", "throughput_per_s": "1/s",
         "speedup": "x", "tokens_per_s": "tokens/s", "tokens_per_s_per_gpu": "tokens/s/GPU", "geomean_speedup": "x"}
SPEEDUPS = ("speedup", "geomean_speedup")         # quantities of a run against a baseline run
PER_ITEM = ("throughput_per_s", "tokens_per_s", "tokens_per_s_per_gpu")   # quantities that divide conditions.batch by the time
SERVING_ONLY = ("tokens_per_s_per_gpu",)   # quantities only a serving run has (its devices divide the throughput)


@dataclass(frozen=True)
class RunRef:
    """One simulated run: a device (shipped arch config) on a workload, or one layer of it."""

    device: str = spec_field("A shipped arch config (name in arch_configs/ or path).")
    workload: str = spec_field("A shipped workload (name in workloads/, e.g. 'measured/a100_gemm', or path).")
    layer: str | None = spec_field("One layer of the workload; absent: the whole workload.", None)


@dataclass(frozen=True)
class ServingRun:
    """A serving run (``accel-sim serve``) whose figure a case compares: ``requests`` requests of ``prompt_tokens``
    and ``output_tokens`` each, all arriving at once and run together (a static batch of that many sequences)."""

    model: str = spec_field("Hugging Face config.json of the model (a path under workloads/, e.g. "
                            "'llm/configs/llama_2_7b.json').")
    requests: int = spec_field("Requests, all at time 0; also the largest batch the engine runs.", positive=True)
    prompt_tokens: int = spec_field("Prompt (input) tokens of every request.", positive=True)
    output_tokens: int = spec_field("Output tokens of every request.", positive=True)
    tp: int = spec_field("Tensor-parallel devices.", 1, positive=True)
    precision: str | None = spec_field("8-bit weights and activations of the block GEMMs, as ``serve --precision``: "
                                       "int8 (W8A8) or fp8 (E4M3); absent: the device's word.", None,
                                       choices=(None, "int8", "fp8"))
    kv_bits: int | None = spec_field("Stored bits of the KV cache, as ``serve --kv-bits`` (8: an FP8 / INT8 cache); "
                                     "absent: the device's word.", None)
    kv_reads: str = spec_field("How the engine's decode-attention kernel reads a grouped-query model's KV cache: "
                               "per_kv_head (a GQA-aware kernel: each KV head's cache once for its query heads) or "
                               "per_query_head (one thread block per query head: each KV head's cache once per "
                               "query head of its group, as TensorRT-LLM's masked multi-head attention kernel).",
                               "per_kv_head", choices=("per_kv_head", "per_query_head"))
    fused_qkv: bool = spec_field("The engine runs the q, k and v projections as one GEMM of their concatenated weights "
                                 "(as ``serve --fused-qkv``: TensorRT-LLM's Llama builds one ColumnLinear qkv); "
                                 "false: three GEMMs.", False)


@dataclass(frozen=True)
class MeasuredCase:
    """One figure measured on real hardware, and how to simulate its counterpart."""

    name: str = spec_field("Unique within the group.")
    device: str = spec_field("The shipped arch config the case runs on.")
    workload: str = spec_field("The shipped workload the case runs.")
    conditions: dict[str, Any] = spec_field("How it was measured (precision, batch, library, clocks, ...).")
    quantity: str = spec_field(f"What was measured: one of {', '.join(QUANTITIES)}, or a metric column of the run.")
    unit: str = spec_field("Unit of the measured figure.")
    measured: float = spec_field("The measured figure.", positive=True)
    source: str = spec_field("Where it was measured: paper + table / figure, or URL + section.")
    tolerance: float = spec_field("Relative tolerance on |simulated / measured - 1|, set before simulating "
                                  "(0: the figure must be exact, as a count of active PEs).", minimum=0)
    layer: str | None = spec_field("One layer of the workload; absent: the whole workload.", None)
    baseline: RunRef | None = spec_field("For quantity speedup: the run whose time is divided by this one's; for "
                                         "geomean_speedup: the run whose layers' times are divided by this one's "
                                         "(layers paired by name), their geometric mean.", None)
    note: str = spec_field("What the simulator cannot run for this case, or the mechanism of a known gap.", "")
    serving: ServingRun | None = spec_field(
        "A serving run instead of a workload run (``workload`` then names the model config): tokens_per_s is the "
        "run's output tokens per second, tokens_per_s_per_gpu the same divided by its tensor-parallel devices, time_s "
        "its median time to first token.", None)

    def __post_init__(self) -> None:
        problems = []
        if not self.conditions:
            problems.append("conditions: must name at least one condition (precision, batch, library, ...)")
        if not self.source.strip():
            problems.append("source: must give the locator of the measurement")
        if not self.unit.strip():
            problems.append("unit: must not be empty")
        if (self.quantity in SPEEDUPS) != (self.baseline is not None):
            problems.append("baseline: required for quantities speedup and geomean_speedup, and only for them")
        if self.quantity in UNITS and self.unit != UNITS[self.quantity]:
            problems.append(f"unit: quantity {self.quantity} is measured in {UNITS[self.quantity]!r}, got {self.unit!r}")
        batch = self.conditions.get("batch") if self.conditions else None
        if self.quantity in PER_ITEM and (isinstance(batch, bool) or not isinstance(batch, int) or batch < 1):
            problems.append(f"conditions.batch: quantity {self.quantity} needs the items per run as a positive integer")
        if self.quantity in SERVING_ONLY and self.serving is None:
            problems.append(f"serving: quantity {self.quantity} needs a serving run (its tensor-parallel devices)")
        if problems:
            raise ValueError("; ".join(problems))

    @property
    def run(self) -> RunRef:
        return RunRef(self.device, self.workload, self.layer)


@dataclass(frozen=True)
class MeasuredGroup:
    group: str = spec_field("The group's name (unique in measured_hardware/).")
    description: str = spec_field("What the group measures.")
    cases: tuple[MeasuredCase, ...] = spec_field("The measured cases.", default_factory=tuple)
    path: str = field(default="", compare=False)


def _case_label(index: int, raw: Any) -> str:
    name = raw.get("name") if isinstance(raw, dict) else None
    return f"cases[{index}] ({name})" if isinstance(name, str) else f"cases[{index}]"


def load_group(path: str | Path) -> MeasuredGroup:
    """One group file, validated: every problem of every case at once (file, case and field in each)."""
    path = Path(path)
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise InputError.single(str(path), "", "expected a mapping with group, description and cases")
    problems: list[Problem] = []
    head = {key: raw[key] for key in ("group", "description") if key in raw}
    unknown = sorted(set(raw) - {"group", "description", "cases"})
    problems += [Problem(str(path), key, "unknown field; known fields: group, description, cases") for key in unknown]
    try:
        group = build(MeasuredGroup, head, str(path))
    except InputError as err:
        problems += err.problems
        group = None
    raw_cases = raw.get("cases")
    if not isinstance(raw_cases, list) or not raw_cases:
        problems.append(Problem(str(path), "cases", "expected a non-empty list of cases"))
        raw_cases = []
    cases, seen = [], set()
    for index, raw_case in enumerate(raw_cases):
        label = _case_label(index, raw_case)
        try:
            case = build(MeasuredCase, raw_case, str(path), label)
        except InputError as err:
            problems += err.problems
            continue
        if case.name in seen:
            problems.append(Problem(str(path), f"{label}.name", f"duplicate case name {case.name!r}"))
        seen.add(case.name)
        cases.append(case)
    if problems:
        raise InputError(problems)
    return MeasuredGroup(group.group, group.description, tuple(cases), str(path))


def load_registry(folder: Path = MEASURED_DIR) -> tuple[MeasuredGroup, ...]:
    """Every group file in ``folder`` (``*.yaml``), sorted by file name; group names must be unique."""
    groups = tuple(load_group(p) for p in sorted(folder.glob("*.yaml")))
    names = [g.group for g in groups]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise InputError.single(str(folder), "group", f"group names used twice: {', '.join(duplicates)}")
    return groups


@dataclass(frozen=True)
class Validation:
    """What one measured group says of one device: its cases and how far the simulator was from them."""

    group: str
    family: str
    device: str
    cases: int
    simulated_cases: int
    geomean_abs_error: float | None
    worst_case: str
    worst_abs_error: float | None

    def sentence(self) -> str:
        if self.geomean_abs_error is None:
            return (f"measured group {self.group}: {self.cases} cases on {self.device}, none yet simulated "
                    f"(not validated against hardware)")
        return (f"measured group {self.group}: {self.simulated_cases} of {self.cases} cases on {self.device}, "
                f"geometric-mean |error| {100 * self.geomean_abs_error:.1f} %, worst {self.worst_case} "
                f"({100 * self.worst_abs_error:.1f} %)")


def _number(text: str) -> float | None:
    return float(text) if text not in ("", "nan") else None


@functools.lru_cache(maxsize=4)
def read_validation_table(path: Path = VALIDATION_TABLE) -> tuple[Validation, ...]:
    """The committed per-group, per-device table (empty when the file does not exist)."""
    if not path.is_file():
        return ()
    with path.open(encoding="utf-8", newline="") as handle:
        return tuple(Validation(row["group"], row["family"], row["device"], int(row["cases"]),
                                int(row["simulated_cases"]), _number(row["geomean_abs_error"]), row["worst_case"],
                                _number(row["worst_abs_error"])) for row in csv.DictReader(handle))


def validation_for(family: str, device: str, path: Path = VALIDATION_TABLE) -> tuple[Validation, ...]:
    """The measured groups that checked this family on this device (by arch name); empty: not validated."""
    return tuple(v for v in read_validation_table(path) if v.family == family and v.device == device)


NOT_VALIDATED = "not validated against hardware"


def trust_columns(family: str, device: str) -> dict[str, object]:
    """The columns a run's summary.csv gains: the groups that validated its family and device, or not."""
    found = validation_for(family, device)
    if not found:
        return {"validated_against": NOT_VALIDATED, "validation_cases": 0,
                "validation_geomean_abs_error": None, "validation_worst_abs_error": None}
    simulated = [v for v in found if v.geomean_abs_error is not None]
    return {"validated_against": " + ".join(v.group for v in found),
            "validation_cases": sum(v.simulated_cases for v in found),
            "validation_geomean_abs_error": max((v.geomean_abs_error for v in simulated), default=None),
            "validation_worst_abs_error": max((v.worst_abs_error for v in simulated), default=None)}


def trust_text(family: str, device: str) -> str:
    """One paragraph for a run's README: which measured groups checked this family and device."""
    found = validation_for(family, device)
    if not found:
        return (f"Trust: the {family} family on {device} is {NOT_VALIDATED} (no measured-hardware group in "
                f"measured_hardware/ ran on this device).")
    return (f"Trust: the {family} family on {device} was checked against measured hardware: "
            + "; ".join(v.sentence() for v in found)
            + " (measured_hardware/validation.csv, from `accel-sim reproduce silicon-validation`).")
