"""The read operands' DRAM footprints, in closed form (fast path): the distinct words one group
reads, which is what a CALC-mode read buffer fetches when the operand fits it."""
from __future__ import annotations

import numpy as np

from accel_sim.models.systolic.plan.mapping import SystolicMapping, kept_reduction_indices
from accel_sim.foundations.workload.layer import ConvLayer, Layer


def _touched(size: int, stride: int, pad: int, outputs: int, offsets: np.ndarray) -> np.ndarray:
    """Input positions (along one axis) read by the kernel offsets ``offsets`` of any window."""
    hit = np.zeros(size, dtype=bool)
    starts = np.arange(outputs) * stride - pad
    positions = (starts[:, None] + offsets[None, :]).ravel()
    hit[positions[(positions >= 0) & (positions < size)]] = True
    return hit


def touched_input_words(mapping: SystolicMapping, layer: Layer) -> int:
    """Distinct input words one group reads (the ifmap's DRAM footprint as SCALE-Sim counts it).

    Windows can skip inputs (stride > kernel) or reach outside them (padding, SCALE-Sim's
    ceil-rounded last window); under N:M the ifmap columns of pruned weights are never read (packed narrow
    elements: only each packed word's first element carries an address, the same way).
    Dense: (touched rows) x (touched columns) x channels. N:M: per channel, the union over
    its kept kernel offsets of (touched rows x touched columns).
    """
    if not isinstance(layer, ConvLayer):  # an m x k input, row i read by output i: every column it keeps
        pattern = mapping.kept_pattern
        kept_columns = mapping.dense_k if pattern is None else len(kept_reduction_indices(mapping.dense_k, pattern))
        return mapping.gemm.m * kept_columns
    h, w, c = layer.in_h, layer.in_w, layer.in_channels // layer.groups
    r, s, batch = layer.kernel_h, layer.kernel_w, layer.batch
    stride_h, pad_h, out_h = layer.stride_h, layer.pad_top, layer.out_h
    stride_w, pad_w, out_w = layer.stride_w, layer.pad_left, layer.out_w
    if mapping.kept_pattern is None:
        rows = _touched(h, stride_h, pad_h, out_h, np.arange(r)).sum()
        cols = _touched(w, stride_w, pad_w, out_w, np.arange(s)).sum()
        return int(rows * cols * c * batch)
    kept = np.asarray(kept_reduction_indices(mapping.dense_k, mapping.kept_pattern))
    kr, rest = np.divmod(kept, s * c)
    kc, ch = np.divmod(rest, c)
    per_pattern: dict[tuple[tuple[int, int], ...], int] = {}
    total = 0
    for channel in range(c):
        pattern = tuple(zip(kr[ch == channel].tolist(), kc[ch == channel].tolist()))
        if pattern not in per_pattern:
            grid = np.zeros((h, w), dtype=bool)
            for offset_r, offset_c in pattern:
                rows = _touched(h, stride_h, pad_h, out_h, np.array([offset_r]))
                cols = _touched(w, stride_w, pad_w, out_w, np.array([offset_c]))
                grid |= rows[:, None] & cols[None, :]
            per_pattern[pattern] = int(grid.sum())
        total += per_pattern[pattern]
    return total * batch


def read_footprint_words(mapping: SystolicMapping, layer: Layer, operand: str) -> int:
    """Distinct words of a read operand (one group): the touched inputs, or every kept weight."""
    if operand == "ifmap":
        return touched_input_words(mapping, layer)
    return mapping.kept_weights_per_group
