"""The timing rules on cases small enough to work out by hand, and their monotonicity."""
import numpy as np
import pytest

from accel_sim.models.eie.fast.arithmetic import item_cycles
from accel_sim.models.eie.fast.broadcast import BroadcastTimeline, vector_timeline


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


def literal_recurrence(work: np.ndarray, fifo_depth: int, lnzd_latency: int):
    """The rules one broadcast at a time, as the module docstring states them: (broadcast cycles,
    start cycles, cycles)."""
    n_broadcasts, n_pes = work.shape
    broadcast, start = [], np.zeros((n_broadcasts, n_pes), dtype=np.int64)
    free = np.zeros(n_pes, dtype=np.int64)
    cycle = lnzd_latency - 1
    for t in range(n_broadcasts):
        cycle += 1
        if t >= fifo_depth:
            cycle = max(cycle, int(start[t - fifo_depth].max()))   # a free slot in every FIFO
        start[t] = np.maximum(free, cycle + 1)
        free = start[t] + work[t]
        broadcast.append(cycle)
    return broadcast, start, max(lnzd_latency, int(free.max()) if n_broadcasts else 0)


@pytest.mark.parametrize("seed", range(30))
def test_chunked_solution_equals_the_broadcast_by_broadcast_rules(seed):
    rng = np.random.default_rng(100 + seed)
    n_pes, depth, latency = int(rng.integers(1, 9)), int(rng.integers(1, 12)), int(rng.integers(0, 4))
    counts = rng.integers(0, 60, size=int(rng.integers(1, 6)))
    works = [rng.integers(0, int(rng.integers(1, 9)), size=(int(c), n_pes)) for c in counts]
    # all vectors at once, padded with 0-cycle items, one chunk of depth + 1 broadcasts per step
    timeline = BroadcastTimeline(counts, n_pes, depth, latency)
    padded = np.zeros((counts.size, int(counts.max()), n_pes), dtype=np.int64)
    for v, w in enumerate(works):
        padded[v, :len(w)] = w
    for t0 in range(0, padded.shape[1], depth + 1):
        timeline.advance(padded[:, t0:t0 + depth + 1])
    for v, w in enumerate(works):
        broadcast, start, cycles = literal_recurrence(w, depth, latency)
        single = vector_timeline(w, depth, latency)
        assert single.broadcast.tolist() == broadcast and single.start.tolist() == start.tolist()
        assert single.cycles == cycles == timeline.cycles[v]
        stall = broadcast[-1] - broadcast[0] - (len(broadcast) - 1) if broadcast else 0
        assert single.fifo_full_stall_cycles == stall == timeline.fifo_full_stall_cycles[v]
        finish = (start[-1] + w[-1]) if len(w) else np.zeros(n_pes)
        assert single.finish.tolist() == finish.tolist() == timeline.finish[v].tolist()


@pytest.mark.parametrize(("depth", "n_pes", "block"), [(1, 4, 2), (2, 3, 3), (4, 1, 10), (7, 5, 8), (3, 2, 1000)])
def test_compiled_steps_equal_the_chunked_recurrence(monkeypatch, depth, n_pes, block):
    # advance_all (numba's timeline_steps when installed, or the same loop as plain Python) and advance chunk by
    # chunk leave the same results: vectors of different lengths (none, one, several chunks), blocks of whole chunks.
    import accel_sim.models.eie.fast.broadcast as broadcast
    rng = np.random.default_rng(depth * 100 + n_pes)
    counts = np.array([0, 1, 5, 17, 3 * (depth + 1), 23])
    work = rng.integers(0, 4, (counts.size, counts.max(), n_pes)) * (np.arange(counts.max()) < counts[:, None])[..., None]
    step = block * (depth + 1)
    results = []
    for path in ("chunks", "compiled", "plain"):
        if path == "plain":
            monkeypatch.setattr(broadcast, "_compiled", lambda: broadcast.timeline_steps)
        timeline = BroadcastTimeline(counts, n_pes, depth, lnzd_latency=2)
        for b0 in range(0, work.shape[1], step):
            if path == "chunks":
                for t0 in range(b0, min(b0 + step, work.shape[1]), depth + 1):
                    timeline.advance(work[:, t0:min(t0 + depth + 1, b0 + step)])
            else:
                timeline.advance_all(work[:, b0:b0 + step])
        results.append((timeline.cycles, timeline.fifo_full_stall_cycles, timeline.finish, timeline.last))
    for got in results[1:]:
        for a, b in zip(got, results[0]):
            np.testing.assert_array_equal(a, b)
