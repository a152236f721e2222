"""A DRAM interface of a fractional bandwidth, moving burst lists of reads and writes.

Where :class:`~accel_sim.hardware.DramChannel` moves whole words per cycle, a
:class:`DramBus` has a bandwidth in bytes per cycle that need not divide anything (e.g.
50 GB/s at 1 GHz, or 12.5 B/cycle) and moves operands that are not whole bytes (compressed
blocks). One :meth:`DramBus.transfer` is a burst list (reads and writes back to back on the
same pins, e.g. one pass's weights, spilled partial sums and outputs): it starts when the bus
is free and holds it ``ceil(bits / 8 / bytes_per_cycle)`` cycles. The bits that set the time
may differ from the bits counted (``timed_bits``): a design that compresses a transfer for
energy only moves it in the time of the uncompressed data. Reads and writes are counted in
bits and every burst is logged as ``(who, what, when)`` tuples.
"""
from __future__ import annotations

import math

import simpy

from accel_sim.hardware.dram_channel import LogEntry

BITS_PER_BYTE = 8


class DramBus:
    def __init__(self, env: simpy.Environment, bytes_per_cycle: float, name: str = "dram",
                 log: list[LogEntry] | None = None):
        if not bytes_per_cycle > 0:
            raise ValueError(f"{name}: a DRAM bus moves a positive number of bytes per cycle, got {bytes_per_cycle}")
        self.env = env
        self.name = name
        self.bytes_per_cycle = bytes_per_cycle
        self.port = simpy.Resource(env, capacity=1)
        self.read_bits = 0
        self.write_bits = 0
        self.busy_cycles = 0
        self.log = log if log is not None else []

    def cycles_for(self, bits: int) -> int:
        """Cycles the bus is held by a burst list of ``bits`` bits."""
        return math.ceil(bits / BITS_PER_BYTE / self.bytes_per_cycle)

    def transfer(self, read_bits: int, write_bits: int, who: str, timed_bits: int | None = None) -> simpy.Process:
        """A burst list reading ``read_bits`` and writing ``write_bits``; the process ends when its last
        byte has moved and returns that cycle. It takes the time of ``timed_bits`` (default: all of them)."""
        if min(read_bits, write_bits) < 0 or (timed_bits is not None and timed_bits < 0):
            raise ValueError(f"{self.name}: negative transfer from {who}")
        self.read_bits += read_bits
        self.write_bits += write_bits
        return self.env.process(self._burst(read_bits + write_bits if timed_bits is None else timed_bits, who))

    def _burst(self, bits: int, who: str):
        cycles = self.cycles_for(bits)
        with self.port.request() as slot:
            yield slot
            self.log.append(LogEntry(who, "start", int(self.env.now)))
            if cycles:
                yield self.env.timeout(cycles)
            self.busy_cycles += cycles
            self.log.append(LogEntry(who, "end", int(self.env.now)))
        return int(self.env.now)
