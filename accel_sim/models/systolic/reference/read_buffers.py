"""The ifmap and filter read buffers of the reference.

USER bandwidth: SCALE-Sim's double-buffered :class:`~accel_sim.hardware.ReadScratchpad` in
front of its own DRAM :class:`~accel_sim.hardware.Link` (``dram.bandwidth`` bytes per cycle in
whole words, ``dram.latency`` cycles): its active half is filled before cycle 0, and each request outside
the resident window claims the next prefetch burst, a DRAM process the array waits for.

CALC bandwidth: :class:`EstimatingReadBuffer`, SCALE-Sim's stall-free estimate buffer, its window
of address sets modelled literally, line by line.
"""
from __future__ import annotations

import math

import numpy as np
import simpy

from accel_sim.hardware.counters import AccessCounter
from accel_sim.hardware.link import Link
from accel_sim.hardware.log import LogEntry
from accel_sim.hardware.recorder import Recorder
from accel_sim.hardware.rate import WordsPerCycle
from accel_sim.hardware.scalesim_scratchpad import (ESTIMATE_FILL_WORDS_PER_CYCLE, NO_ADDRESS, EstimateBufferGeometry,
                                                    ReadScratchpad)
from accel_sim.models.systolic.plan import SystolicPlan

PREFILL_READY_CYCLE = -1  # SCALE-Sim times the initial fills to end the cycle before the first demand


def user_read_buffer(env: simpy.Environment, plan: SystolicPlan, operand: str, log: list[LogEntry],
                     recorder: Recorder | None = None) -> ReadScratchpad:
    """The operand's scratchpad and DRAM stream, its active half filling so it is ready in cycle -1."""
    arch = plan.arch
    channel = Link(env, f"{operand}_dram", WordsPerCycle(plan.dram_words_per_cycle), arch.dram.latency, arch.word_bits,
                   log=log, recorder=recorder)
    buffer = ReadScratchpad(env, f"{operand}_sram", plan.capacity_words[operand], plan.fetch_sequences[operand], channel)
    buffer.prefill(PREFILL_READY_CYCLE)
    return buffer


class EstimatingReadBuffer:
    """A read buffer with unconstrained DRAM bandwidth (SCALE-Sim's CALC mode): it never stalls,
    it only counts what it fetches, demand line by demand line.

    A requested word it does not hold goes into the open set (one DRAM read); a set closes at
    ``set_words`` words. The buffer holds the closed sets of its active window (:attr:`window`, at
    most ``active_sets`` of them) and the open set. When the window is full it slides by
    ``prefetch_sets``: its oldest ``prefetch_sets`` sets are dropped.

    SCALE-Sim times the first fill at :data:`ESTIMATE_FILL_WORDS_PER_CYCLE`: an operand that never
    slides the window is filled whole, set by set, to be ready before cycle 0; otherwise the first
    fill (the prefetch sets) is ready the cycle before the operand's first request.
    """

    def __init__(self, name: str, capacity_words: int, word_bits: int, addresses: int):
        self.geometry = EstimateBufferGeometry(capacity_words)
        self.fetched = AccessCounter(f"{name}.fetch", word_bits)  # words read from DRAM
        self.window: list[list[int]] = []  # closed sets of the active window, oldest first
        self.open_set: list[int] = []
        self.slides = 0
        self.held = np.zeros(addresses, dtype=bool)  # by address: in a window set or the open set
        self.first_request_line: int | None = None

    def _fetch(self, address: int) -> None:
        g = self.geometry
        self.fetched.read(1)
        self.open_set.append(address)
        self.held[address] = True
        if len(self.open_set) < g.set_words:
            return
        self.window.append(self.open_set)
        self.open_set = []
        if len(self.window) == g.active_sets:
            self.window = self.window[g.prefetch_sets:]
            self.slides += 1
            self.held[:] = False
            for kept in self.window:
                self.held[kept] = True

    def line(self, requests: np.ndarray, line: int) -> None:
        """Serve one demand line (its requests in array-column order)."""
        wanted = requests[requests != NO_ADDRESS]
        if wanted.size == 0:
            return
        if self.first_request_line is None:
            self.first_request_line = line
        held = self.held[wanted]
        if held.all():
            return
        for address in wanted[int(np.argmin(held)):].tolist():
            if not self.held[address]:
                self._fetch(address)

    def fold(self, demand: np.ndarray, first_line: int) -> None:
        """Serve one fold's demand matrix, whose first row is demand line ``first_line``."""
        for offset, requests in enumerate(demand):
            self.line(requests, first_line + offset)

    def first_fill_cycle(self) -> int:
        """Cycle of the first fill's first word."""
        g = self.geometry
        if self.slides:
            words, ready = g.prefetch_words, (self.first_request_line or 0) - 1  # the cycle before it
        else:
            words, ready = math.ceil(self.fetched.reads / g.set_words) * g.set_words, PREFILL_READY_CYCLE
        return ready - math.ceil(words / ESTIMATE_FILL_WORDS_PER_CYCLE) + 1
