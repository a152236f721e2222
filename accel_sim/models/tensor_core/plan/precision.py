"""A layer's MMA precision: W8A8 (``precision: int8``) and FP8 (``precision: fp8``, E4M3) GEMMs.

A layer asking for ``int8`` or ``fp8`` stores its weights (A) and its activations (B) as 8-bit elements
(INT8 as SmoothQuant quantizes them; FP8 E4M3) and multiplies them on the tensor core's 8-bit path at that
path's rate (``int8_macs_per_cycle`` / ``fp8_macs_per_cycle``, from the arch's datasheet): an MMA of the word
MMA's cycles covers ``rate / dense rate`` times its K (PTX ``mma.sync.m16n8k32.s8`` on Ampere; the 2:4 one
twice that). The accumulator is INT32 / FP32 and C leaves at the arch's word width (FP16 / BF16 output).

Scales (TensorRT-LLM ``tensorrt_llm/quantization/layers.py``, ``SmoothQuantLinear``: ``per_channel_scale`` of
shape (1, out_features), float32, and a float32 ``per_token_scale`` per row of the input; the FP8 rowwise
recipe keeps the same two): one fp32 scale per A row (output channel) and one per B column (token), each
moved with its operand through DRAM, L2 and shared memory (:class:`.problem.ElementBits`, as group-wise scales
are, spread over the K stages), and applied once per output element in the epilogue (two fp32 multiplies).

Policy: a precision the tensor core has no rate for (``fp8`` on an A100: ``fp8_macs_per_cycle: 0``) is refused
naming the field; so is a precision other than int8 / fp8, and int8 / fp8 with group-wise scales, another
weight width or a block-scaled arch (``block_format``).
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import Layer
from accel_sim.models.tensor_core.spec import TensorCoreSpec, narrow_mma_k

ELEMENT_BITS = 8       # INT8 and FP8 E4M3 operands
SCALE_BITS = 32        # fp32 per-channel (weight) and per-token (activation) scales
# precision: (rate field of the spec, integer multipliers)
LAYER_PRECISIONS = {"int8": ("int8_macs_per_cycle", True), "fp8": ("fp8_macs_per_cycle", False)}


@dataclass(frozen=True)
class LayerPrecision:
    """An 8-bit GEMM's precision and the tensor core's rate for it."""

    name: str
    integer: bool
    macs_per_cycle: int    # per tensor core, dense
    mma_k: int             # K one 8-bit MMA covers (same cycles as the word-width MMA)
    element_bits: int = ELEMENT_BITS
    scale_bits: int = SCALE_BITS


def layer_precision(spec: TensorCoreSpec, arch_name: str, layer: Layer) -> LayerPrecision | None:
    """The layer's 8-bit precision, None without ``precision``; an InputError for one the core lacks."""
    name = getattr(layer, "precision", None)
    if name is None:
        return None
    if name not in LAYER_PRECISIONS:
        raise InputError.single(layer.name, "precision", f"the tensor core runs int8 (W8A8) or fp8 (E4M3) layers, "
                                f"got {name} (leave precision out to run at the arch's word)")
    field, integer = LAYER_PRECISIONS[name]
    rate = getattr(spec, field)
    if rate == 0:
        raise InputError.single(arch_name, f"tensor_core.{field}", f"0: this tensor core has no {name} path "
                                f"(layer {layer.name} asks for precision {name})")
    mma_k = narrow_mma_k(spec, arch_name, field, rate)
    if spec.block_format != "none":
        raise InputError.single(layer.name, "precision", f"{name} on a block-scaled arch (tensor_core.block_format "
                                f"{spec.block_format}): leave one of them out")
    if getattr(layer, "quant_group_size", None) is not None:
        raise InputError.single(layer.name, "quant_group_size", f"precision {name} carries per-channel and "
                                "per-token scales; leave quant_group_size out")
    bits = getattr(layer, "quantized_weight_bits", None)
    if bits not in (None, ELEMENT_BITS):
        raise InputError.single(layer.name, "quantized_weight_bits", f"precision {name} stores 8-bit weights, "
                                f"got {bits}")
    return LayerPrecision(name, integer, rate, mma_k)
