"""Bit Fusion (Sharma et al., ISCA 2018) on the bitserial tiles: the fused-brick step cost by hand, fast ==
reference, and its energy priced as 2-bit brick multiplies."""
import pytest

from accel_sim import load_arch
from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.models.bitserial.family import FAMILY
from accel_sim.models.bitserial.plan import fused_bricks
from accel_sim.pipeline.simulate import simulate_layer
from tests.bitserial._layers import arch, conv
from tests.bitserial.test_refinement_accounting import INPUTS, WEIGHTS


@pytest.mark.parametrize("bits, bricks", [(1, 1), (2, 1), (3, 2), (4, 2), (5, 4), (8, 4), (9, 8), (11, 8), (16, 8)])
def test_precisions_fuse_in_powers_of_two(bits, bricks):
    assert fused_bricks(bits, 2) == bricks


@pytest.mark.parametrize("act, wgt, cycles", [(2, 2, 1), (4, 4, 1), (4, 8, 2), (8, 8, 4), (5, 10, 8), (16, 16, 16)])
def test_step_cost_on_the_shipped_config(act, wgt, cycles):
    machine = load_arch("bitserial_bitfusion")          # 16 lanes, 64 bricks per PE position
    layer = conv("bf", WEIGHTS, INPUTS, activation_bits=act, weight_bits=wgt)
    plan = FAMILY.plan(machine, layer)
    assert plan.fusion_cycles == cycles
    fast = FAMILY.fast(plan)
    assert fast == FAMILY.reference(plan)
    assert fast.cycles == fast.steps * cycles


def test_small_grid_fast_equals_reference_and_energy_is_brick_multiplies():
    machine = arch(design="bitfusion", columns=2, lanes=2, rows=1, tiles=1, bricks=4)
    plan = FAMILY.plan(machine, conv("bf2", WEIGHTS, INPUTS))
    assert FAMILY.fast(plan) == FAMILY.reference(plan)
    run = simulate_layer(machine, plan.layer, load_energy_table(machine.energy_table))
    bricks = [a for a in run.result.actions if a.component == "pe_array" and a.component_class == "mult_int"]
    assert [(a.bits, a.count) for a in bricks] == [(2, FAMILY.fast(plan).serial_cycles * 4)]
