"""The output side of the array, fast path: words written per demand cycle (closed form) and
SCALE-Sim's double-buffered write scratchpad (:class:`~accel_sim.hardware.WriteScratchpad`)
driven by them, jumping from drain to drain instead of walking word by word.
"""
from __future__ import annotations

from collections import deque

import numpy as np

from accel_sim.hardware.scalesim_scratchpad import WriteBufferGeometry
from accel_sim.models.systolic.plan.mapping import SystolicMapping
from accel_sim.models.systolic.plan.operands import demand_base, role


def _fold_shape_counts(mapping: SystolicMapping, used_rows: int, used_cols: int) -> np.ndarray:
    """Output words one fold using ``used_rows x used_cols`` PEs writes in each of its demand cycles.

    A fold writes a ``rows x used_width`` rectangle skewed onto lines ``base + t + q`` (rows
    ``t0 <= t < t1``); the number of its cells on diagonal ``d = line - base`` is
    ``min(t1 - 1, d) - max(t0, d - used_width + 1) + 1``.
    """
    r = role(mapping, "ofmap")
    d = np.arange(mapping.fold_lines) - demand_base(mapping, r)
    width = used_cols if not r.width_is_rows else used_rows
    if r.kind == "drain":  # output stationary: the used rows come out last-row-first
        t0, t1 = mapping.rows - used_rows, mapping.rows
    else:
        t0, t1 = 0, mapping.t
    return np.maximum(np.minimum(t1 - 1, d) - np.maximum(t0, d - width + 1) + 1, 0)


def ofmap_writes_per_line(mapping: SystolicMapping) -> np.ndarray:
    """Output words the array writes in each demand cycle of one group (closed form per fold;
    a whole group's array, for tests and small layers: :class:`FoldedWrites` never builds it)."""
    return np.concatenate([_fold_shape_counts(mapping, mapping.used_rows(fold_row), mapping.used_cols(fold_col))
                           for fold_col in range(mapping.col_folds) for fold_row in range(mapping.row_folds)])


class LineWrites:
    """Cumulative output words over demand lines, from an explicit per-line count array."""

    def __init__(self, counts: np.ndarray):
        self.cum = np.cumsum(counts, dtype=np.int64)
        self.lines = int(self.cum.size)
        self.total = int(self.cum[-1])

    def through(self, line: int) -> int:
        """Words written in lines ``0 .. line`` (0 for a negative line)."""
        return int(self.cum[line]) if line >= 0 else 0

    def line_of(self, word: int) -> int:
        """The line writing word ``word`` (1-based; past the last word: the number of lines)."""
        return int(np.searchsorted(self.cum, word, side="left"))


class FoldedWrites:
    """:class:`LineWrites` of one group in closed form, without a per-line array of the group.

    Folds run column fold by column fold, row folds inside; a fold's counts depend only on
    whether it is the last row fold and the last column fold (how much of the array it uses),
    so four per-fold cumulative arrays (``fold_lines`` long) and their totals give every count.
    """

    def __init__(self, mapping: SystolicMapping):
        self.fold_lines = mapping.fold_lines
        self.row_folds, self.col_folds = mapping.row_folds, mapping.col_folds
        self.lines = mapping.demand_lines
        self._cum = {}
        for last_row in (False, True):
            for last_col in (False, True):
                rows = mapping.used_rows(mapping.row_folds - 1) if last_row else mapping.rows
                cols = mapping.used_cols(mapping.col_folds - 1) if last_col else mapping.cols
                self._cum[last_row, last_col] = np.cumsum(_fold_shape_counts(mapping, rows, cols), dtype=np.int64)
        self._column = {last_col: self._before_row(self.row_folds - 1, last_col) + self._fold_total(True, last_col)
                        for last_col in (False, True)}
        self.total = (self.col_folds - 1) * self._column[False] + self._column[True]

    def _fold_total(self, last_row: bool, last_col: bool) -> int:
        return int(self._cum[last_row, last_col][-1])

    def _before_row(self, fold_row: int, last_col: bool) -> int:
        return fold_row * self._fold_total(False, last_col)

    def _before_fold(self, fold_col: int, fold_row: int) -> int:
        return fold_col * self._column[False] + self._before_row(fold_row, fold_col == self.col_folds - 1)

    def through(self, line: int) -> int:
        if line < 0:
            return 0
        fold, local = divmod(line, self.fold_lines)
        fold_col, fold_row = divmod(fold, self.row_folds)
        cum = self._cum[fold_row == self.row_folds - 1, fold_col == self.col_folds - 1]
        return self._before_fold(fold_col, fold_row) + int(cum[local])

    def line_of(self, word: int) -> int:
        if word <= 0:
            return 0
        if word > self.total:
            return self.lines
        fold_col = min((word - 1) // self._column[False], self.col_folds - 1)
        last_col = fold_col == self.col_folds - 1
        rest = word - fold_col * self._column[False]
        fold_row = min((rest - 1) // self._fold_total(False, last_col), self.row_folds - 1)
        rest -= self._before_row(fold_row, last_col)
        local = int(np.searchsorted(self._cum[fold_row == self.row_folds - 1, last_col], rest, side="left"))
        return (fold_col * self.row_folds + fold_row) * self.fold_lines + local


class DrainTimeline:
    """SCALE-Sim's write buffer driven by per-line output counts, jumping between events.

    Word ``w`` (1-based over the group) is written in the line ``l`` with
    ``cum[l-1] < w <= cum[l]``, in cycle ``l + S``. An event happens at the first word that
    either overflows the buffer while a drain runs (a stall) or exceeds the drain half when
    no drain runs (a drain starts). :meth:`advance` finds them with ``searchsorted``.
    """

    def __init__(self, geometry: WriteBufferGeometry, writes: LineWrites | FoldedWrites, write_latency: int):
        self.g = geometry
        self.writes = writes
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
        return self.writes.total

    def _first_word(self, line: int) -> int:
        """First word written in line ``line`` or later (past the end: one past the last word)."""
        if line <= 0:
            return 1
        return self.writes.through(min(line, self.writes.lines) - 1) + 1

    def _line_of(self, word: int) -> int:
        return self.writes.line_of(word)

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
        limit = self.writes.through(line_limit - 1)
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
        first = max(self.stored, self.writes.through(line - 1)) + 1
        last = self.writes.through(line)
        for word in range(first, last + 1):
            free = g.capacity_words - (word - self.freed)
            if current < self.drain_end:
                if free <= 0:
                    current = self.drain_end
            elif free < g.active_words:
                self._close_lines(word)
                self._drain(current)
        self.stored = last
        return current - cycle

    def flush(self, cycle: int) -> None:
        """Drain what is left after the last line (SCALE-Sim ``empty_all_buffers``)."""
        self._close_lines(self.stored)
        while self.runs:
            self._drain(cycle)
            cycle = self.drain_end + 1
