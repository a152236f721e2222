"""The ifmap and filter read buffers of the reference.

USER bandwidth: SCALE-Sim's double-buffered :class:`~accel_sim.hardware.ReadScratchpad` in
front of its own :class:`~accel_sim.hardware.DramChannel` (``dram.bandwidth`` bytes and
``dram.latency`` cycles): its active half is filled before cycle 0, and each request outside
the resident window claims the next prefetch burst, a DRAM process the array waits for.

CALC bandwidth: :class:`EstimatingReadBuffer`, SCALE-Sim's stall-free estimate buffer, fold by fold.
"""
from __future__ import annotations

import math

import numpy as np
import simpy

from accel_sim.hardware.counters import AccessCounter
from accel_sim.hardware.dram_channel import DramChannel, LogEntry
from accel_sim.hardware.scalesim_scratchpad import (ESTIMATE_FILL_WORDS_PER_CYCLE, NO_ADDRESS, EstimateBufferGeometry,
                                                    ReadScratchpad)
from accel_sim.systolic.plan import SystolicPlan

PREFILL_READY_CYCLE = -1  # SCALE-Sim times the initial fills to end the cycle before the first demand


def user_read_buffer(env: simpy.Environment, plan: SystolicPlan, operand: str, log: list[LogEntry]) -> ReadScratchpad:
    """The operand's scratchpad and DRAM stream, its active half filling so it is ready in cycle -1."""
    arch = plan.arch
    channel = DramChannel(env, f"{operand}_dram", plan.dram_words_per_cycle, arch.dram.latency, arch.word_bits, log=log)
    buffer = ReadScratchpad(env, f"{operand}_sram", plan.capacity_words[operand], plan.fetch_sequences[operand], channel)
    buffer.prefill(PREFILL_READY_CYCLE)
    return buffer


class EstimatingReadBuffer:
    """A read buffer with unconstrained DRAM bandwidth (SCALE-Sim's CALC mode): it never stalls.

    For each fold it fetches the words of the fold's requests it does not hold, and holds every
    word it fetched while they fit its active sets. An operand that outgrows them cannot stay:
    when the array streams it again from the start (:meth:`restream`, each column fold for an
    operand entering along the array rows) every word is fetched again (an approximation of
    SCALE-Sim's set-wise refetches).

    SCALE-Sim times the first fill at :data:`ESTIMATE_FILL_WORDS_PER_CYCLE`: an operand that fits
    is filled whole, set by set, to be ready before cycle 0; the prefetch sets of one that
    overflows are filled to be ready the cycle before its first request.
    """

    def __init__(self, name: str, capacity_words: int, word_bits: int, addresses: int):
        self.geometry = EstimateBufferGeometry(capacity_words)
        self.fetched = AccessCounter(f"{name}.fetch", word_bits)  # words read from DRAM
        self.held = np.zeros(addresses, dtype=bool)  # by address (addresses run from 0 to ``addresses - 1``)
        self.held_words = 0
        self.overflowed = False
        self.first_request_line: int | None = None

    def restream(self) -> None:
        if self.overflowed:
            self.held[:] = False
            self.held_words = 0

    def fold(self, demand: np.ndarray, first_line: int) -> None:
        """Serve one fold's demand matrix, whose first row is demand line ``first_line``."""
        requested = demand != NO_ADDRESS
        busy_lines = np.flatnonzero(requested.any(axis=1))
        if self.first_request_line is None and busy_lines.size:
            self.first_request_line = first_line + int(busy_lines[0])
        wanted = np.unique(demand[requested])
        new = wanted[~self.held[wanted]]
        self.held[new] = True
        self.held_words += new.size
        self.fetched.read(new.size)
        self.overflowed = self.overflowed or self.held_words >= self.geometry.active_words

    def first_fill_cycle(self) -> int:
        """Cycle of the first fill's first word."""
        g = self.geometry
        if self.overflowed:
            words, ready = g.prefetch_words, (self.first_request_line or 0) - 1  # the cycle before it
        else:
            words, ready = math.ceil(self.held_words / g.set_words) * g.set_words, PREFILL_READY_CYCLE
        return ready - math.ceil(words / ESTIMATE_FILL_WORDS_PER_CYCLE) + 1
