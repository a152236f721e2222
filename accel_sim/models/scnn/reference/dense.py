"""The dense dot-product PE of DCNN / DCNN-opt (paper, Table 6), reference.

Each PE computes each output it owns, for every output channel, as one dot product over the
pass's input channels and the R x S window, streamed through its F x I multipliers: a dot
product of ``n`` terms takes ``ceil(n / (F x I))`` beats, each beat reading I weight-FIFO
entries of F weights. DCNN-opt gates a multiplier whose weight or activation is zero: only
pairs of two non-zeros in the window (padding is zero) switch one.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.models.scnn.plan import Plan


@dataclass(frozen=True)
class DenseWork:
    beats: int          # busy cycles of the PE in the pass
    products: int       # multiplier products (all window taps, zeros included)
    nonzero_pairs: int  # products of two non-zeros (DCNN-opt energises only these)
    activation_reads: int


def owned_windows(plan: Plan, image: int, conv_group: int, rows: range, cols: range, channels: range) -> np.ndarray:
    """Non-zero masks of the input windows of outputs ``rows x cols``: (channels, rows, cols, R, S)."""
    view = plan.view
    inputs = plan.inputs[image, conv_group][channels.start:channels.stop] != 0
    padded = np.zeros((inputs.shape[0], view.pad_top + view.h + view.r + view.stride_h * view.out_h,
                       view.pad_left + view.w + view.s + view.stride_w * view.out_w), dtype=bool)
    padded[:, view.pad_top:view.pad_top + view.h, view.pad_left:view.pad_left + view.w] = inputs
    windows = np.lib.stride_tricks.sliding_window_view(padded, (view.r, view.s), axis=(1, 2))
    return windows[:, rows.start * view.stride_h:rows.stop * view.stride_h:view.stride_h,
                   cols.start * view.stride_w:cols.stop * view.stride_w:view.stride_w]


def dense_pe_work(plan: Plan, image: int, conv_group: int, rows: range, cols: range, chunk: int) -> DenseWork:
    """The PE's pass: owned outputs ``rows x cols``, the channels of ``chunk``."""
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    channels = range(int(tiling.channel_bounds[chunk]), int(tiling.channel_bounds[chunk + 1]))
    terms = len(channels) * view.r * view.s
    dot_products = len(rows) * len(cols) * view.out_channels
    beats_per_dot = -(-terms // spec.multipliers_per_pe)
    nonzero = 0
    if plan.traits.gate_zero_operands and dot_products:
        weights = plan.weights[conv_group][:, channels.start:channels.stop] != 0       # (K, channels, R, S)
        windows = owned_windows(plan, image, conv_group, rows, cols, channels)
        nonzero = int(np.einsum("kcrs,cyxrs->", weights.astype(np.int64), windows.astype(np.int64)))
    return DenseWork(dot_products * beats_per_dot, dot_products * terms, nonzero, len(rows) * len(cols) * terms)
