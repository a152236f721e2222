"""Each CTA's demand on each L2 slice's atomic unit (plan/schedule.atomic_demands), hand-counted, through both of its
ways of grouping the requests: a table of every (CTA, slice) key, and a sort of the requests when the keys are sparse
(ATOMIC_TABLE_PER_REQUEST decides). Named test_refinement_* so tools/mutation.py's simt run uses it."""
from types import SimpleNamespace

import numpy as np
import pytest

from accel_sim.models.simt.plan import schedule

MACHINE = SimpleNamespace(l2_slices=4, l2_atomic_cycles=2)


def _requests(cta, sector, serial):
    return SimpleNamespace(atomic_cta=np.array(cta), atomic_sector=np.array(sector), atomic_serial=np.array(serial))


@pytest.mark.parametrize("table", [0, 100], ids=["sorted", "table"])
def test_demands_per_cta_and_slice_are_hand_counted(monkeypatch, table):
    monkeypatch.setattr(schedule, "ATOMIC_TABLE_PER_REQUEST", table)
    # keys cta * 4 + sector % 4: 1, 1, 2, 7, 9; cycles = serial operations x 2 per key
    cta, slices, cycles = schedule.atomic_demands(MACHINE, _requests([0, 0, 0, 1, 2], [1, 5, 2, 7, 9], [1, 2, 1, 1, 3]))
    assert cta.tolist() == [0, 0, 1, 2] and slices.tolist() == [1, 2, 3, 1] and cycles.tolist() == [6, 2, 2, 6]
    assert cta.dtype == slices.dtype == cycles.dtype == np.int64
    one = schedule.atomic_demands(MACHINE, _requests([0], [0], [1]))     # a single key 0
    assert [a.tolist() for a in one] == [[0], [0], [2]]
