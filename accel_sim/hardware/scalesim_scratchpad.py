"""Double-buffered on-chip scratchpads in front of a DRAM channel (a :class:`~accel_sim.hardware.link.Link`; SimPy components).

Both reproduce SCALE-Sim 3.0.0's double-buffered scratchpad
(``memory/double_buffered_scratchpad_mem.py``): half of the buffer serves the array
(*active*), the other half fills from DRAM (*prefetch*) or drains to it.

:class:`ReadScratchpad` (``memory/read_buffer.py``). The operand's *fetch sequence* (the
order it is laid out for filling, see :mod:`accel_sim.models.systolic.plan.operands`) is cut into sets
of ``ceil(capacity / SETS)`` valid words; the buffer holds a window of consecutive sets
(``active_sets``, wrapping around the sequence). Before compute starts the active half is
filled (``initial_lines`` bus lines ending the cycle before the first demand). An access to
an address outside the window is a miss: the window advances by ``prefetch_sets`` and one
prefetch burst (``burst_lines`` lines) is claimed. SCALE-Sim's prefetcher runs ahead of the
array: burst ``k`` is issued the cycle after burst ``k-1`` completed, whenever the miss
happens, so a late miss may find its burst long done. A request in cycle ``c`` whose burst
ends in cycle ``D`` waits ``p = D - (c + offset)`` (``offset`` starts at the hit latency);
SCALE-Sim adds a positive ``p`` to the offset twice and a negative one once
(``read_buffer.service_reads``), which this component keeps.

:class:`WriteScratchpad` (``memory/write_buffer.py``). Outputs fill the buffer; output words
are grouped into bus lines of ``words_per_cycle`` words. When more than the drain half is
occupied and no drain is running, the open line is closed (possibly partial) and up to
``ceil(drain_words / words_per_cycle)`` lines drain, one per cycle from the current cycle. A
write that finds the buffer full while a drain runs waits for that drain's end. SCALE-Sim
counts a drained line as full unless it is the last of its drain (an over-count of the
padding of partial lines, kept here so DRAM write counts match).

Both serve a SimPy process in two ways: :meth:`ReadScratchpad.read` / :meth:`WriteScratchpad.write`
(``yield from``) make the caller wait for the bursts and drains it depends on;
:meth:`~ReadScratchpad.serve` / :meth:`~WriteScratchpad.store` return the same charge at once.

:class:`EstimateBufferGeometry` is the geometry of SCALE-Sim's CALC-mode read buffer
(``memory/read_buffer_estimate_bw.py``), which never stalls.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

from typing import TYPE_CHECKING

import numpy as np

from accel_sim.foundations.errors import SimulationError
from accel_sim.hardware.counters import AccessCounter

if TYPE_CHECKING:   # the plans read this module's constants without importing SimPy
    import simpy

    from accel_sim.hardware.link import Link

SETS = 100            # SCALE-Sim tracks a read buffer's contents in 100 address sets
ACTIVE_FRACTION = 0.5  # double buffering: half serves the array, half fills / drains
HIT_LATENCY = 1        # cycles from request to data for a resident word (SCALE-Sim read_buffer)
NO_ADDRESS = -1        # SCALE-Sim's marker of an idle request / out-of-bounds window element
# SCALE-Sim's CALC-mode read buffers (``read_buffer_estimate_bw``) time their first fill at 10 words
# per cycle ("The number 10 elems per cycle is arbitrary", single_layer_sim.py).
ESTIMATE_FILL_WORDS_PER_CYCLE = 10


@dataclass(frozen=True)
class ReadBufferGeometry:
    """Sizes of one double-buffered read scratchpad for one fetch sequence (all in words)."""

    capacity_words: int
    words_per_cycle: int     # DRAM bus line width
    fetch_words: int         # length of the fetch sequence, padding included
    valid_words: int         # real addresses in it

    @property
    def active_words(self) -> int:
        return math.ceil(self.capacity_words * ACTIVE_FRACTION)

    @property
    def prefetch_words(self) -> int:
        return self.capacity_words - self.active_words

    @property
    def set_words(self) -> int:
        return math.ceil(self.capacity_words / SETS)

    @property
    def sets(self) -> int:
        """Number of sets; SCALE-Sim always closes with the (possibly empty) open set."""
        return self.valid_words // self.set_words + 1

    @property
    def active_sets(self) -> int:
        return min(math.ceil(self.active_words / self.set_words), self.sets)

    @property
    def prefetch_sets(self) -> int:
        return min(math.ceil(self.prefetch_words / self.set_words), self.sets - self.active_sets)

    @property
    def fetch_lines(self) -> int:
        return math.ceil(self.fetch_words / self.words_per_cycle)

    @property
    def initial_lines(self) -> int:
        """Bus lines of the fill before compute: the active half, at most the whole sequence."""
        return min(math.ceil(self.active_words / self.words_per_cycle), self.fetch_lines)

    @property
    def burst_lines(self) -> int:
        """Bus lines of one prefetch burst (the prefetch half)."""
        return math.ceil(self.prefetch_words / self.words_per_cycle)

    def set_index(self) -> np.ndarray:
        """Set of each valid word of the fetch sequence, in sequence order."""
        return np.arange(self.valid_words) // self.set_words


@dataclass(frozen=True)
class WriteBufferGeometry:
    capacity_words: int
    words_per_cycle: int

    @property
    def active_words(self) -> int:
        return math.ceil(self.capacity_words * ACTIVE_FRACTION)

    @property
    def drain_words(self) -> int:
        return self.capacity_words - self.active_words

    @property
    def lines_per_drain(self) -> int:
        return math.ceil(self.drain_words / self.words_per_cycle)


@dataclass(frozen=True)
class EstimateBufferGeometry:
    """SCALE-Sim's CALC-mode read buffer (``memory/read_buffer_estimate_bw.py``): stall-free, it
    tracks what it holds in ``SETS`` sets of ``floor(capacity / SETS)`` words, half of them active."""

    capacity_words: int

    @property
    def set_words(self) -> int:
        return self.capacity_words // SETS

    @property
    def active_sets(self) -> int:
        return int(ACTIVE_FRACTION * SETS)

    @property
    def prefetch_sets(self) -> int:
        """Sets the active window slides by when it is full."""
        return SETS - self.active_sets

    @property
    def active_words(self) -> int:
        """Words it holds before it starts evicting."""
        return self.active_sets * self.set_words

    @property
    def prefetch_words(self) -> int:
        """Words of the prefetch sets, the first fill of an operand that does not fit."""
        return self.prefetch_sets * self.set_words


class ReadScratchpad:
    """Double-buffered read scratchpad in front of ``channel`` (see the module docstring)."""

    def __init__(self, env: simpy.Environment, name: str, capacity_words: int, fetch: np.ndarray,
                 channel: Link, hit_latency: int = HIT_LATENCY):
        fetch = np.asarray(fetch)
        valid = fetch[fetch != NO_ADDRESS]
        self.env = env
        self.name = name
        self.channel = channel
        self.hit_latency = hit_latency
        self.geometry = ReadBufferGeometry(capacity_words, channel.rate.words, fetch.size, valid.size)
        g = self.geometry
        self._sets = [np.unique(valid[i * g.set_words:(i + 1) * g.set_words]) for i in range(g.sets)]
        self.window = (0, g.active_sets)  # [start, end) of resident sets, wrapping around
        self._resident = self._window_addresses()
        self.fills = AccessCounter(f"{name}.fill", channel.counter.word_bits)  # words written by DRAM
        self.last_ready: int | None = None
        self.bursts = 0
        self.pending: list[simpy.Process] = []

    def _window_sets(self) -> list[int]:
        start, end = self.window
        if start < end:
            return list(range(start, end))
        return list(range(start, self.geometry.sets)) + list(range(end))

    def _window_addresses(self) -> np.ndarray:
        chosen = [self._sets[i] for i in self._window_sets()]
        return np.unique(np.concatenate(chosen)) if chosen else np.empty(0, dtype=np.int64)

    def resident(self, addresses: np.ndarray) -> np.ndarray:
        """Which of ``addresses`` are in the active window."""
        position = np.searchsorted(self._resident, addresses)
        inside = position < self._resident.size
        hit = np.zeros(addresses.shape, dtype=bool)
        hit[inside] = self._resident[position[inside]] == addresses[inside]
        return hit

    def prefill(self, ready_cycle: int) -> simpy.Process:
        """Fill the active half so the last line lands in ``ready_cycle`` (the cycle before compute)."""
        g = self.geometry
        lines = g.initial_lines
        first = ready_cycle - lines + 1 - self.channel.latency
        self.last_ready = ready_cycle
        self.fills.write(lines * g.words_per_cycle)
        return self.channel.get(lines * g.words_per_cycle, f"{self.name} fill", at=first)

    def claim_burst(self) -> simpy.Process:
        """Slide the window by the prefetch half and claim the next burst, issued the cycle after the
        previous one landed; the returned process ends when the burst lands, with that cycle."""
        g = self.geometry
        if g.prefetch_sets == 0 or self.last_ready is None:
            raise SimulationError(f"{self.name}: miss with nothing left to prefetch (window covers every set)")
        start = (self.window[0] + g.prefetch_sets) % g.sets
        self.window = (start, (start + g.active_sets) % g.sets)
        self._resident = self._window_addresses()
        first = self.last_ready + 1
        self.bursts += 1
        words = g.burst_lines * g.words_per_cycle
        self.fills.write(words)
        burst = self.channel.get(words, f"{self.name} burst {self.bursts}", at=first)
        self.pending.append(burst)
        self.last_ready = self.channel.end_cycle(first, g.burst_lines)
        return burst

    def _claims(self, addresses: np.ndarray):
        """The bursts one demand cycle's requests (in array-column order) claim, in order: a request
        outside the window slides it, one burst at a time, until the request is resident."""
        index = 0
        while index < addresses.size:
            hits = self.resident(addresses[index:])
            if hits.all():
                return
            index += int(np.argmin(hits))
            for _ in range(self.geometry.sets + 1):
                if self.resident(addresses[index:index + 1])[0]:
                    break
                yield self.claim_burst()
            else:
                raise SimulationError(f"{self.name}: address {addresses[index]} is in no set of the fetch sequence")
            index += 1

    @staticmethod
    def _charge(offset: int, cycle: int, ready: int) -> int:
        """SCALE-Sim's response offset after a burst landing in ``ready``: a positive wait is added
        twice, a negative one (the burst landed early) once."""
        wait = ready - (cycle + offset)
        return offset + wait + max(wait, 0)

    def serve(self, addresses: np.ndarray, cycle: int) -> int:
        """Serve one demand cycle's requests (in array-column order) issued in ``cycle``.

        Returns the stall SCALE-Sim charges for it (``offset - hit_latency``, may be negative
        when a prefetch landed early). Claimed bursts are left in :attr:`pending`.
        """
        offset = self.hit_latency
        for _ in self._claims(addresses):
            offset = self._charge(offset, cycle, self.last_ready)
        return offset - self.hit_latency

    def read(self, addresses: np.ndarray, cycle: int):
        """:meth:`serve` as part of a SimPy process (``charge = yield from buffer.read(...)``): the
        caller waits for every burst its requests claim to land, and gets the charge."""
        offset = self.hit_latency
        for burst in self._claims(addresses):
            ready = yield burst
            offset = self._charge(offset, cycle, ready)
        return offset - self.hit_latency


class WriteScratchpad:
    """Double-buffered write scratchpad draining to ``channel`` (see the module docstring)."""

    def __init__(self, env: simpy.Environment, name: str, capacity_words: int, channel: Link):
        self.env = env
        self.name = name
        self.channel = channel
        self.geometry = WriteBufferGeometry(capacity_words, channel.rate.words)
        self.free_words = capacity_words
        self.drain_end = 0
        self._closed_lines: deque[int] = deque()  # word count of each closed, undrained line
        self._open_line = 0
        self.drains: list[simpy.Process] = []
        self.stalled_on: simpy.Process | None = None  # the drain the last stalled write waited for
        self.drain_starts: list[int] = []
        self.drain_ends: list[int] = []
        self.drained = AccessCounter(f"{name}.drain", channel.counter.word_bits)  # words read out to DRAM

    def _add_word(self) -> None:
        self._open_line += 1
        if self._open_line == self.geometry.words_per_cycle:
            self._closed_lines.append(self._open_line)
            self._open_line = 0
        self.free_words -= 1

    def _close_open_line(self) -> None:
        if self._open_line:
            self._closed_lines.append(self._open_line)
            self._open_line = 0

    def _drain(self, cycle: int) -> int:
        lines = min(self.geometry.lines_per_drain, len(self._closed_lines))
        taken = [self._closed_lines.popleft() for _ in range(lines)]
        words = (lines - 1) * self.geometry.words_per_cycle + taken[-1]
        self.free_words += words
        self.drained.read(words)
        self.drains.append(self.channel.put(words, f"{self.name} drain {len(self.drains) + 1}", at=cycle))
        end = self.channel.end_cycle(cycle, lines)
        self.drain_starts.append(cycle)
        self.drain_ends.append(end)
        return end

    def _store(self, words: int, cycle: int):
        """Store ``words`` output words written from ``cycle`` on, word by word. A word that finds the
        buffer full while a drain runs yields that drain and goes on in the cycle it is sent back
        (the drain's end). Returns the cycle the last word was stored in."""
        active_words = self.geometry.active_words
        current = cycle
        for _ in range(words):
            self._add_word()
            if current < self.drain_end:
                if self.free_words <= 0:
                    self.stalled_on = self.drains[-1]
                    current = yield self.stalled_on
            elif self.free_words < active_words:
                self._close_open_line()
                self.drain_end = self._drain(current)
        return current

    def store(self, words: int, cycle: int) -> int:
        """Accept ``words`` output words written in ``cycle``; returns the cycles the array waits."""
        steps = self._store(words, cycle)
        try:
            next(steps)
            while True:
                steps.send(self.drain_end)
        except StopIteration as done:
            return done.value - cycle

    def write(self, words: int, cycle: int):
        """:meth:`store` as part of a SimPy process (``wait = yield from buffer.write(...)``): a write
        that finds the buffer full waits for the running drain to end."""
        stored = yield from self._store(words, cycle)
        return stored - cycle

    def flush(self, cycle: int) -> int:
        """Drain everything left, one drain after the other from ``cycle`` (SCALE-Sim
        ``empty_all_buffers``: the first starts at once, even if a drain is still running)."""
        self._close_open_line()
        while self._closed_lines:
            self.drain_end = self._drain(cycle)
            cycle = self.drain_end + 1
        return self.drain_end
