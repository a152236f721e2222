"""The end of a cycle: an event that fires after every other event of the current cycle.

An arbiter that must see every request of a cycle before it grants any (rows that become
free in the same cycle, in whatever order their processes run) yields
``EndOfCycle(env)``: it is scheduled at the current time with a priority after SimPy's
``URGENT`` and ``NORMAL``, so every event of this cycle, including those triggered while it
waits, is processed first. Granting, then yielding another ``EndOfCycle``, lets the other
agents react to one grant (a FIFO refilled by its producer) before the next.
"""
from __future__ import annotations

import simpy

LATE = 2  # after simpy.events.URGENT (0) and NORMAL (1)


class EndOfCycle(simpy.Event):
    def __init__(self, env: simpy.Environment):
        super().__init__(env)
        self._ok = True
        self._value = None
        env.schedule(self, priority=LATE)
