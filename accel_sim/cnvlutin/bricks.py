"""Bricks and lanes (pure numpy): how a window's activations reach the neuron lanes.

A window (one output pixel of one group) reads ``R x S`` positions x ``C`` channels
(channels padded with zeros to a multiple of ``neuron_lanes``, ``L``).

- DaDianNao-like baseline: a unit takes one brick (``L`` consecutive channels at one
  position) per cycle, lane i getting its neuron i: a window takes ``R * S * ceil(C / L)``
  cycles.
- Cnvlutin: the input's channels are split into ``L`` slices of ``ceil(C / L)`` consecutive
  channels, slice i feeding lane i in zero-free form (non-zero values with their offsets).
  At each of the window's positions, in order ``(r, s)``, a lane spends one cycle per
  non-zero neuron of its slice (``empty_brick_cycles`` when its slice holds none there);
  lanes advance independently and the next window starts when every lane is done with
  this one. On a dense input this is exactly the baseline's time.
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.workload.layer import ConvLayer, Layer


def input_nonzero(layer: Layer, inputs: np.ndarray, group: int) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """Zero-padded non-zero mask ``(batch, C/g, Hp, Wp)`` of one group and ``(R, S, stride_h, stride_w)``.
    A GEMM / FC layer is a 1 x 1 convolution over ``m`` one-pixel images."""
    if not isinstance(layer, ConvLayer):
        return (inputs != 0)[:, :, None, None], (1, 1, 1, 1)
    cg = layer.in_channels // layer.groups
    nz = inputs[:, group * cg:(group + 1) * cg] != 0
    padded = np.pad(nz, ((0, 0), (0, 0), (layer.pad_top, layer.pad_bottom), (layer.pad_left, layer.pad_right)))
    return padded, (layer.kernel_h, layer.kernel_w, layer.stride_h, layer.stride_w)


def out_size(layer: Layer) -> tuple[int, int]:
    return (layer.out_h, layer.out_w) if isinstance(layer, ConvLayer) else (1, 1)


def lane_nonzeros(padded: np.ndarray, lanes: int) -> np.ndarray:
    """Non-zero neurons of each lane's channel slice at each position: ``(batch, lanes, Hp, Wp)``."""
    batch, c, hp, wp = padded.shape
    slice_depth = math.ceil(c / lanes)
    full = np.zeros((batch, slice_depth * lanes, hp, wp), dtype=np.int64)
    full[:, :c] = padded
    return full.reshape(batch, lanes, slice_depth, hp, wp).sum(axis=2)


def window_slice(grid: np.ndarray, r: int, s: int, oh: int, ow: int, sh: int, sw: int) -> np.ndarray:
    """The value of ``grid[..., y, x]`` at position (r, s) of every window: ``(..., oh, ow)``."""
    return grid[..., r:r + sh * (oh - 1) + 1:sh, s:s + sw * (ow - 1) + 1:sw]


def cnvlutin_window_cycles(nnz: np.ndarray, geometry: tuple[int, int, int, int], out: tuple[int, int],
                           empty_cycles: int) -> np.ndarray:
    """Cycles of every window ``(batch, oh, ow)`` (fast path: one vectorised pass per position)."""
    r_max, s_max, sh, sw = geometry
    cost = np.where(nnz > 0, nnz, empty_cycles)
    lane_time = np.zeros((nnz.shape[0], nnz.shape[1], *out), dtype=np.int64)
    for r in range(r_max):
        for s in range(s_max):
            lane_time += window_slice(cost, r, s, *out, sh, sw)
    return lane_time.max(axis=1)


def window_lanes(nnz: np.ndarray, geometry: tuple[int, int, int, int], index: tuple[int, int, int]) -> list[list[int]]:
    """Per lane, the non-zero counts of its slice at the window's positions in order (for the reference)."""
    r_max, s_max, sh, sw = geometry
    n, y, x = index
    return [[int(nnz[n, lane, y * sh + r, x * sw + s]) for r in range(r_max) for s in range(s_max)]
            for lane in range(nnz.shape[1])]
