"""A scatter crossbar into banks, in lock step: a :class:`~accel_sim.hardware.link.Link` whose rate is
:class:`~accel_sim.hardware.rate.LockstepBanks`.

``put(bank_load, who)`` delivers a batch of *steps* (e.g. the Cartesian-product steps of one SCNN
PE: F x I products per step, scattered into A accumulator banks). Inside a step, items for
different banks land in the same cycle and items for one bank serialise (``words_per_cycle`` per
bank per cycle); the step is over when its busiest bank has taken all its items, and only then
does the next step start (the source stalls). A batch of steps so takes ``sum over steps of
ceil(max bank load / words_per_cycle)`` cycles: one event per batch, however many steps or items
it holds. Batches are delivered one after another (the link's port is the switch). Besides the
link's counts it counts items per bank, steps and conflict cycles (cycles beyond one per step).
"""
from __future__ import annotations

import numpy as np
import simpy

from accel_sim.hardware.link import Link
from accel_sim.hardware.log import LogEntry
from accel_sim.hardware.rate import LockstepBanks
from accel_sim.hardware.recorder import CONFLICT, TRANSFER, Recorder


class ScatterCrossbar(Link):
    def __init__(self, env: simpy.Environment, banks: int, words_per_cycle: int = 1, name: str = "scatter",
                 log: list[LogEntry] | None = None, recorder: Recorder | None = None):
        super().__init__(env, name, LockstepBanks(banks, words_per_cycle), log=log)
        self.recorder = recorder   # teaching traces: a "transfer" per batch, its conflict cycles as a "bank conflict"
        if recorder is not None:
            recorder.agent(name, "crossbar")
        self.banks = banks
        self.bank_writes = np.zeros(banks, dtype=np.int64)   # items delivered to each bank
        self.steps = 0
        self.conflict_cycles = 0

    def put(self, bank_load: np.ndarray, who: str = "", *, at: int | None = None,
            timed: np.ndarray | None = None) -> simpy.Process:
        """Deliver one batch of steps, ``bank_load[step, bank]`` items each; the process returns the
        cycle the batch is delivered."""
        return super().put(np.asarray(bank_load, dtype=np.int64).reshape(-1, self.banks), who, at=at, timed=timed)

    def _count(self, reads: int, writes: np.ndarray, cycles: int) -> None:
        self.bank_writes += writes.sum(axis=0)
        self.steps += writes.shape[0]
        self.conflict_cycles += cycles - int(np.count_nonzero(writes.max(axis=1, initial=0)))

    def _bytes(self, reads: int, writes: np.ndarray) -> tuple[int, int]:
        """For the recorder: the batch's items and its conflict cycles (not bytes: no DRAM here)."""
        cycles = self.rate.cycles(writes)
        return int(writes.sum()), cycles - int(np.count_nonzero(writes.max(axis=1, initial=0)))

    def _record(self, kind: str, who: str, first: int, end: int, amount: tuple[int, int]) -> None:
        items, conflicts = amount
        busy = end + 1 - self.latency - first     # the cycles the batch held the switch
        self.recorder.record(self.name, TRANSFER, first, first + busy - conflicts, f"scatter {items} items",
                             source=who if who in self.recorder.agents else "")
        if conflicts:
            self.recorder.record(self.name, CONFLICT, first + busy - conflicts, first + busy,
                                 f"bank conflict {conflicts}", stall=conflicts, cause="items on one bank")
