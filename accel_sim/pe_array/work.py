"""What a layer asks of the PE array, per group, from its concrete operands (pure numpy).

The array sees the layer's GEMM view: ``M`` output pixels x ``K`` reduction positions x
``N`` filters per group. Everything the timing and the counts need is here: the weight
non-zero mask (``K x N``) and, for each reduction position, how many output pixels read a
non-zero activation there (``act_nonzero``, the column sums of the im2col matrix, zero
padding included as zeros).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.workload.layer import ConvLayer, Layer
from accel_sim.workload.operands import LayerOperands, weight_matrix


@dataclass(frozen=True, eq=False)
class GroupWork:
    """One group of a layer: ``weights`` is the ``K x N`` GEMM-view weight matrix."""

    m: int
    weights: np.ndarray
    act_nonzero: np.ndarray   # (K,) output pixels with a non-zero activation at each position

    @property
    def k(self) -> int:
        return self.weights.shape[0]

    @property
    def n(self) -> int:
        return self.weights.shape[1]

    @property
    def weight_nonzero(self) -> np.ndarray:
        return self.weights != 0

    @property
    def effectual_macs(self) -> int:
        """MACs whose weight and activation are both non-zero."""
        per_position = self.weight_nonzero.sum(axis=1, dtype=np.int64)
        return int(per_position @ self.act_nonzero.astype(np.int64))


def conv_act_nonzero(layer: ConvLayer, inputs: np.ndarray, group: int) -> np.ndarray:
    """Column sums of the im2col non-zero matrix of one group, ordered like the weight rows
    ``(c, r, s)``."""
    cg = layer.in_channels // layer.groups
    nz = inputs[:, group * cg:(group + 1) * cg] != 0
    padded = np.pad(nz, ((0, 0), (0, 0), (layer.pad_top, layer.pad_bottom), (layer.pad_left, layer.pad_right)))
    out = np.empty((cg, layer.kernel_h, layer.kernel_w), dtype=np.int64)
    for r in range(layer.kernel_h):
        for s in range(layer.kernel_w):
            window = padded[:, :, r:r + layer.stride_h * (layer.out_h - 1) + 1:layer.stride_h,
                            s:s + layer.stride_w * (layer.out_w - 1) + 1:layer.stride_w]
            out[:, r, s] = window.sum(axis=(0, 2, 3))
    return out.reshape(-1)


def group_weights(layer: Layer, ops: LayerOperands) -> tuple[np.ndarray, ...]:
    """The ``K x N`` GEMM-view weight matrix of every group of ``layer`` (views, no copies)."""
    matrix = weight_matrix(layer, ops.weights)
    if not isinstance(layer, ConvLayer):
        return (matrix,)
    ng = layer.out_channels // layer.groups
    return tuple(matrix[:, i * ng:(i + 1) * ng] for i in range(layer.groups))


def layer_work(layer: Layer, ops: LayerOperands) -> tuple[GroupWork, ...]:
    """The work of every group of ``layer`` (GEMM layers have one group)."""
    weights = group_weights(layer, ops)
    if not isinstance(layer, ConvLayer):
        return (GroupWork(m=layer.m, weights=weights[0], act_nonzero=(ops.inputs != 0).sum(axis=0)),)
    m = layer.out_h * layer.out_w * layer.batch
    return tuple(GroupWork(m=m, weights=w, act_nonzero=conv_act_nonzero(layer, ops.inputs, i))
                 for i, w in enumerate(weights))
