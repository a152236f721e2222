"""Reference, the GPU running one kernel: the CTA scheduler, the SMs and the memory system.

The scheduler waits the kernel's launch gap (``kernel_launch_cycles``), then puts the kernel's CTAs, in launch order, into one queue (a store) the SMs take
them from; one CTA is resident per SM, so it launches as many CTAs as there are SMs (a wave)
and the next ones when the wave's SMs have all written their C tiles. A kernel that read DRAM ends
``dram_stream_cycles`` after its last wave (the DRAM stream's ramp and drain).
"""
from __future__ import annotations

import simpy

from accel_sim.hardware.recorder import Recorder
from accel_sim.models.tensor_core.counters import TensorCoreCounters
from accel_sim.models.tensor_core.plan import TensorCorePlan
from accel_sim.models.tensor_core.reference.memory import MemorySystem
from accel_sim.models.tensor_core.reference.sm import Cta, StreamingMultiprocessor
from accel_sim.models.tensor_core.reference.tally import Tally


def _scheduler(env: simpy.Environment, ctas: list[Cta], sms: int, queue: simpy.Store, memory: MemorySystem,
               launch: int, drain: int):
    yield env.timeout(launch)               # the kernel's launch gap before its first wave
    for number, first in enumerate(range(0, len(ctas), sms)):
        launch = ctas[first:first + sms]
        wave = memory.open_wave(number, len(launch))
        for cta in launch:
            yield queue.put((cta, wave))
        yield wave.finished
    if memory.tally.elements["dram_a"] + memory.tally.elements["dram_b"]:
        yield env.timeout(drain)            # a kernel that read DRAM: its stream's ramp and drain
    return int(env.now)


def run_kernel(plan: TensorCorePlan, index: int, limit: int | None,
               recorder: Recorder | None = None) -> TensorCoreCounters | None:
    """Run candidate kernel ``index``; None when it has not finished before cycle ``limit``."""
    env = simpy.Environment()
    tally = Tally()
    tile, grid = plan.kernels[index], plan.grids[index]
    memory = MemorySystem(env, plan, tally, tile, recorder)
    queue = simpy.Store(env)
    for number in range(plan.spec.sms):
        StreamingMultiprocessor(env, number, plan, tile, grid.split, queue, tally, recorder)
    ctas = [Cta(*cta) for cta in zip(grid.rows.tolist(), grid.cols.tolist(), grid.row_panel.tolist(),
                                     grid.col_panel.tolist(), grid.slice.tolist())]
    kernel = env.process(_scheduler(env, ctas, plan.spec.sms, queue, memory, plan.spec.kernel_launch_cycles,
                                    plan.spec.dram_stream_cycles))
    env.run(until=kernel if limit is None else limit)
    if not kernel.triggered:
        return None
    return tally.counters(index, kernel.value, grid.split)
