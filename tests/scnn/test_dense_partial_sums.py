"""scnn.dense_partial_sums (DCNN's partial sums in place or in the accumulator buffer): bad input, and the
accounting it changes (energy only), exactly."""
import math

import pytest

from accel_sim import InputError, load_arch
from accel_sim.cli.main import main
from accel_sim.models.scnn.accounting import account
from accel_sim.models.scnn.family import FAMILY
from accel_sim.foundations.workload import ConvLayer

LAYER = ConvLayer("c", in_h=6, in_w=6, in_channels=3, out_channels=5, kernel_h=3, kernel_w=3, weight_density=0.5,
                  input_density=0.6)


def test_buffer_needs_a_dense_design_and_bad_values_are_one_line(tmp_path, capsys):
    with pytest.raises(InputError, match=r"scnn\.dense_partial_sums.*expected one of in_place, buffer"):
        load_arch("dcnn", {"scnn.dense_partial_sums": "tree"})
    with pytest.raises(InputError, match=r"scnn\.dense_partial_sums 'buffer' .* needs design dcnn or dcnn_opt"):
        load_arch("scnn", {"scnn.dense_partial_sums": "buffer"})
    assert main(["run", "--arch", "scnn", "--workload", "alexnet", "--out", str(tmp_path), "--set",
                 "scnn.dense_partial_sums=buffer"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "scnn.dense_partial_sums" in err[0] and "scnn.yaml" in err[0]


@pytest.mark.parametrize("design", ["dcnn", "dcnn_opt"])
def test_buffer_adds_a_read_and_a_write_per_i_products_and_nothing_else(design):
    shipped = load_arch(design)
    buffered = load_arch(design, {"scnn.dense_partial_sums": "buffer"})
    plan_in_place, plan_buffer = FAMILY.plan(shipped, LAYER), FAMILY.plan(buffered, LAYER)
    counters = FAMILY.fast(plan_in_place, None)
    assert FAMILY.fast(plan_buffer, None) == counters          # the choice changes no counter, only the charge
    in_place, buffer = account(plan_in_place, counters), account(plan_buffer, counters)
    updates = math.ceil(counters.products / shipped.scnn.mult_i)
    moved = {(a.component, a.action): a.count for a in buffer.actions if a not in in_place.actions}
    assert moved == {("accumulator_banks", "read"): updates, ("accumulator_banks", "write"): updates}
    kept = {(a.component, a.action): a.count for a in in_place.actions if a not in buffer.actions}
    assert kept == {("accumulator_banks", "read"): 0, ("accumulator_banks", "write"): counters.ppu_outputs}
    assert (buffer.cycles, buffer.macs_issued) == (in_place.cycles, in_place.macs_issued)
