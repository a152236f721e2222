"""DNNsim's SCNN model (isakedo/DNNsim 4748a60) on its own tensors: ``--arch scnn_dnnsim`` gives
DNNsim's cycles and multiplications on the five development layers (tests/data/dnnsim_scnn), in
the fast path through the CLI and in the reference on the smaller layers; a DNNsim-rule choice
outside its allowed set is one clear line and exit 2."""
import csv
import subprocess
import sys
from pathlib import Path

import pytest

from accel_sim import load_arch, load_workload
from accel_sim.cli.main import main
from accel_sim.models.scnn.family import FAMILY

DATA = Path(__file__).parents[1] / "data" / "dnnsim_scnn"
WORKLOAD = DATA / "scnn_dnnsim.yaml"
DNNSIM = {row["layer"]: row for row in csv.DictReader(open(DATA / "dnnsim_cycles.csv"))}


def test_cli_run_gives_dnnsims_cycles_on_every_layer(tmp_path):
    assert main(["run", "--arch", "scnn_dnnsim", "--workload", str(WORKLOAD), "--out", str(tmp_path),
                 "--no-figure"]) == 0
    rows = {row["layer"]: row for row in csv.DictReader(open(tmp_path / "layers.csv"))}
    assert set(rows) == set(DNNSIM)
    for name, want in DNNSIM.items():
        assert int(rows[name]["cycles"]) == int(want["cycles"]), name
        assert int(rows[name]["macs_issued"]) == int(want["mults"]), name


@pytest.mark.parametrize("name", ["inception_4a-5x5", "inception_4a-5x5_reduce"])
def test_reference_gives_dnnsims_cycles(name):
    arch = load_arch("scnn_dnnsim")
    layer = next(layer for layer in load_workload(WORKLOAD).layers if layer.name == name)
    plan = FAMILY.plan(arch, layer)
    counters = FAMILY.reference(plan)
    assert counters.compute_cycles == int(DNNSIM[name]["cycles"])
    assert counters.macs_issued == int(DNNSIM[name]["mults"])
    assert counters == FAMILY.fast(plan)


@pytest.mark.parametrize("field,value", [("partition", "tiles"), ("kc_rule", "output"), ("bank_mapping", "xor"),
                                         ("barrier", "channel"), ("halo_charge", "serial"),
                                         ("out_of_plane", "dropped"), ("dram", "skipped"),
                                         ("stride_phases", "padded"), ("fc_layout", "planes")])
def test_a_dnnsim_rule_outside_its_set_is_one_line_and_exit_2(field, value):
    proc = subprocess.run([sys.executable, "-m", "accel_sim", "run", "--arch", "scnn_dnnsim", "--workload",
                           str(WORKLOAD), "--set", f"scnn.{field}={value}", "--no-figure"],
                          capture_output=True, text=True, cwd=Path(__file__).parents[2])
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"scnn.{field}" in lines[0] and "expected one of" in lines[0], proc.stderr


def test_study_rows_are_dnnsims_cycles():
    from accel_sim.studies.registry import all_studies
    from accel_sim.studies.scnn_dnnsim import scnn_dnnsim_study
    assert "scnn-dnnsim" in all_studies()
    out = scnn_dnnsim_study(layers=("inception_4a-5x5", "inception_5b-pool_proj"))
    assert list(out.results.layer) == ["inception_4a-5x5", "inception_5b-pool_proj"]
    cycles = [c for c in out.comparisons if c.unit == "cycles"]
    assert [c.published for c in cycles] == [7573.0, 13397.0]
    assert all(c.within_tolerance and c.relative_error == 0 for c in out.comparisons)
    assert "| googlenet | inception_4a-5x5 | 7573 | 7573 | +0.000% |" in out.readme
