"""USER-mode misses of a streamed operand whose addresses repeat (a convolution's ifmap), sweep
by sweep, in a few searches per miss (fast path).

Each request of a :class:`~accel_sim.models.systolic.fast.demand.FoldRequests` is a cell of the stacked
fetch matrix, and a fold demands its block's cells in the order the fetch sequence holds them:
within a fold, the fetch position of the requests rises, and so does their *own set* (the set
holding the word at that position). A request whose own set lies in the window hits, so from any
request the scan jumps, by a search over the fold's closed-form fetch positions, to the first one
whose own set has left the window. Only there can a miss happen:

- an idle request always hits: the scan goes on at the next busy one;
- otherwise the sets of every copy of its address come from their closed form
  (:class:`~accel_sim.models.systolic.fast.ifmap_copies.IfmapCopies`: kernel offsets, stride, padding,
  N:M kept columns). None in the window: a miss, and the window slides until the copy nearest
  past its end comes in (sets come in in ring order, ``prefetch_sets <= active_sets``);
- one in the window: the window tracks other copies of the addresses (a later sweep starting near
  the end of the fetch sequence, where the last kernel positions' blocks repeat the first blocks'
  inputs), and the requests after it are checked in vectorised chunks against the window's
  stamps, as :func:`~accel_sim.models.systolic.fast.read_buffers.scan_misses` does, until the first miss.

The window's sets are located by where each begins in the fetch sequence (:func:`set_bounds`), so
no layer-sized index or copy of the valid words is built.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right

import numpy as np

from accel_sim.foundations.errors import SimulationError
from accel_sim.hardware.scalesim_scratchpad import NO_ADDRESS, ReadBufferGeometry
from accel_sim.models.systolic.fast.demand import FoldRequests
from accel_sim.models.systolic.fast.read_buffers import FIRST_CHUNK, LARGEST_CHUNK, MissLog, ReadMisses, Window, repeated_sweeps
from accel_sim.models.systolic.fast.fold_sets import stacked_position
from accel_sim.models.systolic.fast.ifmap_copies import IfmapCopies
from accel_sim.models.systolic.plan.operands import diagonal_order

BOUNDS_CHUNK = 1 << 18   # fetch words counted at once when finding where the sets begin
IDLE_LOOKAHEAD = 64      # requests looked at for the next busy one after an idle request outside its own set
CHECK_PIECE = 1 << 14    # requests checked against the stamps at once (the temporaries stay small enough to reuse)


def _pieces(parts: list[tuple[int, int]]):
    """The non-empty ranges of ``parts``, cut to at most ``CHECK_PIECE`` requests each."""
    for first, stop in parts:
        for lo in range(first, stop, CHECK_PIECE):
            yield lo, min(stop, lo + CHECK_PIECE)


class _OwnSets:
    """Fetch position of each request of one sweep, in closed form, and where the sets begin.

    Cell ``(t, q)`` of block ``b`` is cell ``(b T + t, q)`` of the stacked ``N x W`` matrix, on
    its diagonal ``d = b T + t + q``. A block whose diagonals all hold ``W`` cells
    (``W - 1 <= b T`` and ``b T + T + W - 2 <= N - 1``) has its cells at positions
    ``b T W + (t + q) W + q - W (W - 1) / 2``: one table, shifted per block. The blocks at the
    ends (cut diagonals) get their own table from the closed form of
    :meth:`~accel_sim.models.systolic.fast.fold_sets.StackedFetch.rank`.
    """

    def __init__(self, demand: FoldRequests, bounds: np.ndarray):
        cells = demand.cells
        self.blocks = cells.blocks.tolist()
        self.t, self.q = diagonal_order(cells.block_rows, cells.width)
        self.cells = self.t.size
        self.block_rows, self.width, self.rows = cells.block_rows, cells.width, cells.stacked_rows
        w = self.width
        self.interior = (self.t + self.q) * w + self.q - w * (w - 1) // 2
        self.interior_list = self.interior.tolist()   # the same, for one cell at a time (no numpy call)
        self.tables: dict[int, tuple[np.ndarray, list[int]]] = {}
        self.ends = bounds[1:-1].tolist()   # a fetch position's set: how many of the sets 1 .. n - 1 begin at or before it

    def _tables(self, block: int) -> tuple[np.ndarray, list[int], int]:
        """(positions table, the same as a list, shift) of a block's cells."""
        t_rows, w = self.block_rows, self.width
        first = block * t_rows
        if w - 1 <= first and first + t_rows + w - 2 <= self.rows - 1:
            return self.interior, self.interior_list, first * w
        tables = self.tables.get(block)
        if tables is None:
            d = first + self.t + self.q
            table = stacked_position(d, self.q, self.rows, w)
            tables = self.tables[block] = (table, table.tolist())
        return (*tables, 0)

    def fold_tables(self, fold: int) -> tuple[np.ndarray, list[int], int]:
        return self._tables(self.blocks[fold])

    def first_miss(self, window: Window, fetch: np.ndarray, lo: int, hi: int) -> int:
        """First of requests ``lo .. hi - 1`` of the sweep the window does not hold (``hi``: none).
        An interior block's full diagonals are a contiguous run of the fetch sequence (its table
        is the cell index there, shifted): checked on a slice of it, no position table or gather."""
        w = self.width
        triangle = w * (w - 1) // 2
        full_end = triangle + max(0, self.block_rows - w + 1) * w
        while lo < hi:
            fold, cell = divmod(lo, self.cells)
            end = min(self.cells, cell + hi - lo)
            table, _, shift = self._tables(self.blocks[fold])
            if table is self.interior and cell < full_end and end > triangle:
                parts = [(cell, min(end, triangle)), (max(cell, triangle), min(end, full_end)), (max(cell, full_end), end)]
            else:
                parts = [(cell, end)]
            for first, stop in _pieces(parts):
                if table is self.interior and triangle <= first and stop <= full_end:
                    hit = window.hits(fetch[first + shift:stop + shift])
                else:
                    hit = window.hits(fetch[table[first:stop] + shift])
                if not hit.all():
                    return fold * self.cells + first + int(np.argmin(hit))
            lo += end - cell
        return hi

    def positions(self, lo: int, hi: int) -> np.ndarray:
        """Places in the fetch sequence of requests ``lo .. hi - 1`` of the sweep."""
        parts = []
        while lo < hi:
            fold, cell = divmod(lo, self.cells)
            end = min(self.cells, cell + hi - lo)
            table, _, shift = self._tables(self.blocks[fold])
            parts.append(table[cell:end] + shift)
            lo += end - cell
        return np.concatenate(parts) if len(parts) != 1 else parts[0]


def _nearest_copy(copies: IfmapCopies, ends: list[int], address: int, start: int, sets: int) -> int:
    """How far past the window's start (in sets, wrapping) the nearest set holding ``address`` lies."""
    return min((bisect_right(ends, p) - start) % sets for p in copies.positions(address))


def slides_to_reach(ahead: int, sets: int, active: int, step: int) -> int:
    """Slides of ``step`` sets after which a window of ``active`` sets (of ``sets``, wrapping) first
    holds the set ``ahead`` sets past its start, which it does not hold now (at least one slide)."""
    if step > 0:
        slides = max(1, (ahead - active) // step + 1)
        if slides * step <= ahead and ahead - slides * step < active:  # reached before the start wraps past it
            return slides
    for slides in range(1, sets + 2):
        if (ahead - slides * step) % sets < active:
            return slides
    raise SimulationError("read scratchpad window never reaches a demanded address")


def _reach(window: Window, nearest: int) -> int:
    """Slide the window until it holds the set ``nearest`` sets past its start (no nearer set holds
    the address); returns the slides. A slide brings in the ``prefetch_sets <= active_sets`` sets
    after the window's end, so sets come in in ring order from there: the nearest one first."""
    slides = slides_to_reach(nearest, window.sets, window.active, window.step)
    window.move_to((window.start + slides * window.step) % window.sets)
    return slides


def _scan_sweep(window: Window, own: _OwnSets, copies: IfmapCopies, fetch: np.ndarray,
                lines) -> tuple[np.ndarray, np.ndarray]:
    """(miss lines, bursts per miss line) of one sweep from the window's current start (a
    request's address: the fetch sequence's word at its cell)."""
    cells, ends = own.cells, own.ends
    total = len(own.blocks) * cells
    n, active = window.sets, window.active
    misses = MissLog()
    position, chunk = 0, FIRST_CHUNK
    while position < total:
        fold, cell = divmod(position, cells)
        _, table, shift = own.fold_tables(fold)
        start = window.start
        own_set = bisect_right(ends, table[cell] + shift)
        if (own_set - start) % n < active:  # resident: on to the first cell whose own set is past the window
            if start + active <= n:
                bound = start + active
            else:  # the window wraps: own sets only rise, so from its first part they leave it at its end
                bound = start + active - n if own_set < start else n
            end = cells if bound >= n else bisect_left(table, ends[bound - 1] - shift, cell)
            position = fold * cells + end
            continue
        address = int(fetch[table[cell] + shift])
        if address == NO_ADDRESS:  # an idle request (always served): go on at the next busy one
            stop = min(total, position + IDLE_LOOKAHEAD)
            busy = fetch[own.positions(position, stop)] != NO_ADDRESS
            position = position + int(np.argmax(busy)) if busy.any() else stop
            continue
        nearest = None
        if window.stamped:
            resident = window.holds(address)
        else:
            nearest = _nearest_copy(copies, ends, address, start, n)
            resident = nearest < active
        if resident:  # another copy is resident: check a chunk
            stop = min(total, position + chunk)
            missed = own.first_miss(window, fetch, position, stop)
            if missed == stop:
                position, chunk = stop, min(2 * chunk, LARGEST_CHUNK)
                continue
            position = missed
            fold, cell = divmod(position, cells)
            _, table, shift = own.fold_tables(fold)
            address, nearest = int(fetch[table[cell] + shift]), None
        if nearest is None:
            nearest = _nearest_copy(copies, ends, address, start, n)
        misses.add(lines[position], _reach(window, nearest))
        position, chunk = position + 1, FIRST_CHUNK
    return misses.arrays()


def set_bounds(geometry: ReadBufferGeometry, fetch: np.ndarray) -> np.ndarray:
    """Where each set begins in the fetch sequence, and its end: set ``j >= 1`` begins after the
    last valid word of set ``j - 1`` (the idle words between two sets go with the later one)."""
    n, words = geometry.sets, geometry.set_words
    ends = np.arange(1, n, dtype=np.int64) * words   # set j >= 1 begins after the (j words)-th valid word
    found = []
    before = 0                                         # valid words before the chunk
    for lo in range(0, fetch.size, BOUNDS_CHUNK):      # a chunk at a time: no layer-sized index array
        valid = np.flatnonzero(fetch[lo:lo + BOUNDS_CHUNK] != NO_ADDRESS)
        wanted = ends[(ends > before) & (ends <= before + valid.size)]
        found.append(lo + valid[wanted - before - 1] + 1)
        before += valid.size
    return np.concatenate([[0], *found, [fetch.size]]).astype(np.int64)


def stacked_misses(geometry: ReadBufferGeometry, fetch: np.ndarray, demand: FoldRequests, copies: IfmapCopies,
                   repeats: int = 1, repeat_lines: int = 0) -> ReadMisses:
    """:func:`~accel_sim.models.systolic.fast.read_buffers.read_misses` of a
    :class:`~accel_sim.models.systolic.fast.demand.FoldRequests` sweep (every request's address is the
    fetch sequence's word at its cell, so each is present)."""
    bounds = set_bounds(geometry, fetch)
    window = Window(geometry, fetch, copies.words, bounds)
    own = _OwnSets(demand, bounds)

    def scan_from(start: int) -> tuple[np.ndarray, np.ndarray, int]:
        window.move_to(start)
        return (*_scan_sweep(window, own, copies, fetch, demand.lines), window.start)

    return repeated_sweeps(scan_from, repeats, repeat_lines)
