"""The timing rules on cases small enough to work out by hand, and their monotonicity."""
import numpy as np
import pytest

from accel_sim.eie.fast.arithmetic import item_cycles
from accel_sim.eie.fast.broadcast import vector_timeline


def test_hand_worked_two_pe_schedule():
    # 2 PEs, depth 1, first broadcast at cycle 1. Broadcast 0: PE0 3 entries, PE1 none; 1: PE1 3; 2: both 1.
    # b0 = 1; PEs pop at 2; PE0 busy 2..4, PE1 free at 2.
    # b1 = max(2, latest pop of broadcast 0 = 2) = 2; PE0 pops at 5, PE1 at 3 (busy 3..5).
    # b2 = max(3, latest pop of broadcast 1 = 5) = 5 (FIFO full: 2 stall cycles); both pop at 6.
    work = np.array([[3, 0], [0, 3], [1, 1]])
    t = vector_timeline(work, fifo_depth=1, lnzd_latency=1)
    assert t.broadcast.tolist() == [1, 2, 5]
    assert t.start.tolist() == [[2, 2], [5, 3], [6, 6]]
    assert t.cycles == 7
    assert t.fifo_full_stall_cycles == 2
    assert t.finish.tolist() == [7, 7] and t.busy.tolist() == [4, 4]


def test_deeper_fifo_removes_the_stall():
    work = np.array([[3, 0], [0, 3], [1, 1]])
    t = vector_timeline(work, fifo_depth=2, lnzd_latency=1)
    assert t.broadcast.tolist() == [1, 2, 3]
    assert t.start.tolist() == [[2, 2], [5, 3], [5, 6]]
    assert t.cycles == 7


def test_empty_slice_rule():
    entries = np.array([[0, 2], [1, 0]])
    assert item_cycles(entries, False).tolist() == [[0, 2], [1, 0]]
    assert item_cycles(entries, True).tolist() == [[1, 2], [1, 1]]


def test_no_broadcast_takes_the_lnzd_latency():
    t = vector_timeline(np.zeros((0, 4), dtype=np.int64), fifo_depth=8, lnzd_latency=3)
    assert t.cycles == 3 and t.fifo_full_stall_cycles == 0


@pytest.mark.parametrize("seed", range(20))
def test_cycles_never_grow_with_fifo_depth_and_respect_bounds(seed):
    rng = np.random.default_rng(seed)
    work = rng.integers(0, 6, size=(int(rng.integers(1, 80)), int(rng.integers(1, 9))))
    cycles = [vector_timeline(work, fifo_depth=d, lnzd_latency=2).cycles for d in (1, 2, 4, 8, 16, 1000)]
    assert cycles == sorted(cycles, reverse=True)
    for c in cycles:
        assert c >= work.sum(axis=0).max() + 3          # every PE's work after the first broadcast
        assert c >= work.shape[0] + 2                    # one broadcast per cycle
