"""What the reference counts while it runs: elements moved, CTAs, waves, and each path's stage times.

A path's busy time is, per wave and stage, the longest time any SM (or the memory system) spent
on that stage on that path, summed: the wave's SMs run a stage in lockstep, so the slowest one
sets it.
"""
from __future__ import annotations

from collections import defaultdict

from accel_sim.models.tensor_core.counters import PATHS, TensorCoreCounters

ELEMENTS = ("dram_a", "dram_b", "fill_a", "fill_b", "read_a", "read_b", "mmas", "c", "partial")


class Tally:
    def __init__(self) -> None:
        self.elements = dict.fromkeys(ELEMENTS, 0)
        self.ctas = 0
        self.waves = 0
        self._steps: dict[tuple[str, int, int], int] = defaultdict(int)   # (path, wave, stage) -> cycles

    def count(self, name: str, amount: int) -> None:
        self.elements[name] += amount

    def step(self, path: str, wave: int, stage: int, cycles: int) -> None:
        """One SM's (or the memory system's) time on ``path`` for one stage of one wave."""
        key = (path, wave, stage)
        self._steps[key] = max(self._steps[key], cycles)

    def busy(self, path: str) -> int:
        return sum(cycles for (p, _, _), cycles in self._steps.items() if p == path)

    def counters(self, kernel: int, cycles: int, split: int) -> TensorCoreCounters:
        busy = {f"{path}_busy_cycles": self.busy(path) for path in PATHS}
        return TensorCoreCounters(kernel=kernel, cycles=cycles, compute_cycles=self.busy("compute"), **busy,
                                  waves=self.waves, ctas=self.ctas, **self.elements, split=split)
