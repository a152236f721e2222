"""Discrete-event reference of a vector layer (SimPy): the kernel waits its launch gap, then per
unit, an SRAM reader process and an ALU / SFU process joined by a FIFO of ``fifo_depth`` vectors;
one event per vector, one per pass barrier. Imports only its spec / plan / counters, the shared hardware blocks, simpy.

The reader spends a vector's SRAM cycles, then pushes it (waiting while the FIFO is full);
the ALUs pop a vector and spend its compute cycles. After a pass's last vector, the ALUs
reduce the row (the barrier's cycles) and release the reader for the next pass.
"""
from __future__ import annotations

import simpy

from accel_sim.hardware.clock_guard import run_until_done
from accel_sim.hardware.fifo import Fifo
from accel_sim.hardware.recorder import BUSY, COMPUTE, TRANSFER, Recorder
from accel_sim.models.vector_unit.counters import VectorCounters
from accel_sim.models.vector_unit.plan import VectorPlan


class _Tally:
    def __init__(self) -> None:
        self.vectors = self.adds = self.mults = self.special = self.reductions = 0
        self.read_bits = self.write_bits = 0


def _unit(env: simpy.Environment, plan: VectorPlan, index: int, rows: int, width: int, tally: _Tally,
          recorder: Recorder | None = None):
    reader_agent, alu_agent = f"SRAM reader {index}", f"ALUs {index}"
    if recorder is not None:
        recorder.agent(reader_agent, "buffer")
    fifo = Fifo(env, plan.spec.fifo_depth, f"vector_fifo{index}", recorder=recorder)
    if recorder is not None:
        recorder.agent(alu_agent, "pe")
        fifo.source = reader_agent
    chunks = [min(plan.lanes, width - start) for start in range(0, width, plan.lanes)]
    bits = plan.spec.element_bits
    released = simpy.Store(env, capacity=1)  # the ALUs' "pass done" token to the reader

    def reader():
        for _ in range(rows):
            for timing in plan.passes:
                for elements in chunks:
                    yield env.timeout(timing.read_cycles)
                    tally.read_bits += elements * bits * timing.work.reads
                    tally.write_bits += elements * bits * timing.work.writes
                    if recorder is not None:
                        recorder.record(reader_agent, TRANSFER, env.now - timing.read_cycles, env.now,
                                        f"read {elements} elements")
                    full = env.now
                    yield fifo.put((timing, elements))
                    if recorder is not None and env.now > full:
                        recorder.stall(reader_agent, full, env.now, "vector FIFO full")
                yield released.get()

    def alus():
        for _ in range(rows):
            for timing in plan.passes:
                for _ in chunks:
                    empty = env.now
                    _, elements = yield fifo.get()
                    if recorder is not None and env.now > empty:
                        recorder.stall(alu_agent, empty, env.now, "vector FIFO empty")
                    yield env.timeout(timing.compute_cycles)
                    if recorder is not None:
                        recorder.record(alu_agent, COMPUTE, env.now - timing.compute_cycles, env.now,
                                        f"{elements} elements", macs=elements * timing.work.mults,
                                        source=fifo.name)
                    tally.vectors += 1
                    tally.adds += elements * timing.work.adds
                    tally.mults += elements * timing.work.mults
                    tally.special += elements * timing.work.special
                if timing.work.reduced:
                    yield env.timeout(timing.barrier_cycles)
                    if recorder is not None and timing.barrier_cycles:
                        recorder.record(alu_agent, BUSY, env.now - timing.barrier_cycles, env.now, "row reduction")
                    tally.reductions += timing.work.reduced
                    tally.special += timing.work.row_special
                yield released.put(True)

    env.process(reader())
    return env.process(alus())


def _kernel(env: simpy.Environment, plan: VectorPlan, tally: _Tally, recorder: Recorder | None):
    """The kernel: its launch gap, then every unit's reader and ALUs; returns the cycle the units started."""
    if plan.launch_cycles:
        yield env.timeout(plan.launch_cycles)
        if recorder is not None:
            recorder.agent("kernel launch", "control")
            recorder.record("kernel launch", BUSY, 0, env.now, "launch gap")
    start = env.now
    yield env.all_of([_unit(env, plan, i, rows, width, tally, recorder)
                      for i, (rows, width) in enumerate(plan.unit_rows) if rows])
    return start


def reference(plan: VectorPlan, max_cycles: int | None = None, recorder: Recorder | None = None) -> VectorCounters:
    """``recorder`` (teaching traces): the launch gap, each unit's SRAM reads, FIFO entries, ALU work (its
    multiplications as MACs), waits on the FIFO and row reductions."""
    env = simpy.Environment()
    tally = _Tally()
    done = env.process(_kernel(env, plan, tally, recorder))
    cycles = run_until_done(env, done, max_cycles, plan.layer.name)
    start = int(done.value)
    return VectorCounters(launch_cycles=start, busy_cycles=cycles - start, vectors=tally.vectors, adds=tally.adds,
                          mults=tally.mults,
                          special=tally.special, reductions=tally.reductions, sram_read_bits=tally.read_bits,
                          sram_write_bits=tally.write_bits)
