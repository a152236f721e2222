"""A broadcast bus into several FIFOs, with credit-based flow control.

One sender puts the same entry into every receiver's :class:`~accel_sim.hardware.Fifo` in one
cycle (e.g. EIE's LNZD root broadcasting (a_j, j) to every PE's activation FIFO). It may send only
when every FIFO has a free slot: it holds one credit per free slot of each FIFO (a
:class:`simpy.Container` of ``depth`` credits per receiver). ``put(item)`` takes one credit from
every receiver (its event fires when it has them all, waiting while any FIFO is full: the send
cycle); ``get(index)`` pops the head of FIFO ``index`` and returns its credit in the cycle of the
pop, so a slot freed by a pop can be refilled in the same cycle. The entry lands in the FIFOs
``latency`` cycles after it was sent: with 1, a receiver pops it at the earliest in the cycle after
the broadcast.

It counts the entries sent and the cycles a ready entry waited for a full FIFO, and keeps a
``(who, what, when)`` log of the sends when given a list.
"""
from __future__ import annotations

from typing import Any

import simpy

from accel_sim.hardware.fifo import Fifo
from accel_sim.hardware.log import LogEntry
from accel_sim.hardware.recorder import TRANSFER, Recorder


class Broadcast:
    def __init__(self, env: simpy.Environment, fifos: list[Fifo], latency: int = 1, name: str = "broadcast",
                 log: list[LogEntry] | None = None, recorder: Recorder | None = None):
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
        self.recorder = recorder   # teaching traces: each send, the wait for a full FIFO, the FIFOs' entries
        if recorder is not None:
            recorder.agent(name, "control")
            for fifo in fifos:
                fifo.source = name

    def put(self, item: Any) -> simpy.Event:
        """Send ``item`` to every FIFO as soon as all have room; the event fires in the send cycle."""
        credits = self.env.all_of([credits.get(1) for credits in self.credits])
        credits.callbacks.append(lambda _, ready=self.env.now: self._send(item, ready))
        return credits

    def _send(self, item: Any, ready: float) -> None:
        self.full_stall_cycles += int(self.env.now - ready)
        if self.recorder is not None:
            if self.env.now > ready:
                self.recorder.stall(self.name, ready, self.env.now, "a FIFO full")
            self.recorder.record(self.name, TRANSFER, self.env.now, self.env.now + 1, f"send {item}")
        self.sent += 1
        if self.log is not None:
            self.log.append(LogEntry(self.name, "send", int(self.env.now)))
        self.env.process(self._land(item))

    def _land(self, item: Any):
        if self.latency:
            yield self.env.timeout(self.latency)
        for fifo in self.fifos:
            yield fifo.put(item)      # a credit was taken for this slot: never waits

    def get(self, index: int) -> simpy.Event:
        """Pop the head of FIFO ``index`` (waiting while it is empty); the event's value is the entry,
        and the credit goes back when it fires."""
        popped = self.fifos[index].get()
        popped.callbacks.append(lambda _: self.credits[index].put(1))
        return popped
