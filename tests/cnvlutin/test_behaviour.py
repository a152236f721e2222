"""Cnvlutin and its dense baseline: speed-up behaviour, closed forms, bad input."""
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim import load_arch
from accel_sim.models.cnvlutin.family import FAMILY
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload import ConvLayer
from tests.cnvlutin.test_refinement import layers


def test_dense_input_gives_no_speedup_and_zeros_give_speedup():
    dense = ConvLayer("c", in_h=10, in_w=10, in_channels=64, out_channels=32, kernel_h=3, kernel_w=3, input_density=1.0)
    base, cnv = load_arch("dadiannao"), load_arch("cnvlutin")
    assert FAMILY.layer_result(cnv, dense).cycles == FAMILY.layer_result(base, dense).cycles
    speedups = []
    for density in (0.8, 0.5, 0.2):
        sparse = ConvLayer("c", in_h=10, in_w=10, in_channels=64, out_channels=32, kernel_h=3, kernel_w=3,
                           input_density=density)
        speedups.append(FAMILY.layer_result(base, sparse).cycles / FAMILY.layer_result(cnv, sparse).cycles)
    assert speedups == sorted(speedups) and speedups[0] > 1.0
    assert speedups[-1] < 1 / 0.2  # lanes wait for the slowest at every window: below the ideal


def test_baseline_cycles_closed_form():
    """DaDianNao: one brick per cycle per window per pass of 256 filters."""
    layer = ConvLayer("c", in_h=7, in_w=7, in_channels=40, out_channels=300, kernel_h=3, kernel_w=3, input_density=0.5)
    result = FAMILY.layer_result(load_arch("dadiannao"), layer)
    assert result.cycles == 5 * 5 * (3 * 3 * math.ceil(40 / 16)) * math.ceil(300 / 256)
    assert result.macs_issued == layer.macs


def test_bad_config():
    with pytest.raises(InputError, match="cnvlutin.empty_brick_cycles"):
        load_arch("cnvlutin", {"cnvlutin.empty_brick_cycles": 3})
    with pytest.raises(InputError, match="cnvlutin.units"):
        load_arch("cnvlutin", {"cnvlutin.units": 0})


@settings(max_examples=20, deadline=None)
@given(layer=layers(), lanes=st.sampled_from([4, 16]), empty=st.integers(0, 1))
def test_cnvlutin_never_slower_than_its_baseline(layer, lanes, empty):
    """A lane's work at a position is at most its slice depth, the baseline's cycles there."""
    opts = {"cnvlutin.neuron_lanes": lanes, "cnvlutin.empty_brick_cycles": empty}
    cnv = FAMILY.layer_result(load_arch("cnvlutin", opts), layer)
    base = FAMILY.layer_result(load_arch("dadiannao", opts), layer)
    assert cnv.cycles <= base.cycles
    assert cnv.macs_issued <= base.macs_issued == layer.macs
