"""Plan (pure): the non-zero activations of every input row of a GEMM layer, in order.

The fetcher reads one non-zero activation per cycle into the FIFO; the lanes take each one and
multiply it by the ``n`` weights of its weight row, ``lanes`` at a time: ``ceil(n / lanes)``
cycles per activation.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.workload.layer import Layer
from accel_sim.foundations.workload.operands import layer_operands
from accel_sim.models.skipper.spec import SkipperSpec


@dataclass(frozen=True)
class SkipperPlan:
    arch: ArchBase
    spec: SkipperSpec
    layer: Layer
    nonzeros_per_row: np.ndarray     # (m,) non-zero activations of each input row
    cycles_per_activation: int       # ceil(n / lanes)
    operand_hashes: Mapping[str, str]


def plan(arch: ArchBase, layer: Layer) -> SkipperPlan:
    spec: SkipperSpec = arch.section("skipper")
    ops = layer_operands(layer)
    gemm = layer.gemm()
    rows = np.count_nonzero(ops.inputs.reshape(gemm.m, gemm.k), axis=1)
    return SkipperPlan(arch, spec, layer, rows, math.ceil(gemm.n / spec.lanes), ops.hashes)
