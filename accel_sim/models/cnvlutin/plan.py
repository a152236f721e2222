"""Plan of a Cnvlutin layer (pure numpy): how each window's activations reach the neuron lanes.

A window (one output pixel of one group) reads ``R x S`` positions x ``C`` channels. The input's
channels are split into ``L = neuron_lanes`` slices of ``ceil(C / L)`` consecutive channels
(channels padded with zeros to ``L`` slices), slice ``i`` feeding lane ``i``; the plan records,
per group, how many non-zero neurons each lane's slice holds at each input position
(``lane_nonzeros``, shape ``(batch, L, Hp, Wp)`` over the zero-padded input). A GEMM / FC layer
is a 1 x 1 convolution over ``m`` one-pixel images.

Every unit sees the same window and computes its own ``filters_per_unit`` filters, so a group's
filters run in passes of ``units x filters_per_unit`` (:attr:`CnvlutinPlan.filters_per_pass`).
The timing rules themselves are in :mod:`.fast` and :mod:`.reference`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import numpy as np

from accel_sim.foundations.arch import ArchBase
from accel_sim.models.cnvlutin.spec import CnvlutinSpec
from accel_sim.foundations.workload.layer import ConvLayer, Layer
from accel_sim.foundations.workload.operands import input_nonzero, layer_operands


@dataclass(frozen=True)
class GroupWork:
    """One convolution group: non-zero neurons per lane slice and position, and the window geometry."""

    lane_nonzeros: np.ndarray   # (batch, lanes, Hp, Wp) non-zero neurons of each lane's slice
    kernel: tuple[int, int]     # (R, S)
    stride: tuple[int, int]     # (stride_h, stride_w)
    out: tuple[int, int]        # (out_h, out_w)


@dataclass(frozen=True)
class CnvlutinPlan:
    arch: ArchBase
    spec: CnvlutinSpec
    layer: Layer
    groups: tuple[GroupWork, ...]
    channels: int                            # input channels of one group (a GEMM's k)
    slice_depth: int                         # channels per lane slice, ceil(channels / lanes)
    filters_per_pass: tuple[int, ...]        # filters of each pass over a group's windows
    operand_hashes: Mapping[str, str]


def lane_nonzeros(padded: np.ndarray, lanes: int) -> np.ndarray:
    """Non-zero neurons of each lane's channel slice at each position: ``(batch, lanes, Hp, Wp)``."""
    batch, c, hp, wp = padded.shape
    slice_depth = math.ceil(c / lanes)
    full = np.zeros((batch, slice_depth * lanes, hp, wp), dtype=np.int64)
    full[:, :c] = padded
    return full.reshape(batch, lanes, slice_depth, hp, wp).sum(axis=2)


def plan(arch: ArchBase, layer: Layer) -> CnvlutinPlan:
    spec: CnvlutinSpec = arch.section("cnvlutin")
    ops = layer_operands(layer)
    conv = isinstance(layer, ConvLayer)
    kernel = (layer.kernel_h, layer.kernel_w) if conv else (1, 1)
    stride = (layer.stride_h, layer.stride_w) if conv else (1, 1)
    out = (layer.out_h, layer.out_w) if conv else (1, 1)
    groups = tuple(GroupWork(lane_nonzeros(input_nonzero(layer, ops.inputs, g), spec.neuron_lanes), kernel, stride, out)
                   for g in range(layer.groups))
    filters = layer.gemm().n
    per_pass = spec.units * spec.filters_per_unit
    passes = tuple(min(per_pass, filters - start) for start in range(0, filters, per_pass))
    channels = layer.in_channels // layer.groups if conv else layer.gemm().k
    return CnvlutinPlan(arch, spec, layer, groups, channels, math.ceil(channels / spec.neuron_lanes), passes,
                        MappingProxyType(dict(ops.hashes)))
