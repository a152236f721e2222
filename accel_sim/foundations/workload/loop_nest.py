"""A layer as the loop nest of the Eyeriss papers' Table I (Chen et al., ISCA 2016 / JSSC 2017), per group:
the letters dataflow papers and mappers use. A GEMM / fully connected layer is a 1 x 1 convolution."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.workload.layer import ConvLayer, Layer


@dataclass(frozen=True)
class LoopNest:
    images: int        # N
    channels: int      # C of one group
    filters: int       # M of one group
    groups: int        # G
    height: int        # H, padded
    width: int         # W, padded
    filter_rows: int   # R
    filter_cols: int   # S
    out_rows: int      # E
    out_cols: int      # F
    stride: int        # U (vertical)
    stride_w: int      # horizontal stride (it sets F)


def loop_nest(layer: Layer) -> LoopNest:
    """``layer``'s loop nest, per group; a GEMM's M x K x N as N = m images of one pixel."""
    if isinstance(layer, ConvLayer):
        return LoopNest(layer.batch, layer.in_channels // layer.groups, layer.out_channels // layer.groups,
                        layer.groups, layer.in_h + layer.pad_top + layer.pad_bottom,
                        layer.in_w + layer.pad_left + layer.pad_right, layer.kernel_h, layer.kernel_w,
                        layer.out_h, layer.out_w, layer.stride_h, layer.stride_w)
    gemm = layer.gemm()
    return LoopNest(gemm.m, gemm.k, gemm.n, gemm.groups, 1, 1, 1, 1, 1, 1, 1, 1)
