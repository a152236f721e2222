"""Bad input is one line naming the field, exit 2: a precision of 0 or above the 16-bit datapath, an unknown
design, a switch on a design that lacks it."""
import subprocess
import sys

import pytest

from accel_sim.cli.main import main
from tests.bitserial._layers import ROOT


def _workload(tmp_path, extra: str) -> str:
    path = tmp_path / "w.yaml"
    path.write_text("name: w\nlayers:\n  - {name: c1, type: conv, in_channels: 8, out_channels: 4, in_h: 5, in_w: 5, "
                    f"kernel: 3, input_density: 0.5{extra}}}\n")
    return str(path)


@pytest.mark.parametrize("extra,field", [(", activation_bits: 17", "activation_bits"),
                                         (", weight_bits: 20", "weight_bits"),
                                         (", activation_bits: 0", "activation_bits"),
                                         (", weight_bits: 0", "weight_bits")])
def test_a_precision_outside_the_datapath_is_one_line_naming_the_field(tmp_path, capsys, extra, field):
    code = main(["run", "--arch", "bitserial_dnnsim_stripes", "--workload", _workload(tmp_path, extra),
                 "--no-figure", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and field in err[0], err


@pytest.mark.parametrize("setting,words", [("bitserial.design=stripez", ["bitserial.design", "expected one of"]),
                                           ("bitserial.tactical=true", ["bitserial.tactical"]),
                                           ("bitserial.pe_width=17", ["bitserial.pe_width"]),
                                           ("bitserial.output_bits=24", ["bitserial.output_bits", "multiple of 16"]),
                                           ("bitserial.output_bits=0", ["bitserial.output_bits"]),
                                           ("bitserial.output_bits=80", ["bitserial.output_bits"])])
def test_a_bad_config_choice_is_one_line_naming_the_field(tmp_path, capsys, setting, words):
    code = main(["run", "--arch", "bitserial_dnnsim_stripes", "--workload", _workload(tmp_path, ""),
                 "--set", setting, "--no-figure", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and all(w in err[0] for w in words), err


def test_the_process_exits_2_with_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "accel_sim", "run", "--arch", "bitserial_dnnsim_loom_gs1_psb1",
                           "--workload", _workload(tmp_path, ", weight_bits: 17"), "--no-figure",
                           "--out", str(tmp_path / "out")], capture_output=True, text=True, cwd=ROOT)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "weight_bits" in lines[0], proc.stderr
