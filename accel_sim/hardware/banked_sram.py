"""A banked SRAM (or accumulator buffer): each bank serves ``ports`` accesses per cycle.

:meth:`BankedSram.access` serves a batch of accesses that arrive together (e.g. the products
of one Cartesian-product step, or one line of operand reads): accesses to different banks
proceed in parallel, accesses to the same bank serialise, so the batch takes
``ceil(max bank load / ports)`` cycles. The process holds every bank it touches for that
long (one :class:`simpy.Resource` per bank), so two batches that share a bank serialise as
well. Reads and writes are counted per bank.
"""
from __future__ import annotations

import math

import numpy as np
import simpy


class BankedSram:
    def __init__(self, env: simpy.Environment, banks: int, ports: int = 1, name: str = "sram"):
        if banks < 1 or ports < 1:
            raise ValueError(f"{name}: banks and ports must be >= 1, got {banks} banks, {ports} ports")
        self.env = env
        self.name = name
        self.ports = ports
        self.banks = [simpy.Resource(env, capacity=1) for _ in range(banks)]
        self.reads = np.zeros(banks, dtype=np.int64)
        self.writes = np.zeros(banks, dtype=np.int64)
        self.busy_cycles = 0      # cycles some batch held the banks
        self.conflict_cycles = 0  # cycles beyond one per batch, caused by same-bank accesses

    def cycles_for(self, bank_load: np.ndarray) -> int:
        """Cycles a batch with ``bank_load[b]`` accesses to bank ``b`` takes."""
        return math.ceil(int(bank_load.max(initial=0)) / self.ports)

    def access(self, bank_of_access: np.ndarray, write: bool = False):
        """A process serving one batch: ``bank_of_access[i]`` is the bank of access ``i``."""
        load = np.bincount(np.asarray(bank_of_access, dtype=np.int64), minlength=len(self.banks))
        if len(load) > len(self.banks):
            raise ValueError(f"{self.name}: bank index {len(load) - 1} >= {len(self.banks)} banks")
        (self.writes if write else self.reads)[:] += load
        cycles = self.cycles_for(load)
        touched = np.flatnonzero(load)
        requests = [self.banks[b].request() for b in touched]
        try:
            yield self.env.all_of(requests)
            if cycles:
                yield self.env.timeout(cycles)
            self.busy_cycles += cycles
            self.conflict_cycles += max(0, cycles - 1)
        finally:
            for bank, request in zip(touched, requests):
                self.banks[bank].release(request)
        return cycles
