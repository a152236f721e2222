"""A broadcast bus into several FIFOs, with credit-based flow control.

One sender writes the same entry into every receiver's :class:`~accel_sim.hardware.Fifo` in
one cycle (e.g. EIE's LNZD root broadcasting (a_j, j) to every PE's activation FIFO). It may
send only when every FIFO has a free slot: it holds one credit per free slot of each FIFO (a
:class:`simpy.Container` of ``depth`` credits per receiver), takes one credit from every
receiver before it sends (waiting while any FIFO is full) and a receiver returns its credit
in the cycle it pops the entry, so a slot freed by a pop can be refilled in the same cycle.
The entry lands in the FIFOs ``latency`` cycles after it was sent: with 1, a receiver pops it
at the earliest in the cycle after the broadcast.

It counts the entries sent and the cycles a ready entry waited for a full FIFO, and keeps a
``(who, what, when)`` log of the sends when given a list.
"""
from __future__ import annotations

from typing import Any

import simpy

from accel_sim.hardware.log import LogEntry
from accel_sim.hardware.fifo import Fifo


class Broadcast:
    def __init__(self, env: simpy.Environment, fifos: list[Fifo], latency: int = 1, name: str = "broadcast",
                 log: list[LogEntry] | None = None):
        if not fifos:
            raise ValueError(f"{name}: a broadcast needs at least one receiver FIFO")
        if latency < 0:
            raise ValueError(f"{name}: negative latency {latency}")
        self.env = env
        self.name = name
        self.fifos = fifos
        self.latency = latency
        self.credits = [simpy.Container(env, capacity=f.depth, init=f.depth) for f in fifos]
        self.sent = 0
        self.full_stall_cycles = 0    # cycles ready entries waited for a slot in every FIFO
        self.log = log

    def send(self, item: Any):
        """A process that sends ``item`` to every FIFO as soon as all have room; returns the send cycle."""
        ready = self.env.now
        yield self.env.all_of([credits.get(1) for credits in self.credits])
        self.full_stall_cycles += int(self.env.now - ready)
        self.sent += 1
        if self.log is not None:
            self.log.append(LogEntry(self.name, "send", int(self.env.now)))
        self.env.process(self._land(item))
        return int(self.env.now)

    def _land(self, item: Any):
        if self.latency:
            yield self.env.timeout(self.latency)
        for fifo in self.fifos:
            yield fifo.put(item)      # a credit was taken for this slot: never waits

    def receive(self, index: int):
        """A process that pops the head of FIFO ``index`` (waiting while it is empty), returns the
        credit and returns the entry."""
        item = yield self.fifos[index].get()
        yield self.credits[index].put(1)
        return item
