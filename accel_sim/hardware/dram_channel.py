"""A DRAM interface stream: bandwidth-limited transfers with latency, counted in words.

One :class:`DramChannel` is one operand stream (SCALE-Sim gives ifmap, filter and ofmap one
each). A transfer of ``words`` moves ``ceil(words / words_per_cycle)`` bus lines, one line per
cycle; the data of the last line is in place ``latency`` cycles after that line was issued:
a transfer whose first line goes out in cycle ``first`` ends in cycle
``first + lines - 1 + latency``. Reads use the DRAM read latency; writes are posted
(SCALE-Sim's ``write_port`` has latency 0, its ``read_port`` latency 1).

Two ways to use it:

- :meth:`DramChannel.read` / :meth:`DramChannel.write`: serialised through a one-slot
  :class:`simpy.Resource` port, issued as soon as the port is free (a generic channel for
  any model);
- :meth:`DramChannel.transfer_at`: the caller schedules the first line itself (the
  double-buffered scratchpads of the systolic model, which reproduce SCALE-Sim's timing).

Every transfer is counted when issued and logged as ``(who, what, cycle)`` tuples, in time
order, except a transfer issued with a first cycle already past (a prefetch that streamed
ahead of the request that claims it), which is logged when it is issued.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import simpy

from accel_sim.hardware.counters import AccessCounter

READ = "read"
WRITE = "write"


class LogEntry(NamedTuple):
    who: str
    what: str
    when: int


class DramChannel:
    def __init__(self, env: simpy.Environment, name: str, words_per_cycle: int, read_latency: int,
                 word_bits: int, write_latency: int = 0, log: list[LogEntry] | None = None):
        if words_per_cycle < 1:
            raise ValueError(f"{name}: a DRAM channel moves at least one word per cycle, got {words_per_cycle}")
        if read_latency < 0 or write_latency < 0:
            raise ValueError(f"{name}: negative latency")
        self.env = env
        self.name = name
        self.words_per_cycle = words_per_cycle
        self.latency = {READ: read_latency, WRITE: write_latency}
        self.port = simpy.Resource(env, capacity=1)
        self.counter = AccessCounter(name, word_bits)
        self.log = log if log is not None else []

    def lines_for(self, words: int) -> int:
        """Bus lines (cycles on the interface) that ``words`` words take."""
        return math.ceil(words / self.words_per_cycle)

    def end_cycle(self, kind: str, first_cycle: int, lines: int) -> int:
        """Cycle in which the last line of a transfer issued from ``first_cycle`` completes."""
        return first_cycle + lines - 1 + self.latency[kind]

    def _count(self, kind: str, words: int) -> None:
        if kind == READ:
            self.counter.read(words)
        elif kind == WRITE:
            self.counter.write(words)
        else:
            raise ValueError(f"{self.name}: unknown transfer kind {kind!r}")

    def transfer_at(self, kind: str, first_cycle: int, lines: int, words: int, who: str) -> simpy.Process:
        """Transfer ``words`` words as ``lines`` lines whose first line is issued in ``first_cycle``.

        The returned process ends in the transfer's end cycle (or at once if that is already
        past: a prefetch that was streaming ahead of its use) and returns the end cycle.
        """
        self._count(kind, words)
        return self.env.process(self._timed(kind, first_cycle, lines, who))

    def _timed(self, kind: str, first_cycle: int, lines: int, who: str):
        end = self.end_cycle(kind, first_cycle, lines)
        if first_cycle > self.env.now:
            yield self.env.timeout(first_cycle - self.env.now)
        self.log.append(LogEntry(who, f"{kind} start", first_cycle))
        if end > self.env.now:
            yield self.env.timeout(end - self.env.now)
        self.log.append(LogEntry(who, f"{kind} end", end))
        return end

    def read(self, words: int, who: str) -> simpy.Process:
        """Serialised read of ``words`` words issued when the port is free; returns the end cycle."""
        self._count(READ, words)
        return self.env.process(self._serialised(READ, words, who))

    def write(self, words: int, who: str) -> simpy.Process:
        """Serialised write of ``words`` words issued when the port is free; returns the end cycle."""
        self._count(WRITE, words)
        return self.env.process(self._serialised(WRITE, words, who))

    def _serialised(self, kind: str, words: int, who: str):
        lines = self.lines_for(words)
        with self.port.request() as slot:
            yield slot
            first = int(self.env.now)
            self.log.append(LogEntry(who, f"{kind} start", first))
            yield self.env.timeout(lines)  # the port issues one line per cycle
        end = self.end_cycle(kind, first, lines)
        if end > self.env.now:
            yield self.env.timeout(end - self.env.now)
        self.log.append(LogEntry(who, f"{kind} end", end))
        return end
