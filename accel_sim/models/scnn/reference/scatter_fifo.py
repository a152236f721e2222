"""FIFO scatter network, reference (SimPy): per-bank input FIFOs between the crossbar and the banks.

``scatter: fifo`` / ``fifo_unbounded`` (:mod:`accel_sim.models.scnn.spec`). Agents of one PE:

- the multiplier array (one process): issues a step, hands each bank the products the step sends
  it (one batch per (step, bank): a FIFO entry batch, never one event per product), waits until
  the last of them has entered its bank's FIFO, and issues the next step in the cycle after;
- A banks (one process each): a :class:`simpy.Store` holds the batches queued at the bank in
  arrival order; the bank adds one product per cycle (a batch of ``k`` products takes ``k``
  cycles) and, as it goes, tells the multiplier array when a waiting product finds room.

A bank holds at most ``depth + 1`` products in a cycle (its FIFO and the product it adds), so a
product enters in the first cycle in which at most ``depth`` products queued ahead of it are
not yet added: the bank process signals that cycle. Unbounded FIFOs: products always enter at
once. The batch of steps (a barrier unit: a group, or a (group, channel)) ends when every bank
has added everything. Same counters as :class:`~accel_sim.hardware.scatter_crossbar.ScatterCrossbar`.
"""
from __future__ import annotations

import numpy as np
import simpy

from accel_sim.hardware.scatter_crossbar import ScatterCrossbar


class _Bank:
    """One accumulator bank and its input FIFO during one batch of steps."""

    def __init__(self, env: simpy.Environment):
        self.env = env
        self.fifo = simpy.Store(env)   # batches of products, in arrival order
        self.queued = 0                # products ever handed to the bank
        self.added = 0                 # products added before the current batch started
        self.current: tuple[float, int] | None = None   # (start cycle, products) of the batch being added
        self.waiting: list[tuple[int, simpy.Event]] = []   # (products that must be added first, event)

    def added_by(self, now: float) -> int:
        """Products added in the cycles before ``now``."""
        if self.current is None:
            return self.added
        start, size = self.current
        return self.added + min(size, int(now - start))

    def when_added(self, count: int) -> simpy.Event:
        """An event in the first cycle before which ``count`` products have been added."""
        now = self.env.now
        if self.added_by(now) >= count:
            return self.env.timeout(0)
        if self.current is not None and count <= self.added + self.current[1]:
            return self.env.timeout(self.current[0] + count - self.added - now)
        event = self.env.event()
        self.waiting.append((count, event))
        return event

    def run(self):
        while True:
            size = yield self.fifo.get()
            if size is None:   # the batch of steps is over and everything was added
                return
            self.current = (self.env.now, size)
            due = [(c, e) for c, e in self.waiting if c <= self.added + size]
            self.waiting = [(c, e) for c, e in self.waiting if c > self.added + size]
            for count, event in due:
                self.env.timeout(count - self.added).callbacks.append(lambda _, e=event: e.succeed())
            yield self.env.timeout(size)
            self.added += size
            self.current = None


class FifoScatter:
    """A PE's F*I x A scatter crossbar with an input FIFO of ``depth`` products per bank (None: unbounded)."""

    def __init__(self, env: simpy.Environment, banks: int, depth: int | None, name: str = "scatter fifo"):
        self.env = env
        self.name = name
        self.banks = banks
        self.depth = depth
        self.bank_writes = np.zeros(banks, dtype=np.int64)   # products delivered to each bank
        self.steps = 0
        self.busy_cycles = 0
        self.conflict_cycles = 0   # cycles beyond one per step (stalls and the banks' drain)

    def put(self, bank_load: np.ndarray, who: str = "") -> simpy.Process:
        """Deliver one batch of steps, ``bank_load[step, bank]`` products each (the verb of
        :class:`~accel_sim.hardware.ScatterCrossbar`); the process returns the cycle the banks have drained."""
        return self.env.process(self._scatter(bank_load))

    def _scatter(self, bank_load: np.ndarray):
        load = np.asarray(bank_load, dtype=np.int64).reshape(-1, self.banks)
        env, start = self.env, self.env.now
        banks = [_Bank(env) for _ in range(self.banks)]
        drained = [env.process(bank.run()) for bank in banks]
        for step in load:
            entered = []
            for b in np.flatnonzero(step).tolist():
                bank = banks[b]
                bank.queued += int(step[b])
                yield bank.fifo.put(int(step[b]))
                if self.depth is not None:   # the step's last product needs <= depth products ahead of it
                    entered.append(bank.when_added(bank.queued - self.depth - 1))
            if entered:
                yield env.all_of(entered)
            yield env.timeout(1)   # the next step issues in the cycle after the last product entered
        for bank in banks:
            yield bank.fifo.put(None)
        yield env.all_of(drained)
        cycles = int(env.now - start)
        self.bank_writes += load.sum(axis=0)
        self.steps += load.shape[0]
        self.busy_cycles += cycles
        self.conflict_cycles += cycles - load.shape[0]
        return int(env.now)


def scatter_network(env: simpy.Environment, spec, name: str) -> ScatterCrossbar | FifoScatter:
    """The scatter network ``spec.scatter`` names (an :class:`~accel_sim.models.scnn.spec.SCNNSpec`)."""
    if spec.scatter == "serialise":
        return ScatterCrossbar(env, spec.accumulator_banks, name=name)
    depth = None if spec.scatter == "fifo_unbounded" else spec.scatter_fifo_depth
    return FifoScatter(env, spec.accumulator_banks, depth, name=name)
