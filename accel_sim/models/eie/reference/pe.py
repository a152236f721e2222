"""One processing element: pops its activation FIFO and works through the column slice.

Brief: row i of W (output b_i) lives on PE i mod N. For each (a_j, j) it pops, the PE reads
p_j and p_j+1 from its pointer banks, streams the slice's entries from its sparse-matrix SRAM
and the arithmetic unit takes one entry per cycle (padding entries included). An empty slice
takes no cycle, or one with ``eie.empty_column_costs_cycle`` (not stated by the paper).

One process per PE per layer. Per input vector it learns from the LNZD root how many
activations will come, pops each (waiting while its FIFO is empty: starved), spends the
slice's cycles, then waits at the vector barrier for the slowest PE (the tail).
"""
from __future__ import annotations

from dataclasses import dataclass

import simpy

from accel_sim.models.eie.reference.arithmetic import ArithmeticUnit
from accel_sim.models.eie.reference.lnzd import LnzdRoot
from accel_sim.models.eie.reference.pointer_banks import PointerBanks
from accel_sim.models.eie.reference.sparse_matrix_sram import SparseMatrixSram
from accel_sim.hardware.barrier import Barrier
from accel_sim.hardware.broadcast import Broadcast
from accel_sim.hardware.recorder import COMPUTE, Recorder


@dataclass(frozen=True)
class SliceLog:
    """What one PE did with one popped FIFO entry."""

    pe: int
    broadcast: int
    column: int
    start: int                  # cycle it popped the entry, relative to the vector's start
    cycles: int                 # cycles spent on the slice
    rows: tuple[int, ...]       # output row (global) of each entry
    codes: tuple[int, ...]      # codebook index v of each entry (0: padding)


class ProcessingElement:
    def __init__(self, env: simpy.Environment, index: int, n_pes: int, pointers: PointerBanks,
                 sram: SparseMatrixSram, alu: ArithmeticUnit, empty_slice_cycles: int, record: bool,
                 recorder: Recorder | None = None):
        self.env = env
        self.index = index
        self.n_pes = n_pes
        self.pointers = pointers
        self.sram = sram
        self.alu = alu
        self.empty_slice_cycles = empty_slice_cycles
        self.record = record
        self.recorder = recorder
        self.agent = f"PE {index}"
        if recorder is not None:
            recorder.agent(self.agent, "pe")
        self.busy_cycles = 0       # cycles on slices
        self.empty_cycles = 0      # of which on empty slices
        self.starved_cycles = 0    # idle, waiting for the FIFO, before its last slice of each vector ended
        self.tail_cycles = 0       # idle after its last slice, until each vector ended
        self.vector_nonzeros: list[int] = []   # per vector, non-zero entries processed
        self.outputs: list = []    # per vector, its accumulators (local rows)
        self.logs: list[list[SliceLog]] = []

    def run(self, after: simpy.Event, root: LnzdRoot, bus: Broadcast, vector_end: Barrier):
        yield after
        for vector_open in root.vector_open:
            broadcasts = yield vector_open
            start = free = int(self.env.now)
            self.alu.start_vector()
            nonzeros_before = self.alu.entries - self.alu.padding
            log: list[SliceLog] = []
            for _ in range(broadcasts):
                entry = yield bus.get(self.index)
                popped = int(self.env.now)
                self.starved_cycles += popped - free
                if self.recorder is not None and popped > free:
                    self.recorder.stall(self.agent, free, popped, "activation FIFO empty")
                begin, end = self.pointers.slice_bounds(entry.column)
                codes, rel_index = self.sram.read_slice(begin, end)
                rows = self.alu.run_slice(codes, rel_index, entry.code)
                cycles = end - begin if end > begin else self.empty_slice_cycles
                self.busy_cycles += cycles
                self.empty_cycles += cycles - (end - begin)
                if self.recorder is not None:
                    self.recorder.record(self.agent, COMPUTE, popped, popped + cycles, f"a{entry.column}",
                                         macs=end - begin, source=bus.fifos[self.index].name)
                if self.record:
                    log.append(SliceLog(self.index, entry.broadcast, entry.column, popped - start, cycles,
                                        tuple(int(r) * self.n_pes + self.index for r in rows),
                                        tuple(int(c) for c in codes)))
                if cycles:
                    yield self.env.timeout(cycles)
                free = int(self.env.now)
            self.vector_nonzeros.append(self.alu.entries - self.alu.padding - nonzeros_before)
            self.outputs.append(self.alu.accumulators.copy())
            self.logs.append(log)
            yield vector_end.put(self.agent)
            self.tail_cycles += int(self.env.now) - free
