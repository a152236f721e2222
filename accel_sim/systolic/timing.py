"""Fast path of the systolic model: closed forms and vectorised numpy, no event queue.

Compute timeline (both bandwidth modes). Without memory stalls one group of a layer takes
``folds * fold_lines`` demand cycles and SCALE-Sim reports the index of the last one,
``folds * fold_lines - 1`` (:class:`accel_sim.systolic.mapping.SystolicMapping`).

Memory timeline (SCALE-Sim ``double_buffered_scratchpad.service_memory_requests``). The
array issues one demand line per cycle; line ``i`` is issued in cycle ``i + S`` where ``S``
is the stall accumulated so far, and each line adds ``max(ifmap stall, filter stall, ofmap
stall)``. The stalls come from the scratchpads of :mod:`accel_sim.hardware.scalesim_scratchpad`:

- reads (USER bandwidth only; CALC read buffers never stall): a line stalls only when it
  misses the resident window. Which lines miss does not depend on time, so
  :func:`read_misses` finds them for the whole group by a vectorised scan of the demand
  stream; each miss claims the next prefetch burst, whose end cycle is fixed
  (``initial fill end + k * (burst_lines + latency)``);
- writes: :class:`DrainTimeline` jumps from drain to drain with cumulative sums over the
  per-line output counts (closed form per fold) and only walks word by word through a
  line that stalls.

The result is SCALE-Sim's "Total Cycles" (last output write), its stall count, the DRAM
word counts and the first / last DRAM cycles ("Total Cycles (incl. prefetch)").
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from accel_sim.errors import SimulationError
from accel_sim.hardware.scalesim_scratchpad import (ACTIVE_FRACTION, HIT_LATENCY, NO_ADDRESS, SETS, ReadBufferGeometry,
                                          WriteBufferGeometry)
from accel_sim.systolic.mapping import SystolicMapping, kept_reduction_indices
from accel_sim.systolic.operands import ROLES, DemandStream, demand_base
from accel_sim.workload.layer import ConvLayer, Layer

# SCALE-Sim's CALC-mode read buffers (``read_buffer_estimate_bw``) model their first fill at
# 10 words per cycle ("The number 10 elems per cycle is arbitrary", single_layer_sim.py);
# it only moves the first DRAM cycle, i.e. "Total Cycles (incl. prefetch)".
SCALESIM_CALC_FILL_WORDS_PER_CYCLE = 10

_FIRST_CHUNK = 256
_LARGEST_CHUNK = 1 << 20


# --------------------------------------------------------------------------- output writes
def ofmap_writes_per_line(mapping: SystolicMapping) -> np.ndarray:
    """Output words the array writes in each demand cycle of one group (closed form per fold).

    A fold writes a ``rows x used_width`` rectangle skewed onto lines ``base + t + q`` (rows
    ``t0 <= t < t1``); the number of its cells on diagonal ``d = line - base`` is
    ``min(t1 - 1, d) - max(t0, d - used_width + 1) + 1``. Folds differ only in how much of
    the array they use, so each distinct (used rows, used columns) pair is computed once.
    """
    r = ROLES[mapping.dataflow.name]["ofmap"]
    base = demand_base(mapping, r)
    d = np.arange(mapping.fold_lines) - base
    cache: dict[tuple[int, int], np.ndarray] = {}
    per_fold = []
    for fold_col in range(mapping.col_folds):
        for fold_row in range(mapping.row_folds):
            used = (mapping.used_rows(fold_row), mapping.used_cols(fold_col))
            if used not in cache:
                rows, cols = used
                width = cols if not r.width_is_rows else rows
                if r.kind == "drain":  # output stationary: the used rows come out last-row-first
                    t0, t1 = mapping.rows - rows, mapping.rows
                else:
                    t0, t1 = 0, mapping.t
                count = np.minimum(t1 - 1, d) - np.maximum(t0, d - width + 1) + 1
                cache[used] = np.maximum(count, 0)
            per_fold.append(cache[used])
    return np.concatenate(per_fold)


class DrainTimeline:
    """SCALE-Sim's write buffer driven by per-line output counts, jumping between events.

    Word ``w`` (1-based over the group) is written in the line ``l`` with
    ``cum[l-1] < w <= cum[l]``, in cycle ``l + S``. An event happens at the first word that
    either overflows the buffer while a drain runs (a stall) or exceeds the drain half when
    no drain runs (a drain starts). :meth:`advance` finds them with ``searchsorted``.
    """

    def __init__(self, geometry: WriteBufferGeometry, counts: np.ndarray, write_latency: int):
        self.g = geometry
        self.cum = np.cumsum(counts, dtype=np.int64)
        self.latency = write_latency
        self.stored = 0
        self.freed = 0
        self.drain_end = 0
        self.closed_at = 0
        self.runs: deque[list[int]] = deque()  # [words per line, lines]
        self.drained_words = 0
        self.drain_starts: list[int] = []
        self.drain_ends: list[int] = []

    def _first_word(self, line: int) -> int:
        """First word written in line ``line`` or later (past the end: one past the last word)."""
        if line <= 0:
            return 1
        return int(self.cum[min(line, self.cum.size) - 1]) + 1

    def _line_of(self, word: int) -> int:
        return int(np.searchsorted(self.cum, word, side="left"))

    def _close_lines(self, word: int) -> None:
        new = word - self.closed_at
        full, partial = divmod(new, self.g.words_per_cycle)
        if full:
            self.runs.append([self.g.words_per_cycle, full])
        if partial:
            self.runs.append([partial, 1])
        self.closed_at = word

    def _drain(self, cycle: int) -> None:
        need = self.g.lines_per_drain
        taken, last = 0, 0
        while need and self.runs:
            run = self.runs[0]
            take = min(need, run[1])
            run[1] -= take
            need -= take
            taken += take
            last = run[0]
            if run[1] == 0:
                self.runs.popleft()
        words = (taken - 1) * self.g.words_per_cycle + last
        self.freed += words
        self.drained_words += words
        self.drain_end = cycle + taken - 1 + self.latency
        self.drain_starts.append(cycle)
        self.drain_ends.append(self.drain_end)

    def advance(self, line_limit: int, stall: int) -> int | None:
        """Store the words of lines ``< line_limit`` issued with accumulated stall ``stall``,
        starting drains on the way. Stops before a line in which the array would wait for a
        drain and returns that line (process it with :meth:`line`), else returns None."""
        limit = int(self.cum[line_limit - 1]) if line_limit > 0 else 0
        g = self.g
        while True:
            start = self.stored + 1
            if start > limit:
                self.stored = max(self.stored, limit)
                return None
            # words before `draining_until` are written while the running drain is still busy
            draining_until = self._first_word(self.drain_end - stall)
            overflow = max(start, self.freed + g.capacity_words)
            if overflow < draining_until:
                if overflow > limit:
                    self.stored = limit
                    return None
                line = self._line_of(overflow)
                self.stored = max(self.stored, self._first_word(line) - 1)
                return line
            trigger = max(start, draining_until, self.freed + g.drain_words + 1)
            if trigger > limit:
                self.stored = limit
                return None
            self.stored = trigger
            self._close_lines(trigger)
            self._drain(self._line_of(trigger) + stall)

    def line(self, line: int, cycle: int) -> int:
        """Store one line's words word by word; returns the cycles the array waits in it."""
        g = self.g
        current = cycle
        first = max(self.stored, int(self.cum[line - 1]) if line > 0 else 0) + 1
        for word in range(first, int(self.cum[line]) + 1):
            free = g.capacity_words - (word - self.freed)
            if current < self.drain_end:
                if free <= 0:
                    current = self.drain_end
            elif free < g.active_words:
                self._close_lines(word)
                self._drain(current)
        self.stored = int(self.cum[line])
        return current - cycle

    def flush(self, cycle: int) -> None:
        """Drain what is left after the last line (SCALE-Sim ``empty_all_buffers``)."""
        self._close_lines(self.stored)
        while self.runs:
            self._drain(cycle)
            cycle = self.drain_end + 1


# --------------------------------------------------------------------------- read misses
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
    """

    def __init__(self, geometry: ReadBufferGeometry, fetch: np.ndarray, addresses: np.ndarray):
        valid = fetch[fetch != NO_ADDRESS].astype(np.int64)
        self.g = geometry
        self.addresses = addresses
        size = int(max(valid.max(initial=-1), addresses.max(initial=-1))) + 1
        present = np.zeros(size, dtype=bool)
        present[valid] = True
        if not present[addresses].all():
            raise SimulationError("a demanded address is missing from the fetch sequence")
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
        for lo, hi in ((first, min(first + sets, n)), (0, max(first + sets - n, 0))):
            if hi > lo:  # an address may sit in several of the sets: accumulate, do not assign
                np.add.at(self.count, self.members[self.bounds[lo]:self.bounds[hi]], delta)

    def slide(self) -> None:
        g = self.g
        if g.prefetch_sets == 0:
            raise SimulationError("read scratchpad window never reaches a demanded address")
        self._add(self.start, g.prefetch_sets, -1)
        self._add((self.start + g.active_sets) % g.sets, g.prefetch_sets, 1)
        self.start = (self.start + g.prefetch_sets) % g.sets

    def hits(self, lo: int, hi: int) -> np.ndarray:
        return self.count[self.addresses[lo:hi]] > 0


def read_misses(geometry: ReadBufferGeometry, fetch: np.ndarray, demand: DemandStream) -> ReadMisses:
    """Scan the demand stream against the sliding window of resident sets.

    Vectorised in growing chunks: a chunk of requests is checked at once against the current
    window; at the first miss the window slides (one burst each time) until the request
    hits, and the scan resumes after it.
    """
    resident = _ResidentWords(geometry, fetch, demand.addresses)
    total = demand.addresses.size
    miss_lines: list[int] = []
    miss_bursts: list[int] = []
    position, chunk = 0, _FIRST_CHUNK
    while position < total:
        stop = min(total, position + chunk)
        hit = resident.hits(position, stop)
        if hit.all():
            position, chunk = stop, min(2 * chunk, _LARGEST_CHUNK)
            continue
        position += int(np.argmin(hit))
        bursts = 0
        while not resident.hits(position, position + 1)[0]:
            if bursts > geometry.sets:
                raise SimulationError("read scratchpad window never reaches a demanded address")
            resident.slide()
            bursts += 1
        line = int(demand.lines[position])
        if miss_lines and miss_lines[-1] == line:
            miss_bursts[-1] += bursts
        else:
            miss_lines.append(line)
            miss_bursts.append(bursts)
        position, chunk = position + 1, _FIRST_CHUNK
    return ReadMisses(np.asarray(miss_lines, dtype=np.int64), np.asarray(miss_bursts, dtype=np.int64))


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


# --------------------------------------------------------------------------- timeline
@dataclass(frozen=True)
class Timeline:
    """Memory-aware timing of one group (SCALE-Sim's report quantities)."""

    cycles: int                 # "Total Cycles": cycle of the last output write
    compute_cycles: int         # the same without any stall
    scalesim_stall_cycles: int  # SCALE-Sim's "Stall Cycles" (sum of per-line stalls)
    ofmap_dram_words: int
    first_drain_cycle: int
    last_drain_cycle: int


def timeline(mapping: SystolicMapping, ofmap: WriteBufferGeometry, write_latency: int,
             reads: tuple[ReadStream, ...] = ()) -> Timeline:
    """Walk the group's demand lines from event to event (read misses, drains, write stalls)."""
    lines = mapping.demand_lines
    writes = DrainTimeline(ofmap, ofmap_writes_per_line(mapping), write_latency)
    events: dict[int, list[int]] = {}
    for slot, stream in enumerate(reads):
        for line, bursts in zip(stream.misses.lines.tolist(), stream.misses.bursts.tolist()):
            events.setdefault(line, [0] * len(reads))[slot] = bursts
    events.setdefault(lines - 1, [0] * len(reads))
    ready = [-1] * len(reads)  # end cycle of the last burst of each read stream (fill ends at -1)
    stall = 0
    last_cycle = 0
    for line in sorted(events):
        while (waiting := writes.advance(line, stall)) is not None:
            stall += writes.line(waiting, waiting + stall)
        cycle = line + stall
        line_stall = writes.line(line, cycle)
        if line == lines - 1:
            last_cycle = cycle + line_stall
        for slot, bursts in enumerate(events[line]):
            offset = HIT_LATENCY
            for _ in range(bursts):
                ready[slot] += reads[slot].burst_cycles
                wait = ready[slot] - (cycle + offset)
                offset += wait + max(wait, 0)  # SCALE-Sim counts a positive wait twice
            line_stall = max(line_stall, offset - HIT_LATENCY)
        stall += line_stall
    writes.flush(last_cycle)
    return Timeline(cycles=last_cycle, compute_cycles=lines - 1, scalesim_stall_cycles=stall,
                    ofmap_dram_words=writes.drained_words, first_drain_cycle=writes.drain_starts[0],
                    last_drain_cycle=max(writes.drain_ends))


# --------------------------------------------------------------------------- DRAM footprint
def _touched(size: int, kernel: int, stride: int, pad: int, outputs: int, offsets: np.ndarray) -> np.ndarray:
    """Input positions (along one axis) read by the kernel offsets ``offsets`` of any window."""
    hit = np.zeros(size, dtype=bool)
    starts = np.arange(outputs) * stride - pad
    positions = (starts[:, None] + offsets[None, :]).ravel()
    hit[positions[(positions >= 0) & (positions < size)]] = True
    return hit


def touched_input_words(mapping: SystolicMapping, layer: Layer) -> int:
    """Distinct input words one group reads (the ifmap's DRAM footprint as SCALE-Sim counts it).

    Windows can skip inputs (stride > kernel) or reach outside them (padding, SCALE-Sim's
    ceil-rounded last window); under N:M the ifmap columns of pruned weights are never read.
    Dense: (touched rows) x (touched columns) x channels. N:M: per channel, the union over
    its kept kernel offsets of (touched rows x touched columns).
    """
    if isinstance(layer, ConvLayer):
        h, w, c = layer.in_h, layer.in_w, layer.in_channels // layer.groups
        r, s, batch = layer.kernel_h, layer.kernel_w, layer.batch
        geometry = ((layer.stride_h, layer.pad_top, layer.out_h), (layer.stride_w, layer.pad_left, layer.out_w))
    else:
        h, w, c, r, s, batch = layer.m, layer.k, 1, 1, layer.k, 1
        geometry = ((1, 0, layer.m), (1, 0, 1))
    (stride_h, pad_h, out_h), (stride_w, pad_w, out_w) = geometry
    if mapping.nm is None:
        rows = _touched(h, r, stride_h, pad_h, out_h, np.arange(r)).sum()
        cols = _touched(w, s, stride_w, pad_w, out_w, np.arange(s)).sum()
        return int(rows * cols * c * batch)
    kept = np.asarray(kept_reduction_indices(mapping.dense_k, mapping.nm))
    kr, rest = np.divmod(kept, s * c)
    kc, ch = np.divmod(rest, c)
    per_pattern: dict[tuple[tuple[int, int], ...], int] = {}
    total = 0
    for channel in range(c):
        pattern = tuple(zip(kr[ch == channel].tolist(), kc[ch == channel].tolist()))
        if pattern not in per_pattern:
            grid = np.zeros((h, w), dtype=bool)
            for offset_r, offset_c in pattern:
                rows = _touched(h, r, stride_h, pad_h, out_h, np.array([offset_r]))
                cols = _touched(w, s, stride_w, pad_w, out_w, np.array([offset_c]))
                grid |= rows[:, None] & cols[None, :]
            per_pattern[pattern] = int(grid.sum())
        total += per_pattern[pattern]
    return total * batch


def calc_read_words(mapping: SystolicMapping, operand: str, footprint_words: int, capacity_words: int) -> int:
    """DRAM words of a read operand with unconstrained bandwidth (SCALE-Sim CALC mode).

    The footprint once if it fits in the active half of the buffer (SCALE-Sim's count, exact
    then); otherwise once per sweep over it: a streamed operand entering along the array rows
    is re-read for every column fold (an approximation of SCALE-Sim's set-wise refetches).
    """
    if footprint_words < calc_active_words(capacity_words):
        return footprint_words
    r = ROLES[mapping.dataflow.name][operand]
    sweeps = mapping.col_folds if r.kind == "stream" and r.width_is_rows else 1
    return footprint_words * sweeps


def calc_active_words(capacity_words: int) -> int:
    """Words SCALE-Sim's CALC read buffer holds before it starts evicting (its active sets)."""
    return int(ACTIVE_FRACTION * SETS) * (capacity_words // SETS)


def calc_first_fill_cycle(footprint_words: int, capacity_words: int, first_request_line: int) -> int:
    """First DRAM cycle of a CALC read buffer (SCALE-Sim ``read_buffer_estimate_bw``).

    An operand that fits its active sets is filled whole, in sets of ``capacity // SETS``
    words, just before cycle 0. Otherwise the first fill covers the prefetch sets and ends
    just before the operand's first request.
    """
    set_words = capacity_words // SETS
    if footprint_words < calc_active_words(capacity_words):
        words = math.ceil(footprint_words / set_words) * set_words
        return -math.ceil(words / SCALESIM_CALC_FILL_WORDS_PER_CYCLE)
    prefetch_sets = SETS - int(ACTIVE_FRACTION * SETS)
    return first_request_line - math.ceil(prefetch_sets * set_words / SCALESIM_CALC_FILL_WORDS_PER_CYCLE)
