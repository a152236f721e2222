"""A plain-text progress line: items done / total, rate, ETA (no dependency).

Used by sweeps (points), ``accel-sim run`` (layers) and ``reproduce all`` (studies).

On a terminal the line is redrawn in place (carriage return); otherwise (a log file, CI)
a new line is written at most every :data:`LOG_INTERVAL_S` seconds and at the end.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

LOG_INTERVAL_S = 5.0
TTY_INTERVAL_S = 0.2


def format_clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


class Progress:
    """Counts finished points of one run and reports them on ``stream`` (``None``: silent)."""

    def __init__(self, name: str, total: int, already_done: int, stream: TextIO | None,
                 clock: Callable[[], float] = time.monotonic, unit: str = "points",
                 start_after_s: float = 0.0, extra: Callable[[int], str] | None = None):
        self.name = name
        self.unit = unit
        self.start_after_s = start_after_s  # no line before the run has lasted this long
        self.extra = extra  # more of the line, from the items computed so far (e.g. the store's size)
        self.total = total
        self.already_done = already_done
        self.computed = 0
        self._stream = stream
        self._clock = clock
        self._start = clock()
        self._last_shown = -float("inf")
        self._tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())

    def line(self) -> str:
        done = self.already_done + self.computed
        elapsed = self._clock() - self._start
        rate = self.computed / elapsed if elapsed > 0 else 0.0
        remaining = self.total - done
        eta = format_clock(remaining / rate) if rate > 0 else ("0:00:00" if remaining <= 0 else "?")
        percent = 100 * done / self.total if self.total else 100.0
        stored = f", {self.already_done} already stored" if self.already_done else ""
        more = self.extra(self.computed) if self.extra is not None else ""
        return (f"{self.name}: {done}/{self.total} {self.unit} ({percent:.0f}%), {rate:.2f} {self.unit}/s, "
                f"elapsed {format_clock(elapsed)}, ETA {eta}{stored}{more}")

    def advance(self, points: int = 1) -> None:
        self.computed += points
        now = self._clock()
        if now - self._start < self.start_after_s:
            return
        if now - self._last_shown >= (TTY_INTERVAL_S if self._tty else LOG_INTERVAL_S):
            self._show(now)

    @property
    def shown(self) -> bool:
        """Whether a line has been written yet."""
        return self._last_shown != -float("inf")

    def finish(self, only_if_shown: bool = False) -> None:
        """The last line (``only_if_shown``: only if the run was long enough to show one before)."""
        if not only_if_shown or self.shown:
            self._show(self._clock(), final=True)

    def _show(self, now: float, final: bool = False) -> None:
        if self._stream is None:
            return
        self._last_shown = now
        if self._tty:
            self._stream.write("\r" + self.line() + "\x1b[K" + ("\n" if final else ""))
        else:
            self._stream.write(self.line() + "\n")
        self._stream.flush()
