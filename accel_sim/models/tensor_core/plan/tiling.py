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
from functools import cached_property

import numpy as np

from accel_sim.foundations.errors import InputError
from accel_sim.models.tensor_core.plan.mma import k_span_per_mma
from accel_sim.models.tensor_core.plan.problem import BITS_PER_BYTE, TCProblem, element_bits
from accel_sim.models.tensor_core.spec import KernelTile, TensorCoreSpec


INT4_BITS = 4   # weights stored at 4 bits (W4A16): the layers ``int4_kernels`` runs


def stage_fill_bits(spec: TensorCoreSpec, problem: TCProblem, tile: KernelTile) -> int:
    """Shared memory one full pipeline stage occupies (A slots with metadata, B elements)."""
    bits = element_bits(spec, problem)
    return tile.m * bits.a_stream(problem.slots(tile.k)) + tile.n * bits.b_stream(tile.k)


def fits_shared_memory(spec: TensorCoreSpec, problem: TCProblem, tile: KernelTile) -> bool:
    return tile.stages * stage_fill_bits(spec, problem, tile) <= spec.shared_memory_size * BITS_PER_BYTE


def kernel_library(spec: TensorCoreSpec, problem: TCProblem) -> str:
    """The config field listing the kernels the problem chooses from: ``sparse_kernels`` for a sparse problem,
    ``int4_kernels`` for a dense one with 4-bit weight-only weights (no block scaling), when the config lists any;
    else ``kernels``."""
    if problem.sparse and spec.sparse_kernels:
        return "sparse_kernels"
    int4 = problem.a_bits == INT4_BITS and not problem.sparse and problem.scaling is None
    return "int4_kernels" if int4 and spec.int4_kernels else "kernels"


def eligible_kernels(spec: TensorCoreSpec, problem: TCProblem) -> tuple[KernelTile, ...]:
    """The kernels of the problem's library (:func:`kernel_library`) that can run it, in config order; an InputError
    if none can."""
    span = k_span_per_mma(spec, problem)
    field = kernel_library(spec, problem)
    library = getattr(spec, field)
    block = problem.scaling.block if problem.scaling is not None else 1     # a stage holds whole scale blocks
    kernels = tuple(t for t in library if t.k % span == 0 and t.k % block == 0 and fits_shared_memory(spec, problem, t))
    if not kernels:
        mode = "sparse" if problem.sparse else ("block-scaled" if problem.scaling is not None else "dense")
        raise InputError.single("tensor_core", field, f"no kernel fits shared memory "
                                f"({spec.shared_memory_size} B) with whole {mode} MMAs per stage")
    return kernels


@dataclass(frozen=True, eq=False)
class CtaGrid:
    """A kernel's CTAs in launch order: ``tiles_m x tiles_n`` C tiles (edge tiles smaller) per group, ``groups``
    groups, ``split`` K slices. The per-CTA arrays (:attr:`rows`, :attr:`cols`, :attr:`row_panel`,
    :attr:`col_panel`, :attr:`slice`) are built on first use: the fast path counts each wave's CTAs by kind from
    the grid's shape (:mod:`..fast.waves`) and never asks for them; the reference runs them one by one."""

    m: int                    # C rows of the problem (A rows)
    n: int                    # C columns of the problem (B columns)
    tile_m: int
    tile_n: int
    groups: int = 1
    a_shared: int = 1         # consecutive groups that read one A
    split: int = 1            # K slices of every C tile

    @property
    def tiles_m(self) -> int:
        return -(-self.m // self.tile_m)

    @property
    def tiles_n(self) -> int:
        return -(-self.n // self.tile_n)

    @property
    def ctas(self) -> int:
        return self.split * self.groups * self.tiles_m * self.tiles_n

    @property
    def edge_rows(self) -> int:
        """C rows of a tile in the last tile row (``tile_m`` when it divides ``m``)."""
        return self.m - (self.tiles_m - 1) * self.tile_m

    @property
    def edge_cols(self) -> int:
        """C columns of a tile in the last tile column (``tile_n`` when it divides ``n``)."""
        return self.n - (self.tiles_n - 1) * self.tile_n

    @cached_property
    def _arrays(self) -> tuple[np.ndarray, ...]:
        gm, gn, groups = self.tiles_m, self.tiles_n, self.groups
        idx = np.arange(self.ctas, dtype=np.int64)
        i, j = idx % gm, (idx // gm) % gn
        g, z = (idx // (gm * gn)) % groups, idx // (gm * gn * groups)
        rows = np.minimum(self.tile_m, self.m - i * self.tile_m)
        cols = np.minimum(self.tile_n, self.n - j * self.tile_n)
        plane = z * groups + g
        a_plane = z * (groups // self.a_shared) + g // self.a_shared
        return rows, cols, a_plane * gm + i, plane * gn + j, z

    @property
    def rows(self) -> np.ndarray:
        """C rows of each CTA's tile (tile.m, fewer at the bottom edge)."""
        return self._arrays[0]

    @property
    def cols(self) -> np.ndarray:
        """C columns of each CTA's tile (tile.n, fewer at the right edge)."""
        return self._arrays[1]

    @property
    def row_panel(self) -> np.ndarray:
        """Each CTA's A panel id (slice, group, tile row)."""
        return self._arrays[2]

    @property
    def col_panel(self) -> np.ndarray:
        """Each CTA's B panel id (slice, group, tile column)."""
        return self._arrays[3]

    @property
    def slice(self) -> np.ndarray:
        """Each CTA's K slice (0 .. split - 1)."""
        return self._arrays[4]


def slice_k(problem: TCProblem, split: int) -> int:
    """The K one slice covers (the whole of K without a split)."""
    return problem.k // split


def cta_grid(problem: TCProblem, tile: KernelTile, split: int = 1) -> CtaGrid:
    return CtaGrid(problem.m, problem.n, tile.m, tile.n, problem.groups, problem.a_shared, split)
