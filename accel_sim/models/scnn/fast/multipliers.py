"""Useful and energised multiplications, fast path (closed form over the layer).

``macs_issued`` counts the products whose two operands the multipliers see and whose output
lies in the output plane (SCNN: both non-zero; products that fall outside the plane at the
layer's edges are computed, then dropped). DCNN-opt gates a multiplier that meets a zero
operand (paper, Table 6): its energised multiplications are the products of two non-zeros
inside the plane. Both are ``sum over (c, r, s) of count(weights) x count(inputs the tap reads)``.
"""
from __future__ import annotations

import numpy as np

from accel_sim.models.scnn.plan.tiling import ConvView


def useful_products(view: ConvView, w_counts: np.ndarray, input_mask: np.ndarray) -> int:
    """MACs of the layer whose two operands are both in the masks (a window tap inside the plane);
    ``w_counts``: ``(groups, Cg, R, S)`` weights in the weight mask per channel and tap (its sum
    over the filters)."""
    total = 0
    for r in range(view.r):
        rows = np.arange(view.out_h) * view.stride_h + r - view.pad_top     # input row tap r reads per output row
        rows = rows[(rows >= 0) & (rows < view.h)]
        per_column = input_mask[:, :, :, rows].sum(axis=(0, 3), dtype=np.int64)   # (groups, Cg, W): those rows
        for s in range(view.s):
            cols = np.arange(view.out_w) * view.stride_w + s - view.pad_left
            cols = cols[(cols >= 0) & (cols < view.w)]
            a_counts = per_column[:, :, cols].sum(axis=2)   # (groups, Cg)
            total += int((a_counts * w_counts[:, :, r, s]).sum())
    return total
