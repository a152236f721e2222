"""Plan of a PE-array layer (pure numpy): the operands, their encoding and the buffer residency.

Organisation (output stationary): ``rows`` x ``cols`` PEs; a tile is ``rows`` filters x
``cols`` output pixels; each PE row shares one filter's weight stream and each PE column holds
one output pixel. Tiles run filter tile by filter tile (outer), pixel tile by pixel tile
(inner); groups of a grouped convolution run one after the other. The plan holds, per group,
the operands (:mod:`.operands`), the weights' footprint in ``weight_format``
(:mod:`.decoder`, every level but ``none``) and which operands stay in their buffers
(:mod:`.memory`). The timing and counting rules are in :mod:`..fast` and :mod:`..reference`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

import numpy as np

from accel_sim.foundations.arch import ArchBase
from accel_sim.models.pe_array.plan.decoder import check_nm, footprint
from accel_sim.models.pe_array.plan.memory import inputs_resident, weights_resident
from accel_sim.models.pe_array.plan.operands import group_inputs, group_weights
from accel_sim.models.pe_array.spec import PEArraySpec
from accel_sim.foundations.workload.layer import ConvLayer, Layer
from accel_sim.foundations.workload.operands import input_nonzero, layer_operands


@dataclass(frozen=True, eq=False)
class GroupPlan:
    """One group of a layer on the array."""

    weights: np.ndarray          # (K, N) GEMM-view weights, rows ordered (c, r, s)
    input_nonzero: np.ndarray    # (batch, C/g, Hp, Wp) non-zero mask of the zero-padded input
    kernel: tuple[int, int]      # (R, S)
    stride: tuple[int, int]      # (stride_h, stride_w)
    out: tuple[int, int]         # (out_h, out_w)
    input_words: int             # input elements in DRAM (unpadded)
    weight_bits: int             # weight footprint: compressed in weight_format, or dense
    index_bits: int              # of which indices, pointers and metadata
    filter_tiles: int            # ceil(N / rows)
    pixel_tiles: int             # ceil(M / cols)
    weights_resident: bool       # fetched from DRAM once (else once per pixel tile)
    inputs_resident: bool        # fetched from DRAM once (else once per filter tile)

    @property
    def k(self) -> int:
        return self.weights.shape[0]

    @property
    def n(self) -> int:
        return self.weights.shape[1]

    @property
    def m(self) -> int:
        return self.input_nonzero.shape[0] * self.out[0] * self.out[1]


@dataclass(frozen=True)
class PEArrayPlan:
    arch: ArchBase
    spec: PEArraySpec
    layer: Layer
    groups: tuple[GroupPlan, ...]
    operand_hashes: Mapping[str, str]


@lru_cache(maxsize=32)
def _footprints(layer: Layer, weight_format: str, nm_n: int, nm_m: int, word_bits: int) -> tuple[tuple[int, int], ...]:
    """Per group: (total, index) bits of its compressed weights (cached: the levels of a ladder share them)."""
    fmt = PEArraySpec(weight_format=weight_format, nm_n=nm_n, nm_m=nm_m)
    return tuple(footprint(fmt, w, word_bits) for w in group_weights(layer, layer_operands(layer)))


def plan(arch: ArchBase, layer: Layer) -> PEArrayPlan:
    spec: PEArraySpec = arch.section("pe_array")
    word = arch.word_bits
    weight_word = layer.quantized_weight_bits or word  # weight-only quantization: weights stored narrower
    ops = layer_operands(layer)
    conv = isinstance(layer, ConvLayer)
    kernel = (layer.kernel_h, layer.kernel_w) if conv else (1, 1)
    stride = (layer.stride_h, layer.stride_w) if conv else (1, 1)
    out = (layer.out_h, layer.out_w) if conv else (1, 1)
    weights = group_weights(layer, ops)
    if spec.compressed:
        if spec.weight_format == "nm":
            for w in weights:
                check_nm(spec, w, layer.name)
        stored = _footprints(layer, spec.weight_format, spec.nm_n, spec.nm_m, weight_word)
    else:
        stored = tuple((w.size * weight_word, 0) for w in weights)
    inputs = group_inputs(layer)
    groups = []
    for g, (w, (weight_bits, index_bits)) in enumerate(zip(weights, stored)):
        nonzero = input_nonzero(layer, ops.inputs, g)
        filter_tiles = math.ceil(w.shape[1] / spec.rows)
        pixel_tiles = math.ceil(nonzero.shape[0] * out[0] * out[1] / spec.cols)
        groups.append(GroupPlan(
            weights=w, input_nonzero=nonzero, kernel=kernel, stride=stride, out=out, input_words=inputs,
            weight_bits=weight_bits, index_bits=index_bits, filter_tiles=filter_tiles, pixel_tiles=pixel_tiles,
            weights_resident=weights_resident(spec, weight_bits, filter_tiles),
            inputs_resident=inputs_resident(spec, inputs * word)))
    return PEArrayPlan(arch, spec, layer, tuple(groups), MappingProxyType(dict(ops.hashes)))
