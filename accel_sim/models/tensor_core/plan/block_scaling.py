"""Block-scaled operands (OCP MX, NVFP4): narrow elements, one scale per block of K, the scale multiply.

With ``tensor_core.block_format`` set, A (weights) and B (activations) are stored as the format's
elements (:mod:`accel_sim.foundations.compress.quantization.microscaling`): ``element_bits`` each plus an
8-bit scale (E8M0 for MX, E4M3 for NVFP4) per ``block`` elements along K, per row of A and per
column of B. Scales ride with their elements at every level (DRAM, L2, shared memory, registers).
The MMA is the block-scaled one of PTX (``mma.sync ... .kind::mxf8f6f4 / mxf4 / mxf4nvf4
.block_scale``, PTX ISA 8.7): the tensor core multiplies elements on multipliers of the element
width at that width's rate (``fp8_ / fp6_ / fp4_macs_per_cycle``, from the arch's datasheet), so
an MMA of the same cycles covers ``rate / dense rate`` times the K of the word-width one; each
block's partial sum of a C element is then scaled by the product of its A and B scales (an
exponent add for E8M0 scales, an E4M3 multiply for NVFP4's) and aligned to the accumulator (a
shift), one scale application per C element per block. NVFP4's per-tensor FP32 scale is one
multiply per output in the epilogue, a kernel argument, not streamed.

Policy: the block must divide the layer's reduction ``k`` and every kernel's stage ``k``
(otherwise a block would straddle a stage or the end of K: an :class:`InputError`, or the kernel is
not eligible); block-scaled layers run dense (a layer declaring 2:4 weights is refused).
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.compress.quantization.microscaling import block_format
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import Layer
from accel_sim.models.tensor_core.spec import TensorCoreSpec, narrow_mma_k

SCALE_BITS = 8          # E8M0 (MX) and E4M3 (NVFP4) scales are both one byte


@dataclass(frozen=True)
class BlockScaling:
    """A block-scaled GEMM's operand format and the tensor core's rate for it."""

    name: str
    element_bits: int
    integer: bool          # MXINT8: integer multipliers
    block: int             # elements of K per scale
    scale_kind: str        # "e8m0" (exponent add) or "e4m3" (multiply)
    macs_per_cycle: int    # per tensor core, at the element width
    mma_k: int             # K one block-scaled MMA covers (same cycles as the word-width MMA)

    def scales(self, elements: int) -> int:
        """Scales of ``elements`` consecutive K positions (whole blocks: the plan checked divisibility)."""
        return elements // self.block


def _rate(spec: TensorCoreSpec, bits: int) -> tuple[int, str]:
    if bits == 8:
        return spec.fp8_macs_per_cycle, "fp8_macs_per_cycle"
    if bits == 6:
        return spec.fp6_macs_per_cycle, "fp6_macs_per_cycle"
    return spec.fp4_macs_per_cycle, "fp4_macs_per_cycle"


def block_scaling(spec: TensorCoreSpec, arch_name: str) -> BlockScaling | None:
    """The arch's block-scaled operand format, None for ``block_format: none``; an InputError when the
    tensor core has no rate for the element width or the MMA's K is not whole blocks."""
    if spec.block_format == "none":
        return None
    fmt, default_block, scale_kind = block_format(spec.block_format)
    block = spec.block_size or default_block
    rate, field = _rate(spec, fmt.bits)
    if rate == 0:
        raise InputError.single(arch_name, f"tensor_core.{field}", f"block_format {spec.block_format} needs the "
                                f"tensor core's {fmt.bits}-bit rate (dense MACs per cycle per tensor core, > 0)")
    return BlockScaling(spec.block_format, fmt.bits, fmt.is_integer, block, scale_kind, rate,
                        narrow_mma_k(spec, arch_name, field, rate))


def check_layer(scaling: BlockScaling, layer: Layer, sparse: bool) -> None:
    """Refuse a layer whose reduction is not whole blocks, or that declares 2:4 weights."""
    k = layer.gemm().k
    if k % scaling.block:
        raise InputError.single(layer.name, "k", f"tensor_core.block_size {scaling.block} ({scaling.name}) must "
                                f"divide the layer's reduction length, got k = {k}")
    if sparse:
        raise InputError.single(layer.name, "weight_sparsity", f"block-scaled operands ({scaling.name}) run on "
                                "the dense path; drop weight_sparsity or set tensor_core.sparse_support: false")
