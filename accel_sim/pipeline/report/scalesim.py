"""A run's report as SCALE-Sim v3 writes it: COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv and
DETAILED_ACCESS_REPORT.csv, with SCALE-Sim v3's exact headers (scale-sim-v3
``scalesim/simulator.py`` ``generate_reports``: "LayerID, ..., Compute Util %," lines, cells joined
by ", ", a trailing comma), so scripts and plots written for SCALE-Sim read them unchanged.

Only the systolic family reports what SCALE-Sim does. Cells this model does not produce are left
empty rather than guessed: the start / stop cycles of each SRAM and DRAM stream in
DETAILED_ACCESS_REPORT.csv and, since they are computed from those windows, the average bandwidths
in BANDWIDTH_REPORT.csv. Cycle columns and access counts are the model's (equal to SCALE-Sim's on
the validation cases: tests/systolic/test_scalesim_golden.py).
"""
from __future__ import annotations

from pathlib import Path

from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.foundations.errors import InputError
from accel_sim.pipeline.run_result import RunResult

COMPUTE_HEADER = ("LayerID, Total Cycles (incl. prefetch), Total Cycles, Stall Cycles, Overall Util %, "
                  "Mapping Efficiency %, Compute Util %,")
# With SparsitySupport, SCALE-Sim v3 adds the filter metadata's SRAM bandwidth after the filter's.
BANDWIDTH_COLUMNS = ("Avg IFMAP SRAM BW", "Avg FILTER SRAM BW", "Avg OFMAP SRAM BW", "Avg IFMAP DRAM BW",
                     "Avg FILTER DRAM BW", "Avg OFMAP DRAM BW")
METADATA_BANDWIDTH = "Avg FILTER Metadata SRAM BW"
DETAILED_HEADER = ("LayerID, SRAM IFMAP Start Cycle, SRAM IFMAP Stop Cycle, SRAM IFMAP Reads, "
                   "SRAM Filter Start Cycle, SRAM Filter Stop Cycle, SRAM Filter Reads, "
                   "SRAM OFMAP Start Cycle, SRAM OFMAP Stop Cycle, SRAM OFMAP Writes, "
                   "DRAM IFMAP Start Cycle, DRAM IFMAP Stop Cycle, DRAM IFMAP Reads, "
                   "DRAM Filter Start Cycle, DRAM Filter Stop Cycle, DRAM Filter Reads, "
                   "DRAM OFMAP Start Cycle, DRAM OFMAP Stop Cycle, DRAM OFMAP Writes,")
PERCENT = 100


def report_line(cells: list[object]) -> str:
    return ", ".join("" if c is None else str(c) for c in cells) + ","


def check_scalesim_arch(arch: ArchSpec) -> None:
    """Only the systolic family reports what SCALE-Sim does: any other arch is bad input."""
    if arch.family != "systolic":
        raise InputError.single("--report-format", "scalesim", f"SCALE-Sim reports need a systolic arch; "
                                f"{arch.name} is family {arch.family}")


def bandwidth_columns(arch: ArchSpec) -> tuple[str, ...]:
    if not arch.systolic.nm_sparsity:
        return BANDWIDTH_COLUMNS
    return BANDWIDTH_COLUMNS[:2] + (METADATA_BANDWIDTH,) + BANDWIDTH_COLUMNS[2:]


def scalesim_reports(run: RunResult) -> dict[str, str]:
    """File name -> text of the three reports (one row per layer, LayerID from 0)."""
    check_scalesim_arch(run.arch)
    columns = bandwidth_columns(run.arch)
    compute, bandwidth, detailed = [COMPUTE_HEADER], [report_line(["LayerID", *columns])], [DETAILED_HEADER]
    for i, r in enumerate(run.layers):
        counts = {(a.component, a.action): a.count for a in r.actions
                  if a.component_class in ("sram", "dram") and a.bits == run.arch.word_bits}
        overall = r.macs_dense / (r.cycles * r.peak_macs_per_cycle) * PERCENT
        compute.append(report_line([i, int(r.metrics["cycles_incl_prefetch"]), r.cycles, r.stall_cycles, overall,
                              r.metrics["mapping_efficiency"] * PERCENT, r.metrics["compute_utilization"] * PERCENT]))
        bandwidth.append(report_line([i] + [None] * len(columns)))
        detailed.append(report_line([i, None, None, counts[("ifmap_sram", "read")], None, None, counts[("filter_sram", "read")],
                               None, None, counts[("ofmap_sram", "write")], None, None, counts[("ifmap_sram", "write")],
                               None, None, counts[("filter_sram", "write")], None, None, counts[("dram", "write")]]))
    return {"COMPUTE_REPORT.csv": "\n".join(compute) + "\n", "BANDWIDTH_REPORT.csv": "\n".join(bandwidth) + "\n",
            "DETAILED_ACCESS_REPORT.csv": "\n".join(detailed) + "\n"}


def write_scalesim_reports(run: RunResult, out_dir: Path) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, text in scalesim_reports(run).items():
        paths[name] = out_dir / name
        paths[name].write_text(text)
    return paths
