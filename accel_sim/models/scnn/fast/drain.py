"""Halo exchange and PPU drain of one accumulator buffer, fast path (per temporal tile, per group).

Per output channel, a PE's accumulator region holds ``in_plane`` partial sums that belong to
the output plane (out-of-plane ones are dropped), ``own`` of which it owns. It sends the
others to their owners (its halo): to neighbour PEs over the halo links when the owner is in
the same temporal tile (``link`` words), else to DRAM as 24-bit partial sums that the owning
temporal tile adds in (``spill`` words). Then the PPU applies ReLU to the PE's owned outputs
and compresses them. Drain cycles of a group with ``kc`` channels::

    ceil(kc x max_pe halo / halo_words_per_cycle) + ceil(kc x max_pe owned / ppu_outputs_per_cycle)

or, with ``halo_charge: largest_region_serial`` (DNNsim's own rule), ``kc x`` the largest single
halo region of a block (:func:`largest_halo_region`), with no PPU term.

(the dense DCNN dot product produces whole outputs: no halo, only the PPU term). The
geometry comes from interval overlaps of the accumulator regions with the owned rows and
columns (:class:`~accel_sim.models.scnn.plan.tiling.AxisTiles`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.models.scnn.plan.tiling import AxisTiles, Tiling
from accel_sim.models.scnn.spec import SCNNSpec


@dataclass(frozen=True)
class DrainGeometry:
    """Per (temporal tile, PE), per output channel."""

    in_plane: np.ndarray
    own: np.ndarray       # owned outputs inside the accumulator region
    owned: np.ndarray     # owned outputs (the PPU drains these)
    link: np.ndarray      # halo partial sums to PEs of the same temporal tile
    spill: np.ndarray     # halo partial sums to other temporal tiles (through DRAM)


def _overlap(lo_a, hi_a, lo_b, hi_b):
    return np.maximum(0, np.minimum(hi_a, hi_b) - np.maximum(lo_a, lo_b))


def _axis(axis: AxisTiles, out_size: int, pes: int) -> tuple[np.ndarray, ...]:
    lo, hi = axis.acc_lo, axis.acc_lo + axis.acc_len
    in_plane = _overlap(lo, hi, 0, out_size)
    own = _overlap(lo, hi, axis.own_lo, axis.own_hi)
    t_lo = np.repeat(axis.own_lo[::pes], pes)
    t_hi = np.repeat(axis.own_hi[pes - 1::pes], pes)
    temporal = _overlap(lo, hi, t_lo, t_hi)
    return in_plane, own, temporal, axis.own_hi - axis.own_lo


def _grid(tiling: Tiling, spec: SCNNSpec, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    r = rows.reshape(tiling.temporal_rows, spec.pe_rows)
    c = cols.reshape(tiling.temporal_cols, spec.pe_cols)
    return (r[:, None, :, None] * c[None, :, None, :]).reshape(tiling.temporal_tiles, spec.pes)


def drain_geometry(spec: SCNNSpec, tiling: Tiling, out_h: int, out_w: int) -> DrainGeometry:
    ry = _axis(tiling.rows, out_h, spec.pe_rows)
    rx = _axis(tiling.cols, out_w, spec.pe_cols)
    in_plane, own, temporal, owned = (_grid(tiling, spec, a, b) for a, b in zip(ry, rx))
    return DrainGeometry(in_plane, own, owned, temporal - own, in_plane - temporal)


def largest_halo_region(spec: SCNNSpec, tiling: Tiling, r: int, s: int, pad_top: int, pad_left: int) -> int:
    """DNNsim's halo charge per filter: each axis is cut into lengths (kernel - 1 - pad, block, pad);
    the largest product of a row length and a column length, the centre (block x block) excluded."""
    rows = np.array([max(0, r - 1 - pad_top), tiling.rows.block, pad_top])
    cols = np.array([max(0, s - 1 - pad_left), tiling.cols.block, pad_left])
    areas = rows[:, None] * cols[None, :]
    areas[1, 1] = 0
    return int(areas.max())


def drain_cycles(spec: SCNNSpec, geometry: DrainGeometry, channels: np.ndarray, halo: bool,
                 serial_region: int | None = None) -> np.ndarray:
    """Drain cycles ``(temporal tiles, groups)``; ``serial_region``: DNNsim's charge, region x channels."""
    if serial_region is not None:
        per_group = serial_region * channels if halo else np.zeros_like(channels)
        return np.repeat(per_group[None, :], geometry.owned.shape[0], axis=0).astype(np.int64)
    halo_words = (geometry.in_plane - geometry.own).max(axis=1) if halo else np.zeros(geometry.owned.shape[0], int)
    owned = geometry.owned.max(axis=1)
    halo_part = -(-(halo_words[:, None] * channels[None, :]) // spec.halo_words_per_cycle)
    ppu_part = -(-(owned[:, None] * channels[None, :]) // spec.ppu_outputs_per_cycle)
    return (halo_part + ppu_part).astype(np.int64)
