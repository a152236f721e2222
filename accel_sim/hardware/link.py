"""A bandwidth-limited link: transfers of whole cycles at a rate of any bytes per cycle.

One :class:`Link` is one path data crosses at a fixed rate: an L2 read path shared by many
clients, one client's port, an HBM interface, a shared-memory bank array, a register-file read
port. A transfer of ``bits`` holds the link's one-slot port for ``ceil(bits / (8 x
bytes_per_cycle))`` whole cycles (none for nothing); transfers queue for the port in request
order. The rate may be fractional (an A100's HBM2 moves 1102.8 bytes per 1410 MHz clock), which
:class:`~accel_sim.hardware.dram_channel.DramChannel` (whole words per cycle, a latency per
transfer) does not express; a latency, where a model has one, is the caller's.

The link counts transfers and bits, and logs ``(who, what, when)`` tuples when given a log.
"""
from __future__ import annotations

import math

import simpy

from accel_sim.hardware.dram_channel import LogEntry

BITS_PER_BYTE = 8


class Link:
    def __init__(self, env: simpy.Environment, name: str, bytes_per_cycle: float, log: list[LogEntry] | None = None):
        if not bytes_per_cycle > 0:
            raise ValueError(f"{name}: a link moves a positive number of bytes per cycle, got {bytes_per_cycle}")
        self.env = env
        self.name = name
        self.bytes_per_cycle = bytes_per_cycle
        self.port = simpy.Resource(env, capacity=1)
        self.transfers = 0
        self.bits = 0
        self.log = log

    def cycles_for(self, bits: int) -> int:
        """Whole cycles the link is busy moving ``bits``."""
        return math.ceil(bits / (BITS_PER_BYTE * self.bytes_per_cycle))

    def transfer(self, bits: int, who: str = "") -> simpy.Process:
        """Move ``bits`` when the port is free; the process ends with the last bit, returning that cycle."""
        if bits < 0:
            raise ValueError(f"{self.name}: negative transfer of {bits} bits")
        self.transfers += 1
        self.bits += bits
        return self.env.process(self._transfer(bits, who))

    def _transfer(self, bits: int, who: str):
        with self.port.request() as slot:
            yield slot
            if self.log is not None:
                self.log.append(LogEntry(who, f"{self.name} start", int(self.env.now)))
            yield self.env.timeout(self.cycles_for(bits))
        if self.log is not None:
            self.log.append(LogEntry(who, f"{self.name} end", int(self.env.now)))
        return int(self.env.now)
