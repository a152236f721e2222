"""What a tensor-core kernel counts: its time, each path's busy time, and the elements it moves.

Busy cycles are per path (the tensor cores' math, the register-file operand reads, shared memory,
the L2 read path with the SM ports, DRAM): per stage the wave's slowest, summed over stages and
waves; each is a lower bound of ``cycles`` and the largest names what limits the kernel
(:attr:`TensorCoreCounters.bound`). Element counts are over the whole kernel: A in slots (a kept
value with its metadata; every value when dense), B and C in elements.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.contract import Counters

PATHS = ("math", "register_file", "shared_memory", "l2", "dram")
LATENCY_BOUND = "latency"  # pipeline fill, memory latency and epilogue take most of the time


@dataclass(frozen=True)
class TensorCoreCounters(Counters):
    kernel: int                     # index into the plan's kernels of the one that ran (the fastest)
    cycles: int                     # every wave: pipeline fill, stages, epilogue
    compute_cycles: int             # tensor-core stage time (math or register file, the longer), summed
    math_busy_cycles: int           # the busiest tensor core's MMA cycles, summed over stages and waves
    register_file_busy_cycles: int  # the busiest sub-partition's operand reads, summed
    shared_memory_busy_cycles: int  # the slowest SM's fills + ldmatrix reads per stage, summed
    l2_busy_cycles: int             # per stage the L2 read path or the fullest SM port, summed
    dram_busy_cycles: int           # per stage the wave's DRAM reads, summed
    waves: int                      # waves of CTAs (one CTA per SM at a time)
    ctas: int                       # CTAs launched
    dram_a: int                     # A slots read from DRAM
    dram_b: int                     # B elements read from DRAM
    fill_a: int                     # A slots read from L2 into shared memory (cp.async)
    fill_b: int                     # B elements read from L2 into shared memory
    read_a: int                     # A slots read from shared memory by warps (ldmatrix)
    read_b: int                     # B elements read from shared memory by warps
    mmas: int                       # MMA instructions issued (padding included)
    c: int                          # output elements written (epilogue, through L2 to DRAM)
    partial: int = 0                # split-K: FP32 partial-tile elements moved through L2 (reads + writes)
    split: int = 1                  # split-K slices of the kernel that ran

    def busy(self, path: str) -> int:
        """Busy cycles of one of :data:`PATHS`."""
        return getattr(self, f"{path}_busy_cycles")

    @property
    def bound(self) -> str:
        """The path that takes the longest; ``latency`` when fill, latency and epilogue exceed it."""
        path = max(PATHS, key=self.busy)
        return LATENCY_BOUND if self.cycles - self.busy(path) > self.busy(path) else path
