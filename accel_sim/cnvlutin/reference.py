"""Per-cycle reference of Cnvlutin's lanes: one window at a time, one cycle per loop step.
Same behaviour as :func:`accel_sim.cnvlutin.bricks.cnvlutin_window_cycles`; slow, for tests."""
from __future__ import annotations


def window_cycles_reference(per_lane: list[list[int]], empty_cycles: int) -> int:
    """Step the lanes of one window: each cycle every lane with work processes one non-zero
    neuron of its slice at its current position (or spends the empty cycle), then moves on."""
    lanes = len(per_lane)
    queues = [list(q) for q in per_lane]
    left = [None] * lanes  # neurons (or empty cycles) left at the current position
    cycle = 0
    while True:
        for lane in range(lanes):
            if not left[lane] and queues[lane]:
                nnz = queues[lane].pop(0)
                left[lane] = nnz if nnz > 0 else empty_cycles
                while not left[lane] and queues[lane]:  # empty bricks that cost no cycle
                    nnz = queues[lane].pop(0)
                    left[lane] = nnz if nnz > 0 else empty_cycles
        if not any(left):
            return cycle
        cycle += 1
        left = [max(0, (v or 0) - 1) for v in left]


def dense_window_cycles_reference(bricks: int) -> int:
    """The baseline: one brick per cycle, all lanes in lockstep."""
    cycle = 0
    for _ in range(bricks):
        cycle += 1
    return cycle
