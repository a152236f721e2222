"""A crossbar of ``outputs`` ports, each delivering ``words_per_cycle`` items per cycle.

:meth:`Crossbar.deliver` moves one batch of items whose destination ports are given (e.g.
SCNN's products to accumulator banks, a PE array's operands to lanes). Items to different
ports travel in the same cycle; items to one port serialise, so the batch takes
``ceil(max port load / words_per_cycle)`` cycles. Batches are delivered one after another
(one :class:`simpy.Resource` for the switch). It counts transfers and conflict cycles.
"""
from __future__ import annotations

import math

import numpy as np
import simpy


class Crossbar:
    def __init__(self, env: simpy.Environment, outputs: int, words_per_cycle: int = 1, name: str = "crossbar"):
        if outputs < 1 or words_per_cycle < 1:
            raise ValueError(f"{name}: outputs and words per cycle must be >= 1")
        self.env = env
        self.name = name
        self.outputs = outputs
        self.words_per_cycle = words_per_cycle
        self.switch = simpy.Resource(env, capacity=1)
        self.transfers = 0
        self.batches = 0
        self.busy_cycles = 0
        self.conflict_cycles = 0

    def cycles_for(self, port_load: np.ndarray) -> int:
        return math.ceil(int(port_load.max(initial=0)) / self.words_per_cycle)

    def deliver(self, port_of_item: np.ndarray):
        """A process delivering one batch; returns the cycles it took."""
        load = np.bincount(np.asarray(port_of_item, dtype=np.int64), minlength=self.outputs)
        if len(load) > self.outputs:
            raise ValueError(f"{self.name}: port {len(load) - 1} >= {self.outputs} outputs")
        cycles = self.cycles_for(load)
        with self.switch.request() as turn:
            yield turn
            if cycles:
                yield self.env.timeout(cycles)
        self.transfers += int(load.sum())
        self.batches += 1
        self.busy_cycles += cycles
        self.conflict_cycles += max(0, cycles - 1)
        return cycles
