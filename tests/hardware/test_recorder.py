"""The event recorder and the shared blocks that record themselves when given one."""
from __future__ import annotations

import pytest
import simpy

from accel_sim.hardware import Barrier, BytesPerCycle, Fifo, Link
from accel_sim.hardware.recorder import BARRIER, DRAM, TRANSFER, Recorder


def test_a_recorder_knows_its_agents_and_event_kinds():
    recorder = Recorder()
    with pytest.raises(ValueError, match="undeclared agent"):
        recorder.record("pe", "compute", 0, 1)
    with pytest.raises(ValueError, match="unknown kind"):
        recorder.agent("pe", "gpu")
    recorder.agent("pe", "pe")
    with pytest.raises(ValueError, match="before start"):
        recorder.record("pe", "compute", 3, 2)
    recorder.offset = 10
    recorder.record("pe", "compute", 0, 4, macs=8)
    assert (recorder.events[0].start, recorder.last_end, recorder.total("macs")) == (10, 14, 8)


def test_fifo_link_and_barrier_record_their_entries_bursts_and_waits():
    env, recorder = simpy.Environment(), Recorder()
    for name in ("a", "b"):
        recorder.agent(name, "pe")
    fifo = Fifo(env, 2, "fifo", recorder=recorder)
    link = Link(env, "dram", BytesPerCycle(4), latency=0, recorder=recorder)   # amounts in bits
    barrier = Barrier(env, 2, "meet", recorder)

    def party(name: str, work: int):
        yield env.timeout(work)
        yield fifo.put(name)
        yield barrier.put(name)

    env.process(party("a", 1))
    env.process(party("b", 5))
    link.get(64, "a")
    env.run()
    kinds = [(e.agent, e.what, e.label) for e in recorder.events]
    assert ("fifo", TRANSFER, "push") in kinds and ("dram", DRAM, "read a") in kinds
    dram = next(e for e in recorder.events if e.what == DRAM)
    assert (dram.start, dram.end, dram.dram_bytes) == (0, 2, 8.0)    # 64 bits at 32 bits a cycle: 2 cycles
    wait = next(e for e in recorder.events if e.what == BARRIER)
    assert (wait.agent, wait.start, wait.end, wait.stall) == ("a", 1, 5, 4)
