"""The reads a kernel lists for the L2 model (pure): which sectors each CTA asks the L2 for, beyond its read-only
loads through the L1 (``Schedule.cached_sectors``, whose L1 misses the counting paths add): a dense GEMM's tiles and
any kernel's atomic adds (a read-modify-write in the L2 of the array added into, placed after the operands).

A dense GEMM's CTA (tile row i, tile column j, K slice s) reads its A tile, the rows ``i * tile_m ..`` of A (M x K,
row-major) over the slice's K range, and its B tile, the slice's rows of B (K x N, row-major, placed after A on a line
boundary) over the tile's columns (CUTLASS's row-major operands). The sectors are built on demand (a GEMM's lists can
be far larger than its schedule) and only when the kernel's footprint overflows the L2.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.models.simt.plan.sectors import cta_sector_lists, sorted_unique

BITS_PER_BYTE = 8


@dataclass(frozen=True)
class GemmReads:
    """A dense GEMM's tile reads: C (m x n) = A (m x k) B (k x n), CTA (i, j, s) with the slice fastest."""

    m: int
    k: int
    n: int
    tile_m: int
    tile_n: int
    k_slice: int             # K of a slice (the last may be shorter)
    splits: int
    a_bits: float            # bits per A element (2:4's kept values and metadata spread over the dense elements)
    element_bytes: int       # bytes per B element

    @property
    def ctas(self) -> int:
        return -(-self.m // self.tile_m) * -(-self.n // self.tile_n) * self.splits

    def a_bytes(self) -> int:
        return int(np.ceil(self.m * self.k * self.a_bits / BITS_PER_BYTE))

    def ranges(self, line: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every CTA's byte ranges ``(cta, first_byte, bytes)``, CTA-major, rising addresses inside a CTA (its A rows,
        then its B rows)."""
        tiles_n = -(-self.n // self.tile_n)
        cta = np.arange(self.ctas, dtype=np.int64)
        i, j, s = cta // (tiles_n * self.splits), (cta // self.splits) % tiles_n, cta % self.splits
        rows = np.minimum(self.tile_m, self.m - i * self.tile_m)
        k0 = s * self.k_slice
        depth = np.clip(np.minimum(self.k_slice, self.k - k0), 0, None)
        cols = np.minimum(self.tile_n, self.n - j * self.tile_n)
        a_owner = np.repeat(cta, rows)
        a_row = np.repeat(i * self.tile_m, rows) + _within(rows)
        a_k0 = np.repeat(k0, rows)
        a_first = np.floor((a_row * self.k + a_k0) * self.a_bits / BITS_PER_BYTE).astype(np.int64)
        a_end = np.ceil((a_row * self.k + a_k0 + np.repeat(depth, rows)) * self.a_bits / BITS_PER_BYTE).astype(np.int64)
        b_base = -(-self.a_bytes() // line) * line
        b_owner = np.repeat(cta, depth)
        b_row = np.repeat(k0, depth) + _within(depth)
        b_first = b_base + (b_row * self.n + np.repeat(j * self.tile_n, depth)) * self.element_bytes
        b_len = np.repeat(cols, depth) * self.element_bytes
        owner = np.concatenate((a_owner, b_owner))
        order = np.argsort(owner, kind="stable")                     # CTA-major: A rows, then B rows
        return owner[order], np.concatenate((a_first, b_first))[order], np.concatenate((a_end - a_first, b_len))[order]


def _within(counts: np.ndarray) -> np.ndarray:
    """0 .. count - 1 for each count, concatenated."""
    counts = np.asarray(counts, dtype=np.int64)
    return np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)


def listed_reads(reads: GemmReads | None, ctas: int, sector: int, line: int) -> tuple[np.ndarray, np.ndarray]:
    """Each CTA's distinct sorted sectors of its GEMM tile reads: ``(ptr, sectors)`` (none without ``reads``)."""
    if reads is None:
        return np.zeros(ctas + 1, dtype=np.int64), np.zeros(0, dtype=np.int64)
    owner, first, nbytes = reads.ranges(line)
    return cta_sector_lists(owner, first, nbytes, sector, ctas)


def listed_atomics(atomic_cta: np.ndarray | None, atomic_sector: np.ndarray | None, ctas: int, base: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Each CTA's distinct sorted sectors its atomic requests read and write in L2, the array added into placed from
    sector ``base`` (after the operands the kernel reads): ``(ptr, sectors)``."""
    if atomic_cta is None or atomic_cta.size == 0:
        return np.zeros(ctas + 1, dtype=np.int64), np.zeros(0, dtype=np.int64)
    sector = np.asarray(atomic_sector, dtype=np.int64)
    radix = int(sector.max()) + 1
    key = sorted_unique(np.asarray(atomic_cta, dtype=np.int64) * radix + sector)
    ptr = np.concatenate(([0], np.cumsum(np.bincount(key // radix, minlength=ctas)))).astype(np.int64)
    return ptr, key % radix + base


def output_base(reads: GemmReads | None, operand_bytes: int, line: int, sector: int) -> int:
    """First sector of the array a kernel adds into, on the line after its A and B (a GEMM) or its B (a kernel listing
    B's read-only loads)."""
    end = -(-reads.a_bytes() // line) * line + reads.k * reads.n * reads.element_bytes if reads is not None \
        else operand_bytes
    return -(-end // line) * line // sector
