"""Bad configs and layers give an InputError naming the file / field and what was expected."""
from pathlib import Path

import numpy as np
import pytest

from accel_sim import InputError, load_arch, load_workload
from accel_sim.models.scnn.family import FAMILY
from accel_sim.models.scnn.plan.operands import conv_operands
from accel_sim.foundations.workload import ConvLayer

LAYER = ConvLayer("c", in_h=8, in_w=8, in_channels=2, out_channels=4, kernel_h=3, kernel_w=3)


@pytest.mark.parametrize("field", ["scnn.mult_f", "scnn.mult_i"])
def test_zero_multipliers_are_refused(field):
    with pytest.raises(InputError, match=field.replace(".", r"\.") + ".*expected a value > 0"):
        load_arch("scnn", {field: 0})


def test_unknown_design_flag_is_refused():
    with pytest.raises(InputError, match=r"scnn\.design.*expected one of scnn, scnn_sparse_a"):
        load_arch("scnn", {"scnn.design": "eyeriss"})


def test_fc_layer_wider_than_the_iaram_names_the_field_and_the_way_out():
    # VGG-16's fc6: 25,088 dense inputs of 16 bits are 49 KiB, the IARAM 10 KiB: the input channels
    # are cut into chunks loaded one after the other from DRAM (each load a stall).
    fc6 = ConvLayer("fc6", in_h=1, in_w=1, in_channels=25088, out_channels=8, kernel_h=1, kernel_w=1)
    arch = load_arch("scnn")
    result = FAMILY.layer_result(arch, fc6)
    assert result.metrics["channel_chunks"] > 1
    _, inputs = conv_operands(fc6)
    input_bits = np.count_nonzero(inputs) * (arch.word_bits + arch.scnn.index_bits)   # zero-run entries
    load_cycles = input_bits / 8 / arch.scnn.dram_bandwidth
    assert result.stall_cycles >= load_cycles
    assert result.cycles >= load_cycles + result.metrics["products_issued"] / arch.scnn.mult_f


def test_one_pixel_of_one_channel_wider_than_the_iaram_names_the_field():
    # 2 B hold 16 bits; one compressed activation needs a 16-bit value, a 4-bit index and a count field
    arch = load_arch("scnn", {"scnn.iaram_size": 2})
    with pytest.raises(InputError, match=r"scnn\.iaram_size.*c: one pixel of ONE input channel "
                                         r"needs 21 bits, more than the IARAM of 2 B"):
        FAMILY.layer_result(arch, LAYER)


def test_kernel_larger_than_padded_input(tmp_path: Path):
    path = tmp_path / "w.yaml"
    path.write_text("name: w\nlayers:\n  - {name: c, type: conv, in_h: 4, in_w: 4, in_channels: 1, "
                    "out_channels: 1, kernel: 7, padding: 1}\n")
    with pytest.raises(InputError, match=r"layers\[0\].*kernel_h 7 is larger than the padded input height 6"):
        load_workload(path)


def test_channel_spread_needs_banks_multiple_of_f():
    with pytest.raises(InputError, match="multiple of mult_f"):
        load_arch("scnn", {"scnn.bank_mapping": "channel_spread", "scnn.accumulator_banks": 6})
