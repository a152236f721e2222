"""A scatter crossbar into banks, in lock step: each step's items go to their banks together.

:meth:`ScatterCrossbar.scatter` delivers a batch of *steps* (e.g. the Cartesian-product steps of
one SCNN PE: F x I products per step, scattered into A accumulator banks). Inside a step,
items for different banks land in the same cycle and items for one bank serialise
(``words_per_cycle`` per bank per cycle); the step is over when its busiest bank has taken all
its items, and only then does the next step start (the source stalls). A batch of steps so
takes ``sum over steps of ceil(max bank load / words_per_cycle)`` cycles: one event per batch,
however many steps or items it holds. Batches are delivered one after another (one
:class:`simpy.Resource` for the switch). It counts items per bank, steps, busy cycles and
conflict cycles (cycles beyond one per step), and logs ``(who, what, when)`` tuples.
"""
from __future__ import annotations

import numpy as np
import simpy

from accel_sim.hardware.dram_channel import LogEntry


class ScatterCrossbar:
    def __init__(self, env: simpy.Environment, banks: int, words_per_cycle: int = 1, name: str = "scatter",
                 log: list[LogEntry] | None = None):
        if banks < 1 or words_per_cycle < 1:
            raise ValueError(f"{name}: banks and words per cycle must be >= 1, got {banks} and {words_per_cycle}")
        self.env = env
        self.name = name
        self.banks = banks
        self.words_per_cycle = words_per_cycle
        self.switch = simpy.Resource(env, capacity=1)
        self.bank_writes = np.zeros(banks, dtype=np.int64)   # items delivered to each bank
        self.steps = 0
        self.busy_cycles = 0
        self.conflict_cycles = 0
        self.log = log if log is not None else []

    def step_cycles(self, bank_load: np.ndarray) -> np.ndarray:
        """Cycles of each step of a batch: ``bank_load`` (steps, banks) items per bank."""
        return -(-bank_load.max(axis=1, initial=0) // self.words_per_cycle)

    def scatter(self, bank_load: np.ndarray, who: str = ""):
        """A process delivering one batch of steps, ``bank_load[step, bank]`` items each; returns
        the cycles it took."""
        load = np.asarray(bank_load, dtype=np.int64).reshape(-1, self.banks)
        per_step = self.step_cycles(load)
        cycles = int(per_step.sum())
        with self.switch.request() as turn:
            yield turn
            self.log.append(LogEntry(who or self.name, f"scatter {load.shape[0]} steps", int(self.env.now)))
            if cycles:
                yield self.env.timeout(cycles)
        self.bank_writes += load.sum(axis=0)
        self.steps += load.shape[0]
        self.busy_cycles += cycles
        self.conflict_cycles += int(np.maximum(per_step - 1, 0).sum())
        return cycles
