"""What one kernel (one tile shape, dense or 2:4) costs on the GPU: the result both paths return.

The per-cycle behaviour (shared by :mod:`~accel_sim.tensor_core.timing` and
:mod:`~accel_sim.tensor_core.reference`):

- CTAs (one per C tile of ``tile.m x tile.n``, ``groups`` grids one after the other) are
  numbered tile-row fastest and run in waves of ``sms`` CTAs, one CTA per SM; a wave
  ends when its slowest CTA ends, then the next starts.
- A CTA walks K in stages of ``tile.k`` (the last one may be shorter). Each stage passes
  three pipelined paths: **load** (L2 -> shared memory, cp.async), **shared memory**
  (the fill written plus the warps' ldmatrix reads) and **math** (the tensor cores; the
  register-file operand reads overlap with them). A path takes whole cycles per stage:
  ``ceil(bits / (8 x bytes per cycle))``; a stage enters a path when the path is free and
  the previous path is done with it; loaded data arrives ``memory_latency`` cycles after
  its transfer.
- The load path of a wave is shared: its stage time is the largest of the wave's L2
  bits over the L2 bandwidth, its DRAM bits over the DRAM bandwidth, and the fullest
  CTA's bits over its SM port. DRAM bits: each distinct A row panel and B column panel
  a wave touches; if the whole problem (A with metadata, and B) fits in L2, each panel
  only in the first wave that touches it.
- Math: warps go round robin to the SM's tensor cores; every warp computes its full
  warp tile (padding included) with MMAs of ``mma_m x mma_n`` covering ``mma_k`` of K
  dense, ``mma_k x M/N`` sparse, in the same cycles. Register-file bits per MMA: A
  fragment, metadata, B fragment, C accumulators.
- After the last stage the CTA writes its C tile (epilogue) through L2.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from accel_sim.tensor_core.problem import TCProblem
from accel_sim.tensor_core.spec import KernelTile

PATHS = ("math", "register_file", "shared_memory", "l2", "dram")
LATENCY_BOUND = "latency"  # pipeline fill, memory latency and epilogue take most of the time


@dataclass(frozen=True)
class KernelRun:
    """Cycles and traffic of one kernel on one problem.

    ``busy`` is the cycles each path is occupied, summed over stages and waves (each a lower
    bound of ``cycles``); ``totals`` counts elements moved over the whole kernel:
    ``dram_a`` / ``fill_a`` / ``read_a`` are A slots (value + metadata) read from DRAM, written
    into shared memory, read by warps; ``dram_b`` / ``fill_b`` / ``read_b`` the same in B
    elements; ``mmas`` MMA instructions; ``c`` output elements written.
    """

    problem: TCProblem
    tile: KernelTile
    cycles: int
    compute_cycles: int
    busy: Mapping[str, int]
    totals: Mapping[str, int]
    waves: int
    ctas: int
    l2_resident: bool

    @property
    def bound(self) -> str:
        """The path that takes the longest; ``latency`` when fill, latency and epilogue exceed it."""
        path = max(PATHS, key=lambda p: self.busy[p])
        return LATENCY_BOUND if self.cycles - self.busy[path] > self.busy[path] else path
