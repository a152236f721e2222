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


@pytest.mark.parametrize("seed", range(4))
def test_runs_counted_in_closed_form_equal_the_requests_listed(seed):
    """Atomic requests in runs of consecutive sectors: the closed-form count per (CTA, slice) equals the demands of the
    same requests listed one by one (compiled table path), on random runs: long and short, empty, wrapping past the
    last slice, several runs per CTA, CTAs without runs, slices a run never reaches."""
    rng = np.random.default_rng(seed)
    slices = int(rng.integers(2, 12))
    runs = int(rng.integers(1, 40))
    cta = np.sort(rng.integers(0, 25, runs))
    first = rng.integers(0, 10 ** 5, runs)
    count = rng.integers(0, 400, runs)
    count[rng.random(runs) < 0.2] = 0
    count[0] = 3 * slices + 1
    machine = SimpleNamespace(l2_slices=slices, l2_atomic_cycles=int(rng.integers(1, 5)))
    packed = schedule.AtomicRuns(cta, first, count)
    closed = schedule.atomic_demands(machine, SimpleNamespace(atomic=packed, atomic_cta=packed.cta,
                                                              atomic_sector=packed.sector, atomic_serial=packed.serial))
    listed = schedule.atomic_demands(machine, _requests(*schedule.atomic_runs(cta, first, count)))
    assert schedule.run_demands(packed, slices) is not None                    # the closed form, not the listing
    assert all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(closed, listed))


def test_runs_closed_form_by_hand():
    """Two runs on 4 slices: CTA 0 sectors 6..15 (slices 2, 3, 0, 1, 2, 3, 0, 1, 2, 3), CTA 2 sectors 1..8; a run too
    short for the closed form (more slices than ATOMIC_TABLE_PER_REQUEST per request) is left to the listing."""
    runs = schedule.AtomicRuns(np.array([0, 2]), np.array([6, 1]), np.array([10, 8]))
    pairs, operations = schedule.run_demands(runs, 4)
    assert pairs.tolist() == [0, 1, 2, 3, 8, 9, 10, 11] and operations.tolist() == [2, 2, 3, 3, 2, 2, 2, 2]
    short = schedule.AtomicRuns(np.array([0]), np.array([0]), np.array([1]))
    assert schedule.run_demands(short, 8) is None
