"""The shipped pe_array, cnvlutin and dadiannao configs: one switch per level, loadable, runnable."""
import pytest

from accel_sim import load_arch, simulate
from accel_sim.models.pe_array.spec import SUPPORT_LEVELS
from accel_sim.foundations.workload import ConvLayer, Network

LEVEL_FILES = {"none": "pe_array", **{level: f"pe_array_{level}" for level in SUPPORT_LEVELS[1:]}}


@pytest.mark.parametrize("level", SUPPORT_LEVELS)
def test_each_level_file_changes_only_the_level(level):
    arch = load_arch(LEVEL_FILES[level])
    base = load_arch("pe_array")
    assert arch.pe_array.sparsity_support == level
    assert arch.pe_array == base.pe_array.__class__(**{**base.pe_array.__dict__, "sparsity_support": level})


def test_cnvlutin_extends_its_baseline_with_one_switch():
    cnv, base = load_arch("cnvlutin"), load_arch("dadiannao")
    assert cnv.cnvlutin.zero_skipping and not base.cnvlutin.zero_skipping
    assert cnv.cnvlutin.peak_macs_per_cycle == base.cnvlutin.peak_macs_per_cycle == 16 * 16 * 16
    layer = ConvLayer("c", in_h=6, in_w=6, in_channels=32, out_channels=16, kernel_h=3, kernel_w=3, input_density=0.4)
    assert simulate(cnv, Network("n", (layer,))).layers[0].cycles < simulate(base, Network("n", (layer,))).layers[0].cycles
