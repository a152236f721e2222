"""Bad EIE configs and layers give one clear InputError (exit code 2 on the command line)."""
from pathlib import Path

import pytest

from accel_sim.cli.main import main
from accel_sim.pipeline.catalog import load_arch
from accel_sim.models.eie.family import FAMILY
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer


@pytest.mark.parametrize(("field", "value", "expected"), [
    ("eie.fifo_depth", 0, "eie.fifo_depth: expected a value > 0, got 0"),
    ("eie.n_pes", 0, "eie.n_pes: expected a value > 0, got 0"),
    ("eie.spmat_sram_width", 60, "spmat_sram_width 60 bits is not a multiple of the entry width 8 bits"),
    ("eie.sram_overflow", "ignore", "expected one of error, dram_spill, grow_on_chip"),
    ("eie.pointer_bits", 0, "eie.pointer_bits: expected a value > 0, got 0"),
    ("eie.pointer_bits", -3, "eie.pointer_bits: expected a value > 0, got -3"),
    ("eie.fifo_dept", 4, "unknown field; did you mean 'fifo_depth'?"),
])
def test_bad_config_fields(field, value, expected):
    with pytest.raises(InputError) as err:
        load_arch("eie", {field: value})
    assert expected in str(err.value)
    assert "eie.yaml" in str(err.value)


@pytest.mark.parametrize("setting", ["eie.fifo_depth=0", "eie.pointer_bits=0"])
def test_bad_config_on_the_command_line(capsys, setting):
    assert main(["run", "--arch", "eie", "--workload", "eie_4pe_example", "--set", setting]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    field = setting.split("=")[0]
    assert len(err) == 1 and field in err[0] and "eie.yaml" in err[0] and "Traceback" not in err[0]


def test_pointer_width_below_1_in_a_config_file(tmp_path, capsys):
    config = tmp_path / "narrow.yaml"
    text = (Path(__file__).resolve().parents[2] / "arch_configs" / "eie.yaml").read_text()
    config.write_text(text.replace("pointer_bits: 16 ", "pointer_bits: 0 "))
    assert main(["run", "--arch", str(config), "--workload", "eie_4pe_example"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "narrow.yaml" in err[0] and "eie.pointer_bits: expected a value > 0, got 0" in err[0]


def test_matrix_that_does_not_fit_is_refused_with_the_reason():
    arch = load_arch("eie", {"eie.n_pes": 2, "eie.sram_overflow": "error", "eie.spmat_sram_size": "1 KiB"})
    layer = GemmLayer("big", m=1, k=512, n=64, weight_density=0.5)
    with pytest.raises(InputError) as err:
        FAMILY.layer_result(arch, layer)
    message = str(err.value)
    assert "eie.spmat_sram_size" in message and "layer big" in message and "dram_spill" in message


def test_pointer_width_and_pointer_sram_overflow_are_refused():
    arch = load_arch("eie", {"eie.n_pes": 1, "eie.sram_overflow": "error", "eie.pointer_bits": 8,
                             "eie.pointer_sram_size": "256 B"})
    layer = GemmLayer("wide", m=1, k=300, n=16, weight_density=0.5)
    with pytest.raises(InputError) as err:
        FAMILY.layer_result(arch, layer)
    paths = {p.path for p in err.value.problems}
    assert paths == {"eie.pointer_bits", "eie.pointer_sram_size"}


def test_dram_spill_loads_the_excess_and_stalls():
    layer = GemmLayer("big", m=1, k=512, n=64, weight_density=0.5)
    fits = FAMILY.layer_result(load_arch("eie", {"eie.n_pes": 2}), layer)
    arch = load_arch("eie", {"eie.n_pes": 2, "eie.spmat_sram_size": "1 KiB", "eie.sram_overflow": "dram_spill"})
    spilled = FAMILY.layer_result(arch, layer)
    assert fits.dram_read_bytes == 0 and fits.stall_cycles == 0
    assert spilled.dram_read_bytes == spilled.metrics["spill_bytes"] > 0
    assert spilled.stall_cycles == -(-spilled.dram_read_bytes // 8)   # eie.yaml: 8 B/cycle, latency 0
    assert spilled.compute_cycles == fits.compute_cycles
    assert any(a.component == "dram" for a in spilled.actions)


def test_convolution_is_refused_clearly():
    arch = load_arch("eie", {"eie.n_pes": 4})
    conv = ConvLayer("c", in_h=6, in_w=6, in_channels=2, out_channels=4, kernel_h=3, kernel_w=3)
    with pytest.raises(InputError, match="fully connected"):
        FAMILY.layer_result(arch, conv)
