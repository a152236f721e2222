"""Tiling geometry (pure functions): the conv view of a layer, planar and temporal tiles, channel chunks, Kc.

SCNN's PT-IS dataflow cuts the input activation plane into one tile per PE (planar tiling);
when a PE's tiles of all input channels do not fit its IARAM the plane is first cut into
temporal tiles processed one after the other through DRAM. When even one-pixel tiles do not
fit, the input channels are cut into contiguous channel chunks (a modelling choice, see
:mod:`accel_sim.models.scnn.plan.temporal_tiling`); a *pass* is one (temporal tile, channel chunk), numbered
``temporal tile x channel chunks + chunk``. Tiles and chunks that do not divide evenly
are explicit: the plane is split with ``numpy.array_split`` semantics (the first
``size % parts`` tiles get one more row / column; a PE may get an empty tile).

Stride: an activation at padded row ``y + pad`` meets the weight rows ``r`` with
``(y + pad - r) % stride == 0`` only; the model splits a channel into ``stride_h x stride_w``
phase classes (``(y + pad) % stride_h``, ``(x + pad) % stride_w``) and multiplies only
matching classes of activations and weights. The output row is ``(y + pad) // stride - r // stride``.

Each PE accumulates every output its activations reach, the accumulator region
``[oy_lo, oy_lo + acc_h)`` x ``[ox_lo, ox_lo + acc_w)``, out-of-plane rows included (they are
discarded at the drain). Output ownership: the output plane is split the same way as the
input plane; partial sums of outputs the PE does not own are its halo.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from accel_sim.models.scnn.spec import SCNNSpec
from accel_sim.foundations.workload.layer import ConvLayer, Layer


@dataclass(frozen=True)
class ConvView:
    """A layer as the PE array sees it. A fully connected / GEMM layer of ``m x k`` inputs is
    ``m`` images of a 1 x 1 plane with ``k`` channels and a 1 x 1 kernel."""

    h: int
    w: int
    channels: int          # input channels per conv group
    out_channels: int      # output channels per conv group
    groups: int
    r: int
    s: int
    stride_h: int
    stride_w: int
    pad_top: int
    pad_left: int
    out_h: int
    out_w: int
    batch: int


DNNSIM_FC_PLANE = 16   # DNNsim (core/src/SCNN.cpp): FC inputs padded to a multiple of 256 and cut into 16 x 16 planes


def conv_view(layer: Layer, fc_layout: str = "channels") -> ConvView:
    """``fc_layout`` (``scnn.fc_layout``) of a fully connected / GEMM layer: 'channels', a 1 x 1 plane
    of ``k`` channels; 'dnnsim_planes', ``ceil(k / 256)`` channels of 16 x 16 planes and a 16 x 16
    kernel (one output pixel), DNNsim's reshape."""
    if isinstance(layer, ConvLayer):
        return ConvView(layer.in_h, layer.in_w, layer.in_channels // layer.groups, layer.out_channels // layer.groups,
                        layer.groups, layer.kernel_h, layer.kernel_w, layer.stride_h, layer.stride_w, layer.pad_top,
                        layer.pad_left, layer.out_h, layer.out_w, layer.batch)
    if fc_layout == "dnnsim_planes":
        side = DNNSIM_FC_PLANE
        return ConvView(side, side, -(-layer.k // side ** 2), layer.n, 1, side, side, 1, 1, 0, 0, 1, 1, layer.m)
    return ConvView(1, 1, layer.k, layer.n, 1, 1, 1, 1, 1, 0, 0, 1, 1, layer.m)


def split_bounds(size: int, parts: int) -> np.ndarray:
    """Boundaries of ``array_split(range(size), parts)``: ``parts + 1`` increasing integers."""
    base, extra = divmod(size, parts)
    counts = np.full(parts, base, dtype=np.int64)
    counts[:extra] += 1
    return np.concatenate(([0], np.cumsum(counts)))


@dataclass(frozen=True)
class AxisTiles:
    """One axis (rows or columns) cut into ``temporal x pes`` tiles; arrays indexed by tile."""

    lo: np.ndarray        # first input row of each tile
    hi: np.ndarray        # one past the last input row
    acc_lo: np.ndarray    # first accumulator (output) row each tile reaches
    acc_len: np.ndarray   # accumulator rows each tile reaches (0 for an empty tile)
    own_lo: np.ndarray    # first output row each tile owns
    own_hi: np.ndarray
    block: int            # nominal tile length: the largest tile (planar) or the padded block

    def tile_of(self, positions: np.ndarray) -> np.ndarray:
        """Tile index of input rows (a table lookup)."""
        return np.repeat(np.arange(self.lo.size), self.hi - self.lo)[positions]

    def owner_of(self, positions: np.ndarray) -> np.ndarray:
        """Tile index owning output rows."""
        return np.repeat(np.arange(self.own_lo.size), self.own_hi - self.own_lo)[positions]


def axis_tiles(size: int, out_size: int, kernel: int, stride: int, pad: int, parts: int,
               padded_blocks: bool = False) -> AxisTiles:
    """Planar: ``size`` split as evenly as possible, outputs likewise. Padded blocks (DNNsim): the
    padded axis ``size + 2 pad`` rounded up to a multiple of ``parts`` and cut into equal blocks;
    a block owns the outputs at its padded positions shifted by ``pad``."""
    if padded_blocks:
        block = -(-(size + 2 * pad) // parts)
        starts = np.arange(parts + 1, dtype=np.int64) * block - pad
        bounds, own = np.clip(starts, 0, size), np.clip(starts, 0, out_size)
    else:
        bounds, own = split_bounds(size, parts), split_bounds(out_size, parts)
        block = int(np.diff(bounds).max())
    lo, hi = bounds[:-1], bounds[1:]
    acc_lo = -((kernel - 1 - lo - pad) // stride)   # ceil((lo + pad - kernel + 1) / stride)
    acc_hi = (hi - 1 + pad) // stride
    acc_len = np.where(hi > lo, acc_hi - acc_lo + 1, 0)
    return AxisTiles(lo, hi, acc_lo, np.maximum(acc_len, 0), own[:-1], own[1:], int(block))


@dataclass(frozen=True)
class Tiling:
    """Temporal tiles ``ty x tx``, each cut into ``pe_rows x pe_cols`` PE tiles; channel chunks; Kc and groups."""

    temporal_rows: int
    temporal_cols: int
    rows: AxisTiles       # indexed by ty * pe_rows + py
    cols: AxisTiles       # indexed by tx * pe_cols + px
    acc_h: int            # accumulator layout of every PE (the largest region)
    acc_w: int
    kc: int
    out_groups: int       # ceil(out_channels / kc)
    channel_bounds: np.ndarray  # (channel chunks + 1,) first input channel of each chunk, then the channel count

    @property
    def temporal_tiles(self) -> int:
        return self.temporal_rows * self.temporal_cols

    @property
    def channel_chunks(self) -> int:
        return self.channel_bounds.size - 1

    @property
    def passes(self) -> int:
        """(temporal tile, channel chunk) passes, processed one after the other."""
        return self.temporal_tiles * self.channel_chunks

    def chunk_of(self, channels: np.ndarray) -> np.ndarray:
        """Channel chunk of input channels."""
        return np.searchsorted(self.channel_bounds, channels, side="right") - 1

    def group_channels(self, out_channels: int) -> np.ndarray:
        """Output channels of each group: Kc, the last group the rest."""
        sizes = np.full(self.out_groups, self.kc, dtype=np.int64)
        sizes[-1] = out_channels - self.kc * (self.out_groups - 1)
        return sizes


def largest_kc(spec: SCNNSpec, view: ConvView, acc_h: int, acc_w: int, row_parts: int, col_parts: int) -> int:
    """Kc by the configured rule; 0 when not even one output channel's region fits. 'output_tile'
    (DNNsim): the capacity over the output tile ceil(out / parts) per side, no halo room."""
    if spec.kc_rule == "output_tile":
        tile = -(-view.out_h // row_parts) * -(-view.out_w // col_parts)
        return min(view.out_channels, spec.accumulator_capacity // tile)
    fit = spec.accumulator_capacity // max(1, acc_h * acc_w)
    want = view.out_channels if spec.kc_rule == "max_fit" else min(spec.kc, view.out_channels)
    return min(want, fit) if spec.kc_rule == "max_fit" else (want if want <= fit else 0)


def make_tiling(spec: SCNNSpec, view: ConvView, temporal_rows: int, temporal_cols: int,
                channel_chunks: int = 1) -> Tiling:
    padded = spec.partition == "padded_blocks"
    row_parts, col_parts = temporal_rows * spec.pe_rows, temporal_cols * spec.pe_cols
    rows = axis_tiles(view.h, view.out_h, view.r, view.stride_h, view.pad_top, row_parts, padded)
    cols = axis_tiles(view.w, view.out_w, view.s, view.stride_w, view.pad_left, col_parts, padded)
    acc_h, acc_w = int(rows.acc_len.max()), int(cols.acc_len.max())
    kc = largest_kc(spec, view, acc_h, acc_w, row_parts, col_parts)
    groups = math.ceil(view.out_channels / kc) if kc else 0
    return Tiling(temporal_rows, temporal_cols, rows, cols, acc_h, acc_w, kc, groups,
                  split_bounds(view.channels, channel_chunks))


def temporal_candidates(view: ConvView, spec: SCNNSpec):
    """Temporal splits to try, fewest tiles first: n x n, until every PE tile is one pixel."""
    n = 1
    while True:
        ty = min(n, math.ceil(view.h / spec.pe_rows))
        tx = min(n, math.ceil(view.w / spec.pe_cols))
        yield ty, tx
        if ty * spec.pe_rows >= view.h and tx * spec.pe_cols >= view.w:
            return
        n += 1
