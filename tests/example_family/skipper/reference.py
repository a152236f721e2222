"""Discrete-event reference: a fetcher process and a lanes process joined by a FIFO of the
hardware depth. Events per FIFO entry; the timing comes from how the two processes meet."""
from __future__ import annotations

import simpy

from accel_sim.hardware import Fifo, run_until_done
from accel_sim.models.skipper.counters import SkipperCounters
from accel_sim.models.skipper.plan import SkipperPlan

FETCH_CYCLES = 1  # the fetcher reads one activation per cycle (spec of the example)


def reference(plan: SkipperPlan, max_cycles: int | None = None) -> SkipperCounters:
    env = simpy.Environment()
    fifo = Fifo(env, plan.spec.fifo_depth, "activation_fifo")
    n = plan.layer.gemm().n
    done = {"macs": 0, "weights": 0, "end": 0}
    total = int(plan.nonzeros_per_row.sum())

    def fetcher():
        for _ in range(total):
            yield env.timeout(FETCH_CYCLES)
            yield fifo.put("activation")

    def lanes():
        for _ in range(total):
            yield fifo.get()
            for start in range(0, n, plan.spec.lanes):      # one pass of the lanes per cycle
                width = min(plan.spec.lanes, n - start)
                done["macs"] += width
                done["weights"] += width
            yield env.timeout(-(-n // plan.spec.lanes))
        done["end"] = int(env.now)

    env.process(fetcher())
    finished = env.process(lanes())
    run_until_done(env, finished, max_cycles, plan.layer.name)
    return SkipperCounters(cycles=done["end"], activation_reads=fifo.pushes, weight_reads=done["weights"],
                           macs_issued=done["macs"])
