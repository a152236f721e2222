"""Per-tile SimPy reference of the DLU-style array (slow; same cycles as :mod:`timing`).

Three SimPy processes per step (loader, array, drain) and a barrier (``all_of``) ending the
step; tiles come one at a time from :func:`accel_sim.dlu.tiling.iter_tiles` (plain loops,
independent of the vectorised tile arrays). Events are per tile stage and per barrier.
"""
from __future__ import annotations

import simpy

from accel_sim.dlu.tiling import Tiling, iter_tiles
from accel_sim.dlu.timing import GroupTiming, StageParameters, load_cycles, stats_cycles, write_cycles
from accel_sim.errors import SimulationError


def _stage(env: simpy.Environment, who: str, cycles: int, log: list[tuple[str, int, int]]):
    start = env.now
    if cycles:
        yield env.timeout(cycles)
    log.append((who, start, env.now))


def reference_timing(tiling: Tiling, p: StageParameters, max_cycles: int,
                     log: list[tuple[str, int, int]] | None = None) -> GroupTiming:
    """Run the pipeline event by event; ``log`` receives ``(who, start, end)`` of every stage."""
    env = simpy.Environment()
    log = [] if log is None else log
    busy_total = [0]
    done = env.event()

    def controller():
        pending_compute = None     # tile in the array this step
        pending_drain = None       # tile in the drain stage this step
        tiles = iter_tiles(tiling)
        count = 0
        while True:
            tile = next(tiles, None)
            if tile is None and pending_compute is None and pending_drain is None:
                break
            stages = []
            if tile is not None:
                count += 1
                stages.append(env.process(_stage(env, f"load{count - 1}", int(load_cycles(tile[3], tile[4], p)), log)))
            compute = stats = 0
            if pending_compute is not None:
                compute = pending_compute[2]
                stages.append(env.process(_stage(env, "array", compute, log)))
            if pending_drain is not None:
                rows, cols, _, _, _, last = pending_drain
                stats = int(stats_cycles(rows * cols, last, p))
                stages.append(env.process(_stage(env, "statistics", stats, log)))
                stages.append(env.process(_stage(env, "writeback", int(write_cycles(rows * cols, last, p)), log)))
            busy_total[0] += max(compute, stats)
            yield env.all_of(stages)
            log.append(("barrier", env.now, env.now))
            pending_drain, pending_compute = pending_compute, tile
        if p.readout_cycles:
            yield env.process(_stage(env, "readout", p.readout_cycles, log))
        done.succeed(count)

    env.process(controller())
    env.run(until=simpy.AnyOf(env, [done, env.timeout(max_cycles + 1)]))
    if not done.triggered:
        raise SimulationError(f"DLU reference ran past its max_cycles guard {max_cycles}")
    return GroupTiming(int(env.now), busy_total[0] + p.readout_cycles, done.value)
