"""The output side of the reference: the array's output words into SCALE-Sim's double-buffered
:class:`~accel_sim.hardware.WriteScratchpad`, drained to DRAM by posted writes on its own
:class:`~accel_sim.hardware.Link` (``ofmap_line_words`` words per cycle).

A write that finds the buffer full while a drain runs waits for that drain's DRAM process to
end; after the last demand cycle what is left drains one drain after the other.
"""
from __future__ import annotations

import simpy

from accel_sim.hardware.link import Link
from accel_sim.hardware.log import LogEntry
from accel_sim.hardware.recorder import Recorder
from accel_sim.hardware.rate import WordsPerCycle
from accel_sim.hardware.scalesim_scratchpad import WriteScratchpad
from accel_sim.models.systolic.plan import SystolicPlan
from accel_sim.models.systolic.plan.buffers import OFMAP_WRITE_LATENCY


class OfmapDrain:
    def __init__(self, env: simpy.Environment, plan: SystolicPlan, log: list[LogEntry],
                 recorder: Recorder | None = None):
        arch = plan.arch
        channel = Link(env, "ofmap_dram", WordsPerCycle(plan.ofmap_line_words), OFMAP_WRITE_LATENCY, arch.word_bits,
                       log=log, recorder=recorder)
        self.env = env
        self.buffer = WriteScratchpad(env, "ofmap_sram", plan.capacity_words["ofmap"], channel)
        self.written = 0  # words the array wrote into the buffer

    def write(self, words: int, cycle: int):
        """``wait = yield from drain.write(words, cycle)``: the cycles the array waited for a drain."""
        self.written += words
        return (yield from self.buffer.write(words, cycle))

    def flush(self, cycle: int):
        """Drain everything left from ``cycle`` on and wait for the last drain to end."""
        self.buffer.flush(cycle)
        yield self.env.all_of(self.buffer.drains)

    @property
    def drained_words(self) -> int:
        return self.buffer.drained.reads

    @property
    def last_drain_cycle(self) -> int:
        return max(self.buffer.drain_ends)
