"""Halo exchange and PPU drain of an accumulator buffer, reference (SimPy processes).

The output plane is owned tile by tile (split like the input plane). A PE's accumulator region
holds the partial sums of every output its activations reach; at the end of a group, each PE
sends the in-plane partial sums it does not own (its halo) to their owners over its halo link,
``halo_words_per_cycle`` words per cycle: to a PE of the same temporal tile (link words) or,
when the owner is in another temporal tile, to DRAM as 24-bit partial sums (spilled words).
When every PE's halo has arrived (a barrier), each PE's post-processing unit applies ReLU to
its owned outputs and compresses them into its OARAM, ``ppu_outputs_per_cycle`` per cycle.
Out-of-plane partial sums are dropped. The dense designs produce whole outputs: no halo.

Who owns what is read off per-row and per-column owner maps of the output plane.

DNNsim's rule (``halo_charge: largest_region_serial``): the drain is one serial transfer of
(largest halo region around a block) x (filters of the group) partial sums, one per cycle, and no
PPU time; the regions are found by walking the partial-sum offsets around a block on each axis.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import simpy

from accel_sim.hardware import Barrier
from accel_sim.models.scnn.plan import Plan
from accel_sim.models.scnn.plan.tiling import AxisTiles


@dataclass(frozen=True)
class Ownership:
    """Per (temporal tile, PE), per output channel: output positions by who owns them."""

    owned: np.ndarray     # outputs the PE owns
    halo: np.ndarray      # in-plane partial sums of its region that others own
    link: np.ndarray      # ... owned by a PE of the same temporal tile
    spill: np.ndarray     # ... owned by a PE of another temporal tile


def _axis_counts(axis: AxisTiles, out_size: int, pes: int) -> tuple[np.ndarray, ...]:
    """Per tile of one axis: rows it owns, in-plane rows of its region, of which it owns, of which
    its temporal tile owns."""
    owner = np.full(out_size, -1)
    for tile, (lo, hi) in enumerate(zip(axis.own_lo, axis.own_hi)):
        owner[lo:hi] = tile
    tiles = axis.own_lo.size
    owned, in_plane, own, same_temporal = (np.zeros(tiles, dtype=np.int64) for _ in range(4))
    for tile in range(tiles):
        region = np.arange(axis.acc_lo[tile], axis.acc_lo[tile] + axis.acc_len[tile])
        owners = owner[region[(region >= 0) & (region < out_size)]]
        owned[tile] = int((owner == tile).sum())
        in_plane[tile] = owners.size
        own[tile] = int((owners == tile).sum())
        same_temporal[tile] = int((owners // pes == tile // pes).sum())
    return owned, in_plane, own, same_temporal


def ownership(plan: Plan) -> Ownership:
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    rows = _axis_counts(tiling.rows, view.out_h, spec.pe_rows)
    cols = _axis_counts(tiling.cols, view.out_w, spec.pe_cols)
    ty, tx, py, px = np.meshgrid(np.arange(tiling.temporal_rows), np.arange(tiling.temporal_cols),
                                 np.arange(spec.pe_rows), np.arange(spec.pe_cols), indexing="ij")
    iy, ix = (ty * spec.pe_rows + py).reshape(tiling.temporal_tiles, spec.pes), \
        (tx * spec.pe_cols + px).reshape(tiling.temporal_tiles, spec.pes)
    owned, in_plane, own, temporal = (r[iy] * c[ix] for r, c in zip(rows, cols))
    halo = np.zeros_like(owned) if plan.dcnn else in_plane - own
    return Ownership(owned, halo, np.zeros_like(owned) if plan.dcnn else temporal - own,
                     np.zeros_like(owned) if plan.dcnn else in_plane - temporal)


def _halo_lengths(kernel: int, pad: int, block: int) -> np.ndarray:
    """Partial-sum offsets around a block on one axis, counted by side: (before, inside, after)."""
    offsets = np.arange(-max(0, kernel - 1 - pad), block + pad)
    side = np.where(offsets < 0, 0, np.where(offsets < block, 1, 2))
    return np.bincount(side, minlength=3)


def largest_region(plan: Plan) -> int:
    """The largest of the (up to) 8 neighbour regions of a block."""
    view, tiling = plan.view, plan.tiling
    rows = _halo_lengths(view.r, view.pad_top, tiling.rows.block)
    cols = _halo_lengths(view.s, view.pad_left, tiling.cols.block)
    return max(int(rows[i] * cols[j]) for i in range(3) for j in range(3) if (i, j) != (1, 1))


def _cycles(words: int, per_cycle: int) -> int:
    return -(-words // per_cycle)


class DrainUnit:
    """Drains one group's accumulator buffer of every PE: halo exchange, barrier, PPU."""

    def __init__(self, env: simpy.Environment, plan: Plan, owners: Ownership):
        self.env = env
        self.spec = plan.spec
        self.owners = owners
        self.exchanged = Barrier(env, plan.spec.pes, name="halo exchanged")
        self.link_words = 0       # halo partial sums sent to PEs of the same temporal tile
        self.spilled_words = 0    # halo partial sums sent to other temporal tiles (DRAM)
        self.ppu_outputs = 0
        self.serial_region = largest_region(plan) if plan.spec.halo_charge == "largest_region_serial" else None
        self.halo = not plan.dcnn

    def _serial(self, channels: int):
        yield self.env.timeout(self.serial_region * channels if self.halo else 0)

    def _pe(self, temporal_tile: int, pe: int, channels: int):
        halo_words = channels * int(self.owners.halo[temporal_tile, pe])
        yield self.env.timeout(_cycles(halo_words, self.spec.halo_words_per_cycle))
        yield self.exchanged.put()
        yield self.env.timeout(_cycles(channels * int(self.owners.owned[temporal_tile, pe]),
                                       self.spec.ppu_outputs_per_cycle))

    def drain(self, temporal_tile: int, channels: int, completes_outputs: bool):
        """A process draining one group of ``channels`` output channels of every PE. The actions of
        a temporal tile's exchange and PPU are counted once, in the pass that completes its outputs
        (its last channel chunk); every pass's drain takes its time."""
        if self.serial_region is not None:
            yield self.env.process(self._serial(channels))
        else:
            yield self.env.all_of([self.env.process(self._pe(temporal_tile, pe, channels))
                                   for pe in range(self.spec.pes)])
        if completes_outputs:
            self.link_words += channels * int(self.owners.link[temporal_tile].sum())
            self.spilled_words += channels * int(self.owners.spill[temporal_tile].sum())
            self.ppu_outputs += channels * int(self.owners.owned[temporal_tile].sum())
