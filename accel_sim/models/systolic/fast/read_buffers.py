"""The ifmap and filter read buffers, fast path.

USER bandwidth (SCALE-Sim's :class:`~accel_sim.hardware.ReadScratchpad`): a demand line stalls
only when it misses the resident window. Which lines miss does not depend on time, so
:func:`read_misses` finds them for the whole group by a vectorised scan of the demand stream;
each miss claims the next prefetch burst, whose end cycle is fixed (bursts go out back to back:
``initial fill end + k * (burst_lines + latency)``).

CALC bandwidth (SCALE-Sim's stall-free estimate buffer) is in :mod:`.estimate_buffer`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.foundations.errors import SimulationError
from accel_sim.hardware.scalesim_scratchpad import NO_ADDRESS, ReadBufferGeometry
from accel_sim.models.systolic.fast.demand import DemandStream, FoldRequests

FIRST_CHUNK = 256           # requests checked at once after a miss (doubling while they hit)
LARGEST_CHUNK = 1 << 20


@dataclass(frozen=True)
class ReadMisses:
    """Demand lines that miss the resident window and how many bursts each claims, in order."""

    lines: np.ndarray
    bursts: np.ndarray

    @property
    def total_bursts(self) -> int:
        return int(self.bursts.sum())


STAMP_MAX = np.iinfo(np.uint8).max


class Window:
    """Which addresses the read buffer's window holds: the valid words of sets ``start .. start +
    active_sets - 1`` (wrapping around) of the fetch sequence. Set ``j``'s words are
    ``words[bounds[j]:bounds[j + 1]]`` (``words``: the valid words, ``bounds[j] = j set_words``, or
    the fetch sequence itself with the idle words between sets, which are always held anyway).

    The state is a function of the start alone. A start gets a fresh stamp, written over the
    address space at the words of its sets, the first time a batch of requests is checked against
    it (:meth:`hits`): an address is resident iff it bears the current stamp (no unmarking,
    whichever other sets it also sits in); :meth:`holds` reads one address's stamp. A miss
    (:meth:`reach`) looks for the address only in the sets each slide brings in.
    """

    def __init__(self, geometry: ReadBufferGeometry, words: np.ndarray, size: int, bounds: np.ndarray | None = None):
        self.g, self.words = geometry, words
        self.sets, self.active, self.step = geometry.sets, geometry.active_sets, geometry.prefetch_sets
        if bounds is None:
            bounds = np.minimum(np.arange(self.sets + 1, dtype=np.int64) * geometry.set_words, words.size)
        self.bounds = bounds.tolist()
        self.stamp = np.zeros(size + 1, dtype=np.uint8)  # the last entry: NO_ADDRESS, always resident
        self.current = 0
        self.stamped = False
        self.start = 0

    def _words(self, first: int, end: int) -> tuple[np.ndarray, ...]:
        """The valid words of sets ``first .. end - 1`` (``first`` in ``[0, sets)``, at most
        ``sets`` of them), wrapping past the last set."""
        n, bounds, words = self.sets, self.bounds, self.words
        if end <= n:
            return (words[bounds[first]:bounds[end]],)
        return words[bounds[first]:], words[:bounds[end - n]]

    def move_to(self, start: int) -> None:
        if start != self.start:
            self.start, self.stamped = start, False

    def _stamp(self) -> None:
        if not self.stamped:
            self.current += 1
            if self.current > STAMP_MAX:  # stamps run out: forget them all (one byte per address keeps the table in cache)
                self.stamp[:] = 0
                self.current = 1
            self.stamp[NO_ADDRESS] = self.current
            for part in self._words(self.start, self.start + self.active):
                self.stamp[part.astype(np.intp, copy=False)] = self.current  # numpy indexes 3x slower by int32
            self.stamped = True

    def hits(self, addresses: np.ndarray) -> np.ndarray:
        self._stamp()
        return self.stamp[addresses.astype(np.intp, copy=False)] == self.current

    def holds(self, address: int) -> bool:
        """Whether the window holds ``address``: by its stamp, so only once :meth:`hits` has stamped
        the current start (or for an idle request, always held)."""
        if not (self.stamped or address == NO_ADDRESS):
            raise SimulationError("holds() reads stamps: check a batch with hits() first")
        return address == NO_ADDRESS or bool(self.stamp[address] == self.current)

    def reach(self, address: int) -> int:
        """Slide until the window holds ``address``, which it does not hold now (every caller has found a
        miss there); returns the slides (one burst each)."""
        n, active, step = self.sets, self.active, self.step
        if step > 0:
            for slides in range(1, n + 2):
                start = self.start + slides * step
                entering = max(start, self.start + (slides - 1) * step + active)  # sets not held one slide before
                first = entering % n
                if any((part == address).any() for part in self._words(first, first + start + active - entering)):
                    self.move_to(start % n)
                    return slides
        raise SimulationError("read scratchpad window never reaches a demanded address")


def _window(geometry: ReadBufferGeometry, fetch: np.ndarray, addresses: np.ndarray) -> Window:
    """The sliding window over ``fetch``, checked to hold every demanded address somewhere (idle
    requests, ``NO_ADDRESS``, always hit)."""
    valid = fetch[fetch != NO_ADDRESS].astype(np.int64, copy=False)
    size = int(max(valid.max(initial=-1), addresses.max(initial=-1))) + 1
    present = np.zeros(size + 1, dtype=bool)
    present[valid] = True
    present[NO_ADDRESS] = True
    if not present[addresses].all():
        raise SimulationError("a demanded address is missing from the fetch sequence")
    return Window(geometry, valid, size)


class MissLog:
    """Misses in scan order; misses of one demand line add up their bursts."""

    def __init__(self):
        self.lines: list[int] = []
        self.bursts: list[int] = []

    def add(self, line: int, bursts: int) -> None:
        if self.lines and self.lines[-1] == line:
            self.bursts[-1] += bursts
        else:
            self.lines.append(line)
            self.bursts.append(bursts)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(self.lines, dtype=np.int64), np.asarray(self.bursts, dtype=np.int64)


def scan_misses(total: int, hits, reach, lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The miss scan of a demand stream against a sliding window, whatever holds the window's state.

    Vectorised in growing chunks: ``hits(lo, hi)`` checks requests ``lo .. hi - 1`` at once against
    the current window; at the first miss ``reach(position)`` slides the window (one burst each
    time) until the request hits and returns the bursts it took, and the scan resumes after it.
    Misses of one demand line (``lines``) add up. Returns (miss lines, bursts per miss line).
    """
    misses = MissLog()
    position, chunk = 0, FIRST_CHUNK
    while position < total:
        stop = min(total, position + chunk)
        hit = hits(position, stop)
        if hit.all():
            position, chunk = stop, min(2 * chunk, LARGEST_CHUNK)
            continue
        position += int(np.argmin(hit))
        misses.add(int(lines[position]), reach(position))
        position, chunk = position + 1, FIRST_CHUNK
    return misses.arrays()


def read_misses(geometry: ReadBufferGeometry, fetch: np.ndarray, demand: DemandStream | FoldRequests,
                repeats: int = 1, repeat_lines: int = 0) -> ReadMisses:
    """Scan the demand stream against the sliding window of resident sets (:func:`scan_misses`);
    idle requests of a :class:`~accel_sim.models.systolic.fast.demand.FoldRequests` always hit.

    ``demand`` may be one sweep of a stream that repeats it ``repeats`` times, each repeat
    ``repeat_lines`` demand lines after the previous one (:func:`repeated_sweeps`).
    """
    resident = _window(geometry, fetch, demand.addresses)
    addresses = demand.addresses

    def reach(position: int) -> int:
        return resident.reach(int(addresses[position]))

    def hits(lo: int, hi: int) -> np.ndarray:
        return resident.hits(addresses[lo:hi])

    def scan_from(start: int) -> tuple[np.ndarray, np.ndarray, int]:
        resident.move_to(start)
        return (*scan_misses(addresses.size, hits, reach, demand.lines), resident.start)

    return repeated_sweeps(scan_from, repeats, repeat_lines)


def repeated_sweeps(scan_from, repeats: int, repeat_lines: int) -> ReadMisses:
    """Misses of a sweep repeated ``repeats`` times, each repeat ``repeat_lines`` demand lines
    after the previous one (an operand streamed along the array rows is swept again for every
    column fold). The window's state is its start alone, so a sweep that begins at a start met
    before repeats that sweep's misses: ``scan_from(start)`` (miss lines, bursts, start after the
    sweep) runs once per start."""
    seen: dict[int, tuple[np.ndarray, np.ndarray, int]] = {}  # sweep's start -> (miss lines, bursts, end start)
    lines_parts, bursts_parts = [], []
    start = 0
    for sweep in range(repeats):
        scanned = seen.get(start)
        if scanned is None:
            scanned = seen[start] = scan_from(start)
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
