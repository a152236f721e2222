"""Sparse and low-precision variants of an LLM step: 2:4 or unstructured weights, weight-only
INT8 / INT4 (any width), a quantized KV cache.

:class:`Compression` rewrites the layers of :func:`~accel_sim.foundations.workload.llm.generator.transformer_layers`:

- the weight GEMMs of every block (``attn_q / k / v / o`` or ``attn_qkv``, ``mlp_*``, MoE experts) get the weight
  pattern (``2:4``: ``weight_sparsity 2:4`` with N:M-pruned generated weights; ``unstructured:D``:
  magnitude-pruned to density D) and ``quantized_weight_bits`` (stored narrow, dequantized to
  the arch's word before the multiply, as weight-only kernels do). The LM head, OPT's
  projections and the MoE router stay dense at the word width, as SparseGPT, Wanda, GPTQ and AWQ
  leave them; ``lm_head`` (``--quantize-lm-head``) quantizes the LM head too (never prunes it), as
  gpt-fast's ``replace_linear_int4`` / ``WeightOnlyInt8QuantHandler`` and torchao's ``quantize_`` do (they replace
  every ``nn.Linear``);
- the attention GEMMs whose k x n operand is the K / V cache (``attn_score``, ``attn_context``)
  get ``quantized_weight_bits = kv_bits`` (an INT8 KV cache); the KV cache is never pruned.

With a ``group_size`` (``--group-size``) the quantized block weights also carry group-wise scales
(``quant_group_size``: one scale and zero point per ``group_size`` weights along k of an output column, 32 bits
by default as tinygemm's bf16 ``scales_and_zeros``; 0.5 bit a weight at 64, 0.25 at 128); without one, none are
counted.

With a ``precision`` (``--precision int8 | fp8``) the quantized block weights run as W8A8 GEMMs: weights and
activations both 8-bit (``int8``: SmoothQuant's INT8; ``fp8``: E4M3), the layer's ``precision`` field with
``quantized_weight_bits: 8``, on the tensor core's 8-bit path with one fp32 scale per output channel and per token
(TensorRT-LLM's SmoothQuant and FP8 rowwise recipes). The attention GEMMs over the KV cache stay at the word
width (``--kv-bits`` stores the cache narrower).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import MAX_SCALE_BITS, MAX_STORED_BITS, NetworkLayer, NMSparsity, VectorLayer

WEIGHT_PATTERNS = ("dense", "2:4", "unstructured")
KV_LAYERS = ("attn_score", "attn_context", "attn_decode")
UNCOMPRESSED = ("lm_head", "project_in", "project_out", "moe_router")
GEMM_PRECISIONS = ("int8", "fp8")     # --precision: W8A8 (INT8) and FP8 (E4M3) weights and activations
PRECISION_LABELS = {"int8": "w8a8", "fp8": "fp8"}


@dataclass(frozen=True)
class Compression:
    weights: str = "dense"              # dense, 2:4 or unstructured
    weight_density: float = 1.0         # unstructured: fraction of weights kept
    weight_bits: int | None = None      # stored width of block weights (None: the arch's word)
    kv_bits: int | None = None          # stored width of the K / V cache (None: the arch's word)
    group_size: int | None = None       # quantized block weights: weights per scale and zero point along k
    scale_bits: int | None = None       # bits of one group's scale and zero point (None: 32, tinygemm's)
    lm_head: bool = False               # quantize the LM head too (its weight bits and groups; never pruned)
    precision: str | None = None        # int8 (W8A8) or fp8 (E4M3): 8-bit weights and activations

    @classmethod
    def parse(cls, weights: str = "dense", weight_bits: int | None = None, kv_bits: int | None = None,
              group_size: int | None = None, scale_bits: int | None = None, lm_head: bool = False,
              precision: str | None = None) -> Compression:
        """From the ``import-hf`` options (``--weights dense | 2:4 | unstructured:0.5``); an
        :class:`InputError` naming the option if a value is wrong."""
        pattern, _, density = str(weights).partition(":") if str(weights).startswith("unstructured") else (weights, "", "")
        if pattern not in WEIGHT_PATTERNS:
            raise InputError.single("--weights", str(weights), "expected dense, 2:4 or unstructured:D with D the "
                                    "fraction of weights kept (e.g. unstructured:0.5)")
        value = 1.0
        if pattern == "unstructured":
            try:
                value = float(density)
            except ValueError:
                value = -1.0
            if not 0.0 < value < 1.0:
                raise InputError.single("--weights", str(weights), "unstructured needs a density in (0, 1), "
                                        "e.g. unstructured:0.5")
        for option, bits in (("--weight-bits", weight_bits), ("--kv-bits", kv_bits)):
            if bits is not None and not 1 <= bits <= MAX_STORED_BITS:
                raise InputError.single(option, str(bits), f"expected a width in bits in [1, {MAX_STORED_BITS}]")
        if group_size is not None and (group_size <= 0 or not weight_bits):
            raise InputError.single("--group-size", str(group_size), "expected a positive number of weights per "
                                    "scale along k (e.g. 32, 64, 128), with --weight-bits")
        if scale_bits is not None and (group_size is None or not 1 <= scale_bits <= MAX_SCALE_BITS):
            raise InputError.single("--scale-bits", str(scale_bits), f"expected bits in [1, {MAX_SCALE_BITS}] of one "
                                    "group's scale and zero point, with --group-size")
        if precision is not None and precision not in GEMM_PRECISIONS:
            raise InputError.single("--precision", str(precision), "expected int8 (W8A8) or fp8 (E4M3 weights and "
                                    "activations)")
        if precision is not None and weight_bits is not None:
            raise InputError.single("--precision", str(precision), "stores 8-bit weights itself: leave --weight-bits "
                                    "out (--weight-bits is weight-only quantization, activations at the word width)")
        if lm_head and not (weight_bits or precision):
            raise InputError.single("--quantize-lm-head", "set", "quantizes the LM head at --weight-bits or "
                                    "--precision: give one of them too")
        return cls(pattern, value, 8 if precision else weight_bits, kv_bits, group_size, scale_bits, lm_head,
                   precision)

    @property
    def label(self) -> str:
        """Short name: dense, 2:4, w4, w4g64 (group-wise scales per 64), w8a8, fp8, 2:4+w4, unstructured0.5, ...
        plus kv8."""
        parts = [] if self.weights == "dense" else [
            "2:4" if self.weights == "2:4" else f"unstructured{self.weight_density:g}"]
        if self.precision:
            parts.append(PRECISION_LABELS[self.precision])
        elif self.weight_bits:
            parts.append(f"w{self.weight_bits}" + (f"g{self.group_size}" if self.group_size else ""))
        parts += [f"kv{self.kv_bits}"] if self.kv_bits else []
        parts += ["head"] if self.lm_head else []
        return "+".join(parts) or "dense"

    def apply(self, layers: tuple[NetworkLayer, ...]) -> tuple[NetworkLayer, ...]:
        return tuple(self._one(layer) for layer in layers)

    def _one(self, layer: NetworkLayer) -> NetworkLayer:
        if self.lm_head and layer.name.endswith("lm_head"):
            return self._quantized(layer)
        if isinstance(layer, VectorLayer) or layer.name.endswith(UNCOMPRESSED):
            return layer
        if layer.name.endswith(KV_LAYERS):
            return dataclasses.replace(layer, quantized_weight_bits=self.kv_bits) if self.kv_bits else layer
        layer = self._quantized(layer)
        changes: dict[str, object] = {}
        if self.weights == "2:4":
            changes.update(weight_sparsity=NMSparsity(2, 4),
                           operands=dataclasses.replace(layer.operands, weight_pattern="nm"))
        elif self.weights == "unstructured":
            changes.update(weight_density=self.weight_density,
                           operands=dataclasses.replace(layer.operands, weight_pattern="unstructured"))
        return dataclasses.replace(layer, **changes) if changes else layer

    def _quantized(self, layer: NetworkLayer) -> NetworkLayer:
        """``layer`` with the weight width and group-wise scales (no change without them)."""
        changes: dict[str, object] = {}
        if self.weight_bits:
            changes["quantized_weight_bits"] = self.weight_bits
        if self.precision:
            changes["precision"] = self.precision
        if self.group_size:
            if layer.gemm().k % self.group_size:
                raise InputError.single("--group-size", str(self.group_size), f"must divide the reduction length "
                                        f"of {layer.name} (k = {layer.gemm().k})")
            changes.update(quant_group_size=self.group_size, quant_scale_bits=self.scale_bits)
        return dataclasses.replace(layer, **changes) if changes else layer


DENSE = Compression()
