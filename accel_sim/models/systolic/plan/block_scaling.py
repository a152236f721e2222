"""Block-scaled operands (OCP MX, NVFP4) on the systolic array: element width, block of K, the checks.

With ``systolic.block_format`` set, the ifmap and filter operands are the format's elements
(:mod:`accel_sim.foundations.compress.quantization.microscaling`) plus an 8-bit scale (E8M0 for MX,
E4M3 for NVFP4) per ``block`` elements along the reduction K; the output is ``word_bits`` wide. The
array still does one MAC per PE per cycle (the multipliers are narrower); each output's partial sum
takes one scale application per block of K (an exponent add for E8M0, an 8-bit multiply for E4M3,
and an alignment shift). The block must divide the layer's K; block-scaled layers run without N:M.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.compress.quantization.microscaling import block_format
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import Layer
from accel_sim.models.systolic.spec import SystolicSpec

SCALE_BITS = 8


@dataclass(frozen=True)
class SystolicBlockScaling:
    element_bits: int
    integer: bool
    block: int
    scale_kind: str     # "e8m0" or "e4m3"

    def scales(self, elements: int) -> int:
        """Scales that travel with ``elements`` operand elements (whole blocks of K)."""
        return elements // self.block


def block_scaling(spec: SystolicSpec, layer: Layer) -> SystolicBlockScaling | None:
    """The layer's block-scaled operand format, None for ``block_format: none``; InputError when the block
    does not divide K or the layer also asks for N:M sparsity."""
    if spec.block_format == "none":
        return None
    fmt, default_block, scale_kind = block_format(spec.block_format)
    block = spec.block_size or default_block
    k = layer.gemm().k
    if k % block:
        raise InputError.single(layer.name, "k", f"systolic.block_size {block} ({spec.block_format}) must divide "
                                f"the layer's reduction length, got k = {k}")
    if spec.nm_sparsity and layer.weight_sparsity is not None:
        raise InputError.single(layer.name, "weight_sparsity", f"block-scaled operands ({spec.block_format}) "
                                "run dense; drop weight_sparsity or set systolic.nm_sparsity: false")
    return SystolicBlockScaling(fmt.bits, fmt.is_integer, block, scale_kind)
