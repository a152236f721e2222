"""``--report-format scalesim``: SCALE-Sim v3's three report files, with its exact headers and, on the
shipped SCALE-Sim cases, its cycle columns and access counts."""
import csv

import pytest

from accel_sim import simulate
from accel_sim.cli.main import main
from accel_sim.pipeline.report.scalesim import report_line, bandwidth_columns, scalesim_reports
from accel_sim.foundations.workload.layer import Network
from tests.systolic._scalesim_files import case_dirs, load_case

CYCLE_COLUMNS = ("Total Cycles (incl. prefetch)", "Total Cycles", "Stall Cycles")
COUNT_COLUMNS = ("SRAM IFMAP Reads", "SRAM Filter Reads", "SRAM OFMAP Writes", "DRAM IFMAP Reads",
                 "DRAM Filter Reads", "DRAM OFMAP Writes")


def _rows(text: str) -> tuple[list[str], list[dict[str, str]]]:
    rows = [[c.strip() for c in row] for row in csv.reader(text.splitlines())]
    header = [c for c in rows[0] if c]
    return header, [dict(zip(header, row)) for row in rows[1:]]


@pytest.mark.parametrize("case_dir", case_dirs(), ids=lambda d: d.name)
def test_reports_have_scalesims_columns_and_cycle_values(case_dir):
    case = load_case(case_dir)
    reports = scalesim_reports(simulate(case.arch, Network(case.name, case.layers)))
    for name in ("COMPUTE_REPORT.csv", "DETAILED_ACCESS_REPORT.csv"):
        ours, theirs = reports[name].splitlines()[0], (case_dir / name).read_text().splitlines()[0]
        assert ours == theirs, name                               # byte for byte, trailing comma included
    header, rows = _rows(reports["COMPUTE_REPORT.csv"])
    for row, expected in zip(rows, case.compute, strict=True):
        assert all(float(row[c]) == expected[c] for c in CYCLE_COLUMNS)
        assert float(row["Compute Util %"]) == pytest.approx(expected["Compute Util %"], rel=1e-9)
    _, access = _rows(reports["DETAILED_ACCESS_REPORT.csv"])
    for row, expected in zip(access, case.access, strict=True):
        assert all(float(row[c]) == pytest.approx(expected[c], abs=0.5) for c in COUNT_COLUMNS)
    assert reports["BANDWIDTH_REPORT.csv"].splitlines()[0] == report_line(["LayerID", *bandwidth_columns(case.arch)])


@pytest.mark.parametrize("case_dir", [d for d in case_dirs() if (d / "BANDWIDTH_REPORT.csv").exists()],
                         ids=lambda d: d.name)
def test_bandwidth_header_is_scalesims_dense_or_sparse_one(case_dir):
    theirs = (case_dir / "BANDWIDTH_REPORT.csv").read_text().splitlines()[0]
    assert report_line(["LayerID", *bandwidth_columns(load_case(case_dir).arch)]) == theirs


def test_cli_writes_the_three_files(tmp_path):
    assert main(["run", "--arch", "scalesim_32x32_ws", "--workload", "tiny_conv", "--out", str(tmp_path),
                 "--report-format", "scalesim", "--no-figure"]) == 0
    assert {p.name for p in tmp_path.glob("*_REPORT.csv")} == {"COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv",
                                                               "DETAILED_ACCESS_REPORT.csv"}


def test_a_non_systolic_arch_is_refused_in_one_line(tmp_path, capsys):
    assert main(["run", "--arch", "eie_4pe_example", "--workload", "eie_4pe_example", "--out", str(tmp_path),
                 "--report-format", "scalesim"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "SCALE-Sim reports need a systolic arch" in err[0]
