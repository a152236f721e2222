"""Block-scaled operands (OCP MX, NVFP4) on the systolic array: element width, block of K, the checks.

With ``systolic.block_format`` set, the ifmap and filter operands are the format's elements
(:mod:`accel_sim.foundations.compress.quantization.microscaling`) plus an 8-bit scale (E8M0 for MX,
E4M3 for NVFP4) per ``block`` elements along the reduction K; the output is ``word_bits`` wide. By
default the array still does one MAC per PE per cycle (the multipliers are narrower); with
``systolic.elements_per_pe`` = p each PE word packs p elements along K and the PE does their p products
per cycle (:mod:`.mapping`). Each output's partial sum takes one scale application per block of K (an
exponent add for E8M0, an 8-bit multiply for E4M3, and an alignment shift). The block must divide the
layer's K (and p the block, p x the element width fit ``word_bits``); block-scaled layers run without N:M.
``block_format: int8`` is plain int8 elements with no block scales (their per-tensor or per-channel scales
are applied outside the array, as on TPUs): no scale traffic or applications, and p must divide K.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.compress.quantization.microscaling import block_format
from accel_sim.foundations.compress.quantization.minifloat import FORMATS
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import Layer
from accel_sim.models.systolic.spec import PLAIN_INT8, SystolicSpec

SCALE_BITS = 8


@dataclass(frozen=True)
class SystolicBlockScaling:
    element_bits: int
    integer: bool
    block: int          # elements of K per scale; 0: no block scales (plain int8)
    scale_kind: str     # "e8m0", "e4m3", or "none" (plain int8)
    packing: int = 1    # elements per PE word along K (systolic.elements_per_pe)

    def scales(self, elements: int) -> int:
        """Scales that travel with ``elements`` operand elements (whole blocks of K; none for plain int8)."""
        return elements // self.block if self.block else 0


def block_scaling(spec: SystolicSpec, layer: Layer, word_bits: int) -> SystolicBlockScaling | None:
    """The layer's block-scaled operand format, None for ``block_format: none``; InputError when the block
    does not divide K, the layer also asks for N:M sparsity, or the packed elements do not fit a word."""
    if spec.block_format == "none":
        return None
    if spec.block_format == PLAIN_INT8:
        return _plain_int8(spec, layer, word_bits)
    fmt, default_block, scale_kind = block_format(spec.block_format)
    block = spec.block_size or default_block
    k = layer.gemm().k
    if k % block:
        raise InputError.single(layer.name, "k", f"systolic.block_size {block} ({spec.block_format}) must divide "
                                f"the layer's reduction length, got k = {k}")
    if spec.nm_sparsity and layer.weight_sparsity is not None:
        raise InputError.single(layer.name, "weight_sparsity", f"block-scaled operands ({spec.block_format}) "
                                "run dense; drop weight_sparsity or set systolic.nm_sparsity: false")
    pack = spec.elements_per_pe
    if block % pack or pack * fmt.bits > word_bits:
        raise InputError.single(layer.name, "systolic.elements_per_pe", f"{pack} elements of {fmt.bits} bits "
                                f"({spec.block_format}) per PE word: must divide the block ({block}) and fit "
                                f"word_bits ({word_bits})")
    return SystolicBlockScaling(fmt.bits, fmt.is_integer, block, scale_kind, pack)


def _plain_int8(spec: SystolicSpec, layer: Layer, word_bits: int) -> SystolicBlockScaling:
    """Plain int8 operands (``block_format: int8``): 8-bit elements, no block scales; p packed elements per word
    must divide K (a partly filled last word would issue MACs on nothing) and fit ``word_bits``."""
    fmt, pack, k = FORMATS["int8"], spec.elements_per_pe, layer.gemm().k
    if spec.nm_sparsity and layer.weight_sparsity is not None:
        raise InputError.single(layer.name, "weight_sparsity", "packed int8 operands run dense; drop "
                                "weight_sparsity or set systolic.nm_sparsity: false")
    if k % pack or pack * fmt.bits > word_bits:
        raise InputError.single(layer.name, "systolic.elements_per_pe", f"{pack} int8 elements per PE word: must "
                                f"divide the layer's reduction length (k = {k}) and fit word_bits ({word_bits})")
    return SystolicBlockScaling(fmt.bits, fmt.is_integer, 0, "none", pack)
