"""The operands as the array sees them (pure numpy): the GEMM view of each group.

The array sees a layer as ``M`` output pixels x ``K`` reduction positions x ``N`` filters per
group. A group's weights are the ``K x N`` GEMM-view matrix (rows ordered ``(c, r, s)``); its
inputs are kept as the non-zero mask of the zero-padded input, ``(batch, C/g, Hp, Wp)``, from
which each output pixel's activations at each position are read through the kernel window. A
GEMM / FC layer is a 1 x 1 convolution over ``m`` one-pixel images (``(m, k, 1, 1)``).
"""
from __future__ import annotations

import numpy as np

from accel_sim.foundations.workload.layer import ConvLayer, Layer
from accel_sim.foundations.workload.operands import LayerOperands, weight_matrix


def group_weights(layer: Layer, ops: LayerOperands) -> tuple[np.ndarray, ...]:
    """The ``K x N`` GEMM-view weight matrix of every group of ``layer`` (views, no copies)."""
    matrix = weight_matrix(layer, ops.weights)
    if not isinstance(layer, ConvLayer):
        return (matrix,)
    ng = layer.out_channels // layer.groups
    return tuple(matrix[:, i * ng:(i + 1) * ng] for i in range(layer.groups))


def group_inputs(layer: Layer) -> int:
    """Input elements (words) of one group, as stored in DRAM (no padding)."""
    if isinstance(layer, ConvLayer):
        return layer.batch * (layer.in_channels // layer.groups) * layer.in_h * layer.in_w
    return layer.m * layer.k
