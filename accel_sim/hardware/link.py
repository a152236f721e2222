"""One bandwidth-limited block: a DRAM channel, a DRAM bus, an on-chip link or port.

A :class:`Link` moves amounts through a one-slot port at the rate its :mod:`~accel_sim.hardware.rate`
sets (whole words per cycle, or any bytes per cycle). The verbs are SimPy's:

- ``get(amount, who)``: a read (data out of the block: a DRAM read, a fill);
- ``put(amount, who)``: a write (data into it: a drain, posted writes);
- ``burst(reads, writes, who)``: a burst list, reads and writes back to back on the same pins.

Each returns a :class:`simpy.Process` (an event) that ends when the data is in place and returns
that cycle. A transfer queues for the port in request order, holds it ``cycles = rate.cycles(amount)``
cycles from the cycle ``first`` it gets it (a transfer of no cycles takes its turn and no time), and
its data is in place in cycle ``first + cycles - 1 + latency``: ``latency`` counts from the cycle
of the last beat, so the default 1 makes the data usable the cycle after it (a plain link), a
DRAM adds its access latency and posted writes have 0. The amount that sets the time may differ
from the one counted (``timed``): a design compressing a transfer for energy only moves it in the
time of the uncompressed data. ``at=first`` issues a transfer the caller schedules itself (not
through the port): SCALE-Sim's prefetcher, whose bursts run ahead of the requests claiming them;
one whose first cycle is already past ends at once, logged when it is issued.

The link counts what it moves (reads and writes in the rate's unit, ``word_bits`` bits each;
transfers; busy cycles) through the :meth:`Link._count` hook, which a block built on a link
(the scatter crossbar) overrides, and logs ``(who, "read start" | "write end" | ..., when)``
tuples when given a log.
"""
from __future__ import annotations

from typing import Any, Protocol

import simpy

from accel_sim.hardware.counters import AccessCounter
from accel_sim.hardware.log import LogEntry
from accel_sim.hardware.recorder import DRAM, Recorder

READ = "read"
WRITE = "write"
BURST = "burst"


class Rate(Protocol):
    def cycles(self, amount: Any) -> int: ...


class Link:
    def __init__(self, env: simpy.Environment, name: str, rate: Rate, latency: int = 1, word_bits: int = 1,
                 log: list[LogEntry] | None = None, recorder: Recorder | None = None):
        if latency < 0:
            raise ValueError(f"{name}: negative latency {latency}")
        self.env = env
        self.name = name
        self.rate = rate
        self.latency = latency
        self.port = simpy.Resource(env, capacity=1)
        self.counter = AccessCounter(name, word_bits)
        self.transfers = 0
        self.busy_cycles = 0
        self.log = log
        self.recorder = recorder    # teaching traces: one DRAM burst event per transfer
        if recorder is not None:
            recorder.agent(name, "dram")

    def cycles_for(self, amount: Any) -> int:
        """Whole cycles ``amount`` holds the port."""
        return self.rate.cycles(amount)

    def end_cycle(self, first: int, cycles: int) -> int:
        """Cycle the data of a transfer holding the port ``cycles`` cycles from ``first`` is in place."""
        return first + cycles - 1 + self.latency

    def get(self, amount: Any, who: str = "", *, at: int | None = None, timed: Any = None) -> simpy.Process:
        """Read ``amount``; the process returns the cycle its data is in place."""
        return self._issue(READ, amount, 0, who, at, timed)

    def put(self, amount: Any, who: str = "", *, at: int | None = None, timed: Any = None) -> simpy.Process:
        """Write ``amount``; the process returns the cycle it is in place."""
        return self._issue(WRITE, 0, amount, who, at, timed)

    def burst(self, reads: Any, writes: Any, who: str = "", *, timed: Any = None) -> simpy.Process:
        """A burst list reading ``reads`` then writing ``writes`` in one turn on the port."""
        return self._issue(BURST, reads, writes, who, None, timed)

    def _count(self, reads: Any, writes: Any, cycles: int) -> None:
        """The hook counting one transfer when it is issued."""
        self.counter.read(reads)
        self.counter.write(writes)

    def _issue(self, kind: str, reads: Any, writes: Any, who: str, at: int | None, timed: Any) -> simpy.Process:
        if timed is not None and timed < 0:
            raise ValueError(f"{self.name}: negative transfer time from {who}")
        cycles = self.rate.cycles(reads + writes if timed is None else timed)
        self._count(reads, writes, cycles)
        self.transfers += 1
        self.busy_cycles += cycles
        who = who or self.name
        amount = self._bytes(reads, writes) if self.recorder is not None else 0
        if at is None:
            return self.env.process(self._serve(kind, cycles, who, amount))
        return self.env.process(self._scheduled(kind, at, cycles, who, amount))

    def _bytes(self, reads: Any, writes: Any) -> float:
        """Bytes a transfer moves (for the recorder)."""
        return (reads + writes) * self.counter.word_bits / 8

    def _record(self, kind: str, who: str, first: int, end: int, amount: float) -> None:
        """The hook recording one transfer: a DRAM burst from its first beat until its data is in place
        (a posted write: until its last beat is out)."""
        beats = end + 1 - self.latency - first
        self.recorder.record(self.name, DRAM, first, max(end, first + beats), f"{kind} {who}", dram_bytes=amount)

    def _log(self, who: str, what: str, when: int) -> None:
        if self.log is not None:
            self.log.append(LogEntry(who, what, when))

    def _serve(self, kind: str, cycles: int, who: str, amount: float = 0):
        with self.port.request() as turn:
            yield turn
            first = int(self.env.now)
            self._log(who, f"{kind} start", first)
            if cycles:
                yield self.env.timeout(cycles)
        return (yield from self._finish(kind, who, first, self.end_cycle(first, cycles), amount))

    def _scheduled(self, kind: str, first: int, cycles: int, who: str, amount: float = 0):
        end = self.end_cycle(first, cycles)
        if first > self.env.now:
            yield self.env.timeout(first - self.env.now)
        self._log(who, f"{kind} start", first)
        return (yield from self._finish(kind, who, first, end, amount))

    def _finish(self, kind: str, who: str, first: int, end: int, amount: float):
        """Wait until the transfer's ``end`` cycle, then log and record it (both ways of issuing end here)."""
        if end > self.env.now:
            yield self.env.timeout(end - self.env.now)
        self._log(who, f"{kind} end", end)
        if self.recorder is not None:
            self._record(kind, who, first, end, amount)
        return end
