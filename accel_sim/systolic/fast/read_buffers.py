"""The ifmap and filter read buffers, fast path.

USER bandwidth (SCALE-Sim's :class:`~accel_sim.hardware.ReadScratchpad`): a demand line stalls
only when it misses the resident window. Which lines miss does not depend on time, so
:func:`read_misses` finds them for the whole group by a vectorised scan of the demand stream;
each miss claims the next prefetch burst, whose end cycle is fixed (bursts go out back to back:
``initial fill end + k * (burst_lines + latency)``).

CALC bandwidth (SCALE-Sim's stall-free estimate buffer) is in :mod:`.estimate_buffer`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from accel_sim.errors import SimulationError
from accel_sim.hardware.scalesim_scratchpad import NO_ADDRESS, ReadBufferGeometry
from accel_sim.systolic.fast.demand import DemandStream

_FIRST_CHUNK = 256
_LARGEST_CHUNK = 1 << 20


@dataclass(frozen=True)
class ReadMisses:
    """Demand lines that miss the resident window and how many bursts each claims, in order."""

    lines: np.ndarray
    bursts: np.ndarray

    @property
    def total_bursts(self) -> int:
        return int(self.bursts.sum())


class _ResidentWords:
    """How many resident sets hold each address, updated set by set as the window slides.

    Sets are unique-address runs of the fetch sequence; the window holds ``active_sets``
    consecutive sets (wrapping around) and slides by ``prefetch_sets``: the sets that leave
    and the ones that enter are disjoint, so an address is resident iff its count is positive.
    The state is a function of the window start alone (:meth:`move_to` sets it afresh).
    """

    def __init__(self, geometry: ReadBufferGeometry, valid: np.ndarray, size: int):
        self.g = geometry
        keys = np.sort(geometry.set_index() * size + valid)
        keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))] if keys.size else keys
        self.members = keys % size  # unique addresses of each set, set after set
        self.bounds = np.searchsorted(keys // size, np.arange(geometry.sets + 1))
        self.count = np.zeros(size, dtype=np.int32)
        self.start = 0
        self._add(0, geometry.active_sets, 1)

    def _add(self, first: int, sets: int, delta: int) -> None:
        """Add ``delta`` to the count of every address of sets ``first .. first + sets - 1`` (mod n)."""
        n = self.g.sets
        for index in range(first, first + sets):  # an address may sit in several of the sets: set by set
            members = self.members[self.bounds[index % n]:self.bounds[index % n + 1]]  # unique within a set
            self.count[members] += delta

    def move_to(self, start: int) -> None:
        if start != self.start:
            self.count[:] = 0
            self.start = start
            self._add(start, self.g.active_sets, 1)

    def slide(self) -> None:
        g = self.g
        self._add(self.start, g.prefetch_sets, -1)
        self._add((self.start + g.active_sets) % g.sets, g.prefetch_sets, 1)
        self.start = (self.start + g.prefetch_sets) % g.sets

    def hits(self, addresses: np.ndarray) -> np.ndarray:
        return self.count[addresses] > 0

    def holds(self, address: int) -> bool:
        return bool(self.count[address] > 0)


class _WindowTables:
    """The same state as :class:`_ResidentWords`, as one table of resident addresses per window
    start, built from the window's words on first use and kept (for operands whose window meets
    few starts over a small address space: then a slide is a dictionary look-up)."""

    def __init__(self, geometry: ReadBufferGeometry, valid: np.ndarray, size: int):
        self.g, self.valid, self.size = geometry, valid, size
        self.tables: dict[int, np.ndarray] = {}
        self.start = 0
        self.table = self._table(0)

    def _table(self, start: int) -> np.ndarray:
        table = self.tables.get(start)
        if table is None:
            g, words = self.g, self.g.set_words
            table = np.zeros(self.size, dtype=bool)
            end = start + g.active_sets  # sets start .. end - 1, wrapping past the last set
            table[self.valid[start * words:min(end, g.sets) * words]] = True
            if end > g.sets:
                table[self.valid[:(end - g.sets) * words]] = True
            self.tables[start] = table
        return table

    def move_to(self, start: int) -> None:
        self.start, self.table = start, self._table(start)

    def slide(self) -> None:
        self.move_to((self.start + self.g.prefetch_sets) % self.g.sets)

    def hits(self, addresses: np.ndarray) -> np.ndarray:
        return self.table[addresses]

    def holds(self, address: int) -> bool:
        return bool(self.table[address])


TABLE_BUDGET_BYTES = 64 << 20  # resident tables kept per window start (bool per address) at most


def _window(geometry: ReadBufferGeometry, fetch: np.ndarray, addresses: np.ndarray, table_budget: int):
    """The sliding window's state over ``fetch``, checked to hold every demanded address somewhere:
    tables per start when every start it can meet fits ``table_budget`` bytes, else counts."""
    valid = fetch[fetch != NO_ADDRESS].astype(np.int64, copy=False)
    size = int(max(valid.max(initial=-1), addresses.max(initial=-1))) + 1
    present = np.zeros(size, dtype=bool)
    present[valid] = True
    if not present[addresses].all():
        raise SimulationError("a demanded address is missing from the fetch sequence")
    n, step = geometry.sets, geometry.prefetch_sets
    starts = n // math.gcd(n, step) if step else 1  # the window starts are multiples of gcd(n, step)
    if starts * size <= table_budget:
        return _WindowTables(geometry, valid, size)
    return _ResidentWords(geometry, valid, size)


def scan_misses(total: int, hits, reach, lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The miss scan of a demand stream against a sliding window, whatever holds the window's state.

    Vectorised in growing chunks: ``hits(lo, hi)`` checks requests ``lo .. hi - 1`` at once against
    the current window; at the first miss ``reach(position)`` slides the window (one burst each
    time) until the request hits and returns the bursts it took, and the scan resumes after it.
    Misses of one demand line (``lines``) add up. Returns (miss lines, bursts per miss line).
    """
    miss_lines: list[int] = []
    miss_bursts: list[int] = []
    position, chunk = 0, _FIRST_CHUNK
    while position < total:
        stop = min(total, position + chunk)
        hit = hits(position, stop)
        if hit.all():
            position, chunk = stop, min(2 * chunk, _LARGEST_CHUNK)
            continue
        position += int(np.argmin(hit))
        bursts = reach(position)
        line = int(lines[position])
        if miss_lines and miss_lines[-1] == line:
            miss_bursts[-1] += bursts
        else:
            miss_lines.append(line)
            miss_bursts.append(bursts)
        position, chunk = position + 1, _FIRST_CHUNK
    return np.asarray(miss_lines, dtype=np.int64), np.asarray(miss_bursts, dtype=np.int64)


def read_misses(geometry: ReadBufferGeometry, fetch: np.ndarray, demand: DemandStream, repeats: int = 1,
                repeat_lines: int = 0, table_budget: int = TABLE_BUDGET_BYTES) -> ReadMisses:
    """Scan the demand stream against the sliding window of resident sets (:func:`scan_misses`).

    ``demand`` may be one sweep of a stream that repeats it ``repeats`` times, each repeat
    ``repeat_lines`` demand lines after the previous one (an operand streamed along the array rows
    is swept again for every column fold). The window's state is its start alone, so a sweep that
    begins at a start met before repeats that sweep's misses: each (sweep, start) is scanned once.
    """
    resident = _window(geometry, fetch, demand.addresses, table_budget)
    addresses = demand.addresses

    def reach(position: int) -> int:
        bursts, address = 0, int(addresses[position])
        while not resident.holds(address):
            if bursts > geometry.sets or geometry.prefetch_sets == 0:
                raise SimulationError("read scratchpad window never reaches a demanded address")
            resident.slide()
            bursts += 1
        return bursts

    def hits(lo: int, hi: int) -> np.ndarray:
        return resident.hits(addresses[lo:hi])

    seen: dict[int, tuple[np.ndarray, np.ndarray, int]] = {}  # sweep's start -> (miss lines, bursts, end start)
    lines_parts, bursts_parts = [], []
    start = 0
    for sweep in range(repeats):
        scanned = seen.get(start)
        if scanned is None:
            resident.move_to(start)
            scanned = (*scan_misses(addresses.size, hits, reach, demand.lines), resident.start)
            seen[start] = scanned
        miss_lines, miss_bursts, start = scanned
        lines_parts.append(miss_lines + sweep * repeat_lines)
        bursts_parts.append(miss_bursts)
    return ReadMisses(np.concatenate(lines_parts), np.concatenate(bursts_parts))


@dataclass(frozen=True)
class ReadStream:
    """One read operand under USER bandwidth: buffer geometry and its misses."""

    geometry: ReadBufferGeometry
    misses: ReadMisses
    latency: int

    @property
    def burst_cycles(self) -> int:
        """Cycles between the ends of consecutive bursts (they are issued back to back)."""
        return self.geometry.burst_lines + self.latency

    @property
    def dram_words(self) -> int:
        g = self.geometry
        return (g.initial_lines + self.misses.total_bursts * g.burst_lines) * g.words_per_cycle
