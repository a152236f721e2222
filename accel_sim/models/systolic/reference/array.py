"""The PE array of the reference: a SimPy process issuing its demand lines fold by fold.

Folds run in SCALE-Sim's order (column folds outer, row folds inner). At the start of a fold
the array builds the fold's demand matrices (:mod:`.demand`) and counts the fold's work: the
PEs its stationary operand occupies each do ``T`` MACs, and it takes each read operand's block
from its buffer. Then it issues the fold's demand lines one per cycle: line ``i`` goes out in
cycle ``i + S``, ``S`` the stall so far. Each line's requests go to the read buffers (USER
bandwidth: a miss claims a prefetch burst and the array waits for it to land) and its output
words to the ofmap buffer (a full buffer makes the array wait for the running drain); the line
stalls the array by the longest charge. Between waits the array runs ahead of the SimPy clock,
which catches up whenever it waits and at the end of every fold.
"""
from __future__ import annotations

import numpy as np
import simpy

from accel_sim.foundations.errors import SimulationError
from accel_sim.hardware.log import LogEntry
from accel_sim.hardware.recorder import COMPUTE, Recorder
from accel_sim.hardware.scalesim_scratchpad import NO_ADDRESS, ReadScratchpad
from accel_sim.models.systolic.plan import SystolicPlan
from accel_sim.models.systolic.plan.operands import READ_OPERANDS, OperandMatrices, fold_block
from accel_sim.models.systolic.reference.demand import fold_demand_matrix, row_wise_ifmap_block
from accel_sim.models.systolic.reference.ofmap_drain import OfmapDrain
from accel_sim.models.systolic.reference.read_buffers import EstimatingReadBuffer


ARRAY = "PE array"   # the recorder's agent: the folds and the array's stalls


class SystolicArray:
    def __init__(self, env: simpy.Environment, plan: SystolicPlan, reads: dict[str, ReadScratchpad],
                 estimates: dict[str, EstimatingReadBuffer], drain: OfmapDrain, max_cycles: int | None,
                 log: list[LogEntry], recorder: Recorder | None = None):
        self.env = env
        self.plan = plan
        self.reads = reads          # USER bandwidth: they stall the array
        self.estimates = estimates  # CALC bandwidth: they never do
        self.drain = drain
        self.max_cycles = max_cycles
        self.log = log
        self.recorder = recorder
        if recorder is not None:
            recorder.agent(ARRAY, "pe")
        matrices = plan.matrices
        # where each operand matrix has an element (padding windows included): a fold's block of it
        # is the words the array moves, or for the stationary operand the PEs it occupies
        self.extent = OperandMatrices(*(np.zeros_like(m) for m in (matrices.ifmap, matrices.filter, matrices.ofmap)))
        self.cycle = 0              # cycle the next demand line issues in
        self.lines = 0              # demand lines issued
        self.last_write_cycle = 0   # cycle of the last demand line's last output write
        self.read_stall = 0
        self.write_stall = 0
        self.folds = 0
        self.macs = 0
        self.sram_reads = dict.fromkeys(READ_OPERANDS, 0)
        self._weights: list[np.ndarray] = []  # the filter words each fold demands

    @property
    def kept_weights(self) -> int:
        """Distinct filter words the array demanded (the weights N:M kept)."""
        return int(np.unique(np.concatenate(self._weights)).size)

    def run(self):
        if self.env.now < 0:  # the fills run before cycle 0; the array starts in cycle 0
            yield self.env.timeout(-self.env.now)
        mapping = self.plan.mapping
        for fold_col in range(mapping.col_folds):
            for fold_row in range(mapping.row_folds):
                yield from self.fold(fold_col, fold_row)
        yield from self.drain.flush(self.last_write_cycle)

    def _elements(self, operand: str, fold_col: int, fold_row: int) -> int:
        mapping = self.plan.mapping
        if mapping.row_wise is not None and operand == "ifmap":  # SCALE-Sim counts the whole skewed block
            return int(row_wise_ifmap_block(mapping, self.plan.matrices, fold_row).size)
        return int((fold_block(mapping, self.extent, operand, fold_col, fold_row) != NO_ADDRESS).sum())

    def _weights_held(self, fold_col: int, fold_row: int) -> int:
        """PEs of the fold holding a stationary word (a row-wise idle slot holds none)."""
        mapping = self.plan.mapping
        stationary = mapping.dataflow.stationary
        matrices = self.plan.matrices if mapping.row_wise is not None else self.extent
        return int((fold_block(mapping, matrices, stationary, fold_col, fold_row) != NO_ADDRESS).sum())

    def fold(self, fold_col: int, fold_row: int):
        mapping, matrices = self.plan.mapping, self.plan.matrices
        name = f"fold {self.folds}"
        self.log.append(LogEntry(name, "start", self.cycle))
        fold_macs = self._weights_held(fold_col, fold_row) * mapping.t
        self.macs += fold_macs
        first_cycle = self.cycle
        demand = {}
        for operand in READ_OPERANDS:
            self.sram_reads[operand] += self._elements(operand, fold_col, fold_row)
            demand[operand] = fold_demand_matrix(mapping, matrices, operand, fold_col, fold_row)
        self._weights.append(demand["filter"][demand["filter"] != NO_ADDRESS])
        for operand, estimate in self.estimates.items():
            estimate.fold(demand[operand], self.lines)
        requests = {op: [line[line != NO_ADDRESS] for line in demand[op]] for op in self.reads}
        outputs = (fold_demand_matrix(mapping, matrices, "ofmap", fold_col, fold_row) != NO_ADDRESS).sum(axis=1).tolist()
        last_line = mapping.demand_lines
        for local in range(mapping.fold_lines):
            cycle = self.cycle
            if self.max_cycles is not None and cycle > self.max_cycles:
                raise SimulationError(f"{self.plan.layer.name}: the reference passed max_cycles={self.max_cycles}")
            charge = 0
            for operand, buffer in self.reads.items():
                if requests[operand][local].size:
                    charge = max(charge, (yield from buffer.read(requests[operand][local], cycle)))
            wait = (yield from self.drain.write(outputs[local], cycle)) if outputs[local] else 0
            stall = max(charge, wait)
            if stall and self.recorder is not None:
                self._record_stall(cycle, wait, stall - wait)
            self.write_stall += wait
            self.read_stall += stall - wait
            self.lines += 1
            if self.lines == last_line:
                self.last_write_cycle = cycle + wait
            self.cycle = cycle + 1 + stall
        if self.cycle > self.env.now:
            yield self.env.timeout(self.cycle - self.env.now)
        self.log.append(LogEntry(name, "end", self.cycle))
        if self.recorder is not None:
            self.recorder.record(ARRAY, COMPUTE, first_cycle, self.cycle, name, macs=fold_macs)
        self.folds += 1

    def _record_stall(self, cycle: int, write_wait: int, read_wait: int) -> None:
        """The array held after the demand line of ``cycle``: first for the drain, then for the prefetch."""
        if write_wait:
            self.recorder.stall(ARRAY, cycle + 1, cycle + 1 + write_wait, "ofmap buffer full (drain)")
        if read_wait:
            self.recorder.stall(ARRAY, cycle + 1 + write_wait, cycle + 1 + write_wait + read_wait,
                                "ifmap / filter prefetch")
