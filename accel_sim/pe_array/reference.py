"""Per-cycle reference of the PE array's tile timing (plain Python, one row or window at a
time, one cycle per loop step). Same behaviour as :mod:`accel_sim.pe_array.timing`; tests
show identical cycles. Slow: for small layers and tests."""
from __future__ import annotations

import numpy as np

from accel_sim.pe_array.decoder import NO_CHUNK
from accel_sim.pe_array.spec import PEArraySpec
from accel_sim.pe_array.timing import FilterTileTiming


def dense_row_cycles(k: int, vector_width: int) -> int:
    """Step a dense row through its ``k`` positions, ``vector_width`` per cycle."""
    position = cycle = 0
    while position < k:
        cycle += 1
        position += min(vector_width, k - position)
    return cycle


def window_cycles(chunks: list[list[int]], vector_width: int, policy: str | None) -> tuple[int, int, int]:
    """(cycles, stolen weights, partial-sum runs) of rows that take each other's chunks
    (``policy``) or not (``None``), stepping one cycle at a time."""
    rows = len(chunks)
    queues = [list(c) for c in chunks]
    busy = [0] * rows
    holds = list(range(rows))
    cycle = stolen = runs = 0
    while any(busy) or any(queues):
        for r in range(rows):  # own chunks first
            if not busy[r] and queues[r]:
                busy[r] = max(1, -(-queues[r].pop(0) // vector_width))
                holds[r] = r
        for r in range(rows):  # then free rows without own chunks take others', in row order
            if busy[r] or policy is None or not any(queues):
                continue
            candidates = [q for q in range(rows) if queues[q]]
            victim = max(candidates, key=lambda q: (len(queues[q]), -q)) if policy == "longest_first" \
                else candidates[0]
            items = queues[victim].pop(0)
            busy[r] = max(1, -(-items // vector_width))
            stolen += items
            runs += holds[r] != victim
            holds[r] = victim
        if any(busy):
            cycle += 1
        busy = [max(b - 1, 0) for b in busy]
    return cycle, stolen, runs


def reference_timing(spec: PEArraySpec, k: int, items: np.ndarray | None, n: int) -> FilterTileTiming:
    """Tile timing cycle by cycle; ``items`` is None for the dense levels."""
    tiles = -(-n // spec.rows)
    if items is None:
        per_tile = []
        for _ in range(tiles):
            per_tile.append(max(dense_row_cycles(k, spec.vector_width) for _ in range(spec.rows)))
        return FilterTileTiming(cycles=tuple(per_tile))
    rows = [[int(c) for c in row if c != NO_CHUNK] for row in items] + [[] for _ in range(tiles * spec.rows - n)]
    cycles, stolen, runs = [], 0, 0
    for t in range(tiles):
        tile_rows = rows[t * spec.rows:(t + 1) * spec.rows]
        if spec.sparsity_support == "reassignment":
            w = spec.reassign_window
            results = [window_cycles(tile_rows[i:i + w], spec.vector_width, spec.reassign_policy)
                       for i in range(0, spec.rows, w)]
        else:
            results = [window_cycles([row], spec.vector_width, None) for row in tile_rows]
        cycles.append(max(r[0] for r in results) + spec.decoder_latency)
        stolen += sum(r[1] for r in results)
        runs += sum(r[2] for r in results)
    return FilterTileTiming(cycles=tuple(cycles), stolen_items=stolen, psum_runs=runs)
