"""Tiling: which kernels (tile shapes) can run the problem, and each kernel's CTAs in launch order.

A kernel is eligible when its ``stages`` pipeline stages of A (kept values with metadata) and B
fit shared memory and a stage's K is whole MMAs of the mode (CUTLASS requires both). Its CTAs,
one per C tile of ``tile.m x tile.n`` (edge tiles smaller) and K slice (split-K, :mod:`.split`), are
numbered tile-row fastest, then tile column, then group (``groups`` grids one after the other), then
slice (CUDA's grid z, as CUTLASS launches split-K); a CTA reads one A row panel (slice, group, tile
row) and one B column panel (slice, group, tile column) over its slice of K. Groups that share one A
(``a_shared`` consecutive groups: the query heads of one KV head) read the same A row panels.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.foundations.errors import InputError
from accel_sim.models.tensor_core.plan.mma import k_span_per_mma
from accel_sim.models.tensor_core.plan.problem import BITS_PER_BYTE, TCProblem, element_bits
from accel_sim.models.tensor_core.spec import KernelTile, TensorCoreSpec


def stage_fill_bits(spec: TensorCoreSpec, problem: TCProblem, tile: KernelTile) -> int:
    """Shared memory one full pipeline stage occupies (A slots with metadata, B elements)."""
    bits = element_bits(spec, problem)
    return tile.m * bits.a_stream(problem.slots(tile.k)) + tile.n * bits.b_stream(tile.k)


def fits_shared_memory(spec: TensorCoreSpec, problem: TCProblem, tile: KernelTile) -> bool:
    return tile.stages * stage_fill_bits(spec, problem, tile) <= spec.shared_memory_size * BITS_PER_BYTE


def eligible_kernels(spec: TensorCoreSpec, problem: TCProblem) -> tuple[KernelTile, ...]:
    """The config's kernels that can run the problem, in config order; an InputError if none can.
    Sparse problems choose from ``sparse_kernels`` when the config lists any."""
    span = k_span_per_mma(spec, problem)
    library = spec.sparse_kernels if problem.sparse and spec.sparse_kernels else spec.kernels
    block = problem.scaling.block if problem.scaling is not None else 1     # a stage holds whole scale blocks
    kernels = tuple(t for t in library if t.k % span == 0 and t.k % block == 0 and fits_shared_memory(spec, problem, t))
    if not kernels:
        mode = "sparse" if problem.sparse else ("block-scaled" if problem.scaling is not None else "dense")
        field = "sparse_kernels" if library is not spec.kernels else "kernels"
        raise InputError.single("tensor_core", field, f"no kernel fits shared memory "
                                f"({spec.shared_memory_size} B) with whole {mode} MMAs per stage")
    return kernels


@dataclass(frozen=True, eq=False)
class CtaGrid:
    """Per-CTA C tile extents and operand panels, in launch order."""

    rows: np.ndarray          # C rows of the tile (tile.m, fewer at the bottom edge)
    cols: np.ndarray          # C columns of the tile (tile.n, fewer at the right edge)
    row_panel: np.ndarray     # A panel id (slice, group, tile row)
    col_panel: np.ndarray     # B panel id (slice, group, tile column)
    slice: np.ndarray         # the K slice (0 .. split - 1)
    split: int = 1            # K slices of every C tile


def slice_k(problem: TCProblem, split: int) -> int:
    """The K one slice covers (the whole of K without a split)."""
    return problem.k // split


def cta_grid(problem: TCProblem, tile: KernelTile, split: int = 1) -> CtaGrid:
    gm, gn = -(-problem.m // tile.m), -(-problem.n // tile.n)
    idx = np.arange(split * problem.groups * gm * gn, dtype=np.int64)
    i, j = idx % gm, (idx // gm) % gn
    g, z = (idx // (gm * gn)) % problem.groups, idx // (gm * gn * problem.groups)
    rows = np.minimum(tile.m, problem.m - i * tile.m)
    cols = np.minimum(tile.n, problem.n - j * tile.n)
    plane = z * problem.groups + g
    a_plane = z * (problem.groups // problem.a_shared) + g // problem.a_shared
    return CtaGrid(rows, cols, a_plane * gm + i, plane * gn + j, z, split)
