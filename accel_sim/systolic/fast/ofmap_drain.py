"""The output side of the array, fast path: words written per demand cycle (closed form) and
SCALE-Sim's double-buffered write scratchpad (:class:`~accel_sim.hardware.WriteScratchpad`)
driven by them, jumping from drain to drain instead of walking word by word.
"""
from __future__ import annotations

from collections import deque

import numpy as np

from accel_sim.hardware.scalesim_scratchpad import WriteBufferGeometry
from accel_sim.systolic.plan.mapping import SystolicMapping
from accel_sim.systolic.plan.operands import demand_base, role


def ofmap_writes_per_line(mapping: SystolicMapping) -> np.ndarray:
    """Output words the array writes in each demand cycle of one group (closed form per fold).

    A fold writes a ``rows x used_width`` rectangle skewed onto lines ``base + t + q`` (rows
    ``t0 <= t < t1``); the number of its cells on diagonal ``d = line - base`` is
    ``min(t1 - 1, d) - max(t0, d - used_width + 1) + 1``. Folds differ only in how much of
    the array they use, so each distinct (used rows, used columns) pair is computed once.
    """
    r = role(mapping, "ofmap")
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
        self.drain_ends: list[int] = []

    @property
    def written_words(self) -> int:
        """Words the array writes over the group."""
        return int(self.cum[-1])

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
