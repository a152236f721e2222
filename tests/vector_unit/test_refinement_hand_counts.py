"""Vector unit: timing both paths read from the plan, counted by hand (a plan bug moves the fast
path and the reference together), and the max_cycles guard at its boundary on both paths."""
from __future__ import annotations

import pytest

from accel_sim.foundations.errors import SimulationError
from accel_sim.models.vector_unit.fast import fast
from accel_sim.models.vector_unit.plan import plan
from accel_sim.models.vector_unit.reference import reference
from accel_sim.models.vector_unit.spec import VectorUnitSpec
from accel_sim.foundations.workload.layer import VectorLayer

# Residual add of one row of 4 elements on one 4-lane unit, 16-bit elements, an SRAM port of 1 B a
# cycle: one vector, which reads 2 elements and writes 1 per lane: 4 x 3 x 16 = 192 bits = 24 bytes,
# 24 port cycles; one add: 1 ALU cycle. Cycles 24 + 1 = 25.
SPEC = VectorUnitSpec(units=1, lanes=4, special_per_cycle=1, sram_bandwidth=1.0, element_bits=16)
LAYER = VectorLayer("add", "residual_add", rows=1, width=4)


def test_sram_port_cycles_are_bytes_over_bandwidth():
    work = plan(SPEC, LAYER)
    assert (work.passes[0].read_cycles, work.passes[0].compute_cycles, work.passes[0].barrier_cycles) == (24, 1, 0)
    for count in (fast, reference):
        counters = count(work)
        assert (counters.busy_cycles, counters.vectors, counters.adds) == (25, 1, 4)
        assert (counters.sram_read_bits, counters.sram_write_bits) == (4 * 2 * 16, 4 * 16)


@pytest.mark.parametrize("count", [fast, reference], ids=["fast", "reference"])
def test_max_cycles_is_the_last_cycle_allowed(count):
    work = plan(SPEC, LAYER)
    assert count(work, 25).busy_cycles == 25
    with pytest.raises(SimulationError, match="max_cycles"):
        count(work, 24)
