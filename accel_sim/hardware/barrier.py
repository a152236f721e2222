"""A reusable barrier: ``parties`` processes wait until all of them have arrived.

``yield barrier.put()`` (a party puts its arrival) returns when the last party of the current
round arrives; the barrier then opens the next round. It counts rounds and, per round, the cycles
the first arrival waited (the imbalance a barrier costs).
"""
from __future__ import annotations

import simpy

from accel_sim.hardware.recorder import BARRIER, Recorder


class Barrier:
    def __init__(self, env: simpy.Environment, parties: int, name: str = "barrier", recorder: Recorder | None = None):
        if parties < 1:
            raise ValueError(f"{name}: a barrier needs at least one party, got {parties}")
        self.env = env
        self.parties = parties
        self.name = name
        self.rounds = 0
        self.wait_cycles = 0          # sum over rounds of (last arrival - first arrival)
        self._arrived = 0
        self._first_arrival = 0
        self._open = env.event()
        self.recorder = recorder   # teaching traces: each party's wait, as a "barrier wait" of its agent
        self._waiting: list[tuple[str, int]] = []

    def put(self, who: str = "") -> simpy.Event:
        """Arrive; the event fires (with the round's number) when every party of the round has arrived.
        With a recorder, ``who`` (a declared agent) names the party whose wait is recorded."""
        if self.recorder is not None and who:
            self._waiting.append((who, int(self.env.now)))
        if self._arrived == 0:
            self._first_arrival = int(self.env.now)
        self._arrived += 1
        event = self._open
        if self._arrived == self.parties:
            self.rounds += 1
            self.wait_cycles += int(self.env.now) - self._first_arrival
            self._arrived = 0
            self._open = self.env.event()
            if self.recorder is not None:
                self._record_waits()
            event.succeed(self.rounds)
        return event

    def _record_waits(self) -> None:
        now = int(self.env.now)
        for who, arrival in self._waiting:
            if arrival < now:
                self.recorder.record(who, BARRIER, arrival, now, f"wait at {self.name}", stall=now - arrival,
                                     cause=self.name)
        self._waiting = []
