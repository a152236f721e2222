"""A hardware FIFO: a :class:`simpy.Store` whose capacity is the hardware depth.

A producer that finds the FIFO full waits (its ``put`` event fires when a slot frees), a
consumer that finds it empty waits for the next entry: back-pressure is the Store's own.
The FIFO keeps a ``(who, what, when)`` log of its entries (SimPy's own tests assert logs
like this) and the largest occupancy it reached.
"""
from __future__ import annotations

from typing import Any

import simpy

from accel_sim.hardware.log import LogEntry
from accel_sim.hardware.recorder import TRANSFER, Recorder


class Fifo(simpy.Store):
    def __init__(self, env: simpy.Environment, depth: int, name: str, log: list[LogEntry] | None = None,
                 recorder: Recorder | None = None):
        if depth < 1:
            raise ValueError(f"{name}: a FIFO holds at least one entry, got depth {depth}")
        super().__init__(env, capacity=depth)
        self.name = name
        self.pushes = 0
        self.pops = 0
        self.max_occupancy = 0
        self.log = log
        self.recorder = recorder   # teaching traces: a "push" / "pop" event per entry
        self.source = ""           # the agent pushing into it (a flow from it per push), when recorded
        if recorder is not None:
            recorder.agent(name, "fifo")

    @property
    def depth(self) -> int:
        return int(self.capacity)

    def _do_put(self, event: Any) -> bool | None:
        accepted = len(self.items) < self.capacity
        super()._do_put(event)
        if accepted:
            self.pushes += 1
            self.max_occupancy = max(self.max_occupancy, len(self.items))
            if self.log is not None:
                self.log.append(LogEntry(self.name, "push", int(self._env.now)))
            if self.recorder is not None:
                self.recorder.record(self.name, TRANSFER, self._env.now, self._env.now, "push", source=self.source)
        return None

    def _do_get(self, event: Any) -> bool | None:
        available = bool(self.items)
        super()._do_get(event)
        if available:
            self.pops += 1
            if self.log is not None:
                self.log.append(LogEntry(self.name, "pop", int(self._env.now)))
            if self.recorder is not None:
                self.recorder.record(self.name, TRANSFER, self._env.now, self._env.now, "pop")
        return None
