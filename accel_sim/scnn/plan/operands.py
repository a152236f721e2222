"""Operands of a layer as the PE array sees them, and what the layer computes (numpy).

The weights and inputs come from the workload (``accel_sim.workload.operands``), reshaped to
the conv view (:mod:`.tiling`). The outputs are the ReLU (applied by the PPU) of a plain
numpy convolution, independent of any dataflow: the plan encodes them to size the OARAM and
DRAM output traffic, and tests compare the reference's accumulators against them.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from accel_sim.scnn.plan.tiling import ConvView, conv_view
from accel_sim.workload.layer import Layer
from accel_sim.workload.operands import layer_operands


def conv_operands(layer: Layer, fc_layout: str = "channels") -> tuple[np.ndarray, np.ndarray]:
    """Weights ``(groups, Kg, Cg, R, S)`` and inputs ``(batch, groups, Cg, H, W)`` of the conv view
    (:func:`~.tiling.conv_view`; 'dnnsim_planes': the ``k`` inputs zero-padded to whole planes and
    reshaped in C order, as DNNsim's ``split_4D``)."""
    view = conv_view(layer, fc_layout)
    ops = layer_operands(layer)
    if ops.weights.ndim == 4:
        return (ops.weights.reshape(view.groups, view.out_channels, view.channels, view.r, view.s),
                ops.inputs.reshape(view.batch, view.groups, view.channels, view.h, view.w))
    # GEMM: (k, n) weights, (m, k) inputs
    pad = view.channels * view.h * view.w - ops.inputs.shape[1]
    weights = np.pad(ops.weights.T, ((0, 0), (0, pad))) if pad else ops.weights.T
    inputs = np.pad(ops.inputs, ((0, 0), (0, pad))) if pad else ops.inputs
    return (weights.reshape(1, view.out_channels, view.channels, view.r, view.s),
            inputs.reshape(view.batch, 1, view.channels, view.h, view.w))


def convolution(view: ConvView, weights: np.ndarray, inputs: np.ndarray) -> np.ndarray:
    """Pre-activation sums ``(batch, groups, Kg, out_h, out_w)`` (no ReLU), accumulated in float32
    like the operands (tests compare with tolerance)."""
    b, g = inputs.shape[0], view.groups
    pad_bottom = max(0, (view.out_h - 1) * view.stride_h + view.r - view.h - view.pad_top)
    pad_right = max(0, (view.out_w - 1) * view.stride_w + view.s - view.w - view.pad_left)
    padded = np.pad(inputs.astype(np.float32),
                    ((0, 0), (0, 0), (0, 0), (view.pad_top, pad_bottom), (view.pad_left, pad_right)))
    out = np.zeros((b, g, view.out_channels, view.out_h * view.out_w), dtype=np.float32)
    w64 = weights.astype(np.float32)
    for r in range(view.r):
        for s in range(view.s):
            window = padded[:, :, :, r:r + view.stride_h * (view.out_h - 1) + 1:view.stride_h,
                            s:s + view.stride_w * (view.out_w - 1) + 1:view.stride_w]
            window = window.reshape(b, g, view.channels, -1)
            out += np.matmul(np.ascontiguousarray(w64[:, :, :, r, s])[None], window)
    return out.reshape(b, g, view.out_channels, view.out_h, view.out_w)


@lru_cache(maxsize=8)
def layer_outputs(layer: Layer) -> np.ndarray:
    """ReLU of the layer's convolution, ``(batch, groups, Kg, out_h, out_w)`` (cached, read-only)."""
    view = conv_view(layer)
    weights, inputs = conv_operands(layer)
    out = np.maximum(convolution(view, weights, inputs), 0.0)
    out.flags.writeable = False
    return out
