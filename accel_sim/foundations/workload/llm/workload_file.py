"""Write an inference step of a Hugging Face config as a workload YAML (``accel-sim import-hf``)."""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import BatchedGemmLayer, NetworkLayer, VectorLayer
from accel_sim.foundations.workload.llm.compression import DENSE, Compression
from accel_sim.foundations.workload.llm.generator import (
    InferenceStep,
    attention_span,
    describe,
    transformer_network,
)
from accel_sim.foundations.workload.llm.hf_config import TransformerConfig, read_hf_config

KV_CACHE_LAYERS = ("attn_score", "attn_context", "attn_decode")  # their k x n operand is the K / V cache (attn_decode: both)
KV_APPEND_LAYERS = ("attn_k", "attn_v")           # their output is appended to the cache
FUSED_QKV_LAYER = "attn_qkv"                      # its output's K / V columns are appended to the cache


@dataclass(frozen=True)
class StepElements:
    """Elements one step moves, by role (multiply by the element width for bytes)."""

    macs: int
    weights: int      # k x n operands that are model weights
    kv_read: int      # k x n operands of the attention GEMMs: the K and V caches
    kv_append: int    # outputs of attn_k / attn_v (or attn_qkv's K / V columns): the new tokens' K and V

    @classmethod
    def of(cls, layers: tuple[NetworkLayer, ...], config: TransformerConfig | None = None) -> StepElements:
        """``config`` (needed when a layer is ``attn_qkv``): the share of its output columns that are K and V."""
        kv_share = (2 * config.kv_heads / (config.heads + 2 * config.kv_heads)) if config is not None else 0.0
        fused = sum(layer.output_elements for layer in layers if layer.name.endswith(FUSED_QKV_LAYER))
        return cls(macs=sum(layer.macs for layer in layers),
                   weights=sum(layer.weight_elements for layer in layers if not layer.name.endswith(KV_CACHE_LAYERS)),
                   kv_read=sum(layer.weight_elements for layer in layers if layer.name.endswith(KV_CACHE_LAYERS)),
                   kv_append=sum(layer.output_elements for layer in layers if layer.name.endswith(KV_APPEND_LAYERS))
                   + round(fused * kv_share))


@dataclass(frozen=True)
class WrittenWorkload:
    path: Path
    description: str
    layers: int
    macs: int


def write_llm_workload(config_path: str | Path, step: InferenceStep, out_dir: str | Path, name: str | None = None,
                       before_write: Callable[[], object] | None = None,
                       compression: Compression = DENSE) -> WrittenWorkload:
    """Read the config, generate the step (weights and KV cache as ``compression`` says) and
    write ``<out_dir>/<name>.yaml``.

    Everything is checked before anything is written; ``before_write`` (e.g. creating the
    checked output folder) runs just before the file is written."""
    config = read_hf_config(config_path)
    network = transformer_network(config, step, compression)
    layers = network.layers
    name = re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_") if name else network.name
    if not name:
        raise InputError.single("--name", "", "give a name with letters or digits")
    if before_write is not None:
        before_write()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.yaml"
    path.write_text(render(config, step, layers, name, compression), encoding="utf-8")
    return WrittenWorkload(path, describe(config, step, compression), len(layers), sum(layer.macs for layer in layers))


def _options(layer: NetworkLayer) -> str:
    """The compression fields of a GEMM entry (empty when dense at the word width)."""
    parts = []
    if layer.weight_sparsity is not None:
        parts.append(f"weight_sparsity: '{layer.weight_sparsity}', weight_pattern: {layer.operands.weight_pattern}")
    elif layer.weight_density < 1.0:
        parts.append(f"weight_density: {layer.weight_density:g}")
    if layer.quantized_weight_bits is not None:
        parts.append(f"quantized_weight_bits: {layer.quantized_weight_bits}")
    if layer.precision is not None:
        parts.append(f"precision: {layer.precision}")
    if layer.quant_group_size is not None:
        parts.append(f"quant_group_size: {layer.quant_group_size}")
    if layer.quant_scale_bits is not None:
        parts.append(f"quant_scale_bits: {layer.quant_scale_bits}")
    return "".join(", " + part for part in parts)


def render(config: TransformerConfig, step: InferenceStep, layers: tuple[NetworkLayer, ...], name: str,
           compression: Compression = DENSE) -> str:
    elements = StepElements.of(layers, config)
    append = "attn_qkv's K / V columns" if step.fused_qkv else "attn_k / attn_v outputs"
    attention = ("MHA" if config.kv_heads == config.heads else "MQA" if config.kv_heads == 1
                 else f"GQA, {config.group_size} query heads per KV head")
    mlp = (f"MoE, {config.experts} experts, top {config.experts_per_token}" if config.experts
           else "gated (gate, up, down)" if config.gated_mlp else "up, down")
    header = [
        f"# {describe(config, step, compression)}.",
        f"# Generated by `accel-sim import-hf` from {config.source} (model_type {config.model_type}):",
        f"#   hidden {config.hidden}, {config.heads} heads of {config.head_dim} ({attention}), {config.kv_heads} KV heads,",
        f"#   intermediate {config.intermediate} ({mlp}, activation {config.activation}), {config.layers} layers, "
        f"vocabulary {config.vocab}.",
        f"# Attention spans {attention_span(config, step)} positions. Layer roles, shapes and assumptions: "
        "accel_sim/foundations/workload/llm/generator.py.",
        "# batched_gemm layers run their instances (sequence x KV head) one after the other, each with its own",
        "# operands; their k x n operand is the K / V cache, so its DRAM reads are the KV-cache reads.",
        f"# Per step: {elements.macs:,} MACs; k x n operand elements: weights {elements.weights:,}, "
        f"KV cache read {elements.kv_read:,};",
        f"# KV append ({append}) {elements.kv_append:,} elements.",
        "# vector layers (norms, rotary, softmax, activations, residuals: m rows of n elements) run on the",
        "# arch's vector unit; one with launches: false runs inside the next one's kernel (fused element-wise",
        "# operators: one kernel launch per run between matrix kernels). Not simulated: embeddings,",
        "# positional-embedding additions, biases.",
    ]
    body = [f"name: {name}", f"description: {json.dumps(describe(config, step, compression))}",
            f"source: {json.dumps(f'Hugging Face config {Path(config.source).as_posix()} (accel-sim import-hf)')}",
            "# device memory beyond the layers: the batch (the KV cache and activations scale with it) and the",
            "# parameters no layer reads (embeddings, norm gains); a run that does not fit its device is refused",
            f"memory: {{batch: {step.batch}, other_weight_elements: {config.unsimulated_parameters}}}",
            "layers:"]
    for layer in layers:
        if isinstance(layer, VectorLayer):
            fused = "" if layer.launches else ", launches: false"
            body.append(f"  - {{name: {layer.name}, type: vector, op: {layer.op}, m: {layer.rows}, n: {layer.width}"
                        f"{fused}}}")
        elif isinstance(layer, BatchedGemmLayer):
            body.append(f"  - {{name: {layer.name}, type: batched_gemm, instances: {layer.instances}, "
                        f"m: {layer.m}, k: {layer.k}, n: {layer.n}{_options(layer)}}}")
        else:
            body.append(f"  - {{name: {layer.name}, type: gemm, m: {layer.m}, k: {layer.k}, n: {layer.n}{_options(layer)}}}")
    return "\n".join(header + body) + "\n"
