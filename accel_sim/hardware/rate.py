"""Rate semantics of a bandwidth-limited :class:`~accel_sim.hardware.link.Link`: how many whole
cycles an amount holds the link's port. A rate is the link's one parameter of timing.

- :class:`WordsPerCycle`: whole words per cycle; an amount is words and takes
  ``ceil(words / words_per_cycle)`` bus lines (SCALE-Sim's DRAM streams, one line per cycle);
- :class:`BytesPerCycle`: any positive bytes per cycle, fractional allowed (50 GB/s at 1 GHz is
  12.5, an A100's HBM2 1102.8 per 1410 MHz clock); an amount is bits, need not be whole bytes (a
  compressed block) and takes ``ceil(bits / 8 / bytes_per_cycle)`` cycles. A burst list (several
  bursts back to back on the same pins) is one amount, so its fractions of a cycle add up before
  the ceiling, not burst by burst;
- :class:`LockstepBanks`: a batch of lock-step steps into banks, ``(steps, banks)`` items; a step
  takes its busiest bank's ``ceil(items / words_per_cycle)`` cycles (the scatter crossbar).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

BITS_PER_BYTE = 8


@dataclass(frozen=True)
class WordsPerCycle:
    words: int

    def __post_init__(self):
        if self.words < 1:
            raise ValueError(f"a link moves at least one word per cycle, got {self.words}")

    def cycles(self, words: int) -> int:
        return math.ceil(words / self.words)


@dataclass(frozen=True)
class BytesPerCycle:
    bytes: float

    def __post_init__(self):
        if not self.bytes > 0:
            raise ValueError(f"a link moves a positive number of bytes per cycle, got {self.bytes}")

    def cycles(self, bits: int) -> int:
        return math.ceil(bits / BITS_PER_BYTE / self.bytes)


@dataclass(frozen=True)
class LockstepBanks:
    banks: int
    words_per_cycle: int = 1

    def __post_init__(self):
        if self.banks < 1 or self.words_per_cycle < 1:
            raise ValueError(f"banks and words per cycle must be >= 1, got {self.banks} and {self.words_per_cycle}")

    def step_cycles(self, bank_load: np.ndarray) -> np.ndarray:
        """Cycles of each step: ``bank_load`` (steps, banks) items per bank."""
        return -(-bank_load.max(axis=1, initial=0) // self.words_per_cycle)

    def cycles(self, bank_load: np.ndarray) -> int:
        return int(self.step_cycles(bank_load).sum())
