"""The matrix products of one transformer inference step: prefill of L tokens or decode of one.

:func:`transformer_layers` turns a :class:`~accel_sim.foundations.workload.llm.hf_config.TransformerConfig`
and an :class:`InferenceStep` into workload layers, per transformer block ``lNN_``:

==================  ==============  ==================================  =====================
layer               kind            shape (m x k @ k x n)               k x n operand
==================  ==============  ==================================  =====================
attn_q              gemm            B*q x hidden @ hidden x H*d         weights
attn_k, attn_v      gemm            B*q x hidden @ hidden x KV*d        weights; the output is
                                                                        the KV-cache append
attn_qkv            gemm            B*q x hidden @ hidden x (H+2KV)*d   weights (``fused_qkv``:
                                                                        replaces the three above)
attn_score          batched_gemm    B*KV instances of q*g x d @ d x S   the K cache (K^T)
attn_context        batched_gemm    B*KV instances of q*g x S @ S x d   the V cache
attn_decode         batched_gemm    B*KV instances of g x 2S @ 2S x d   K and V stacked (fused
                                                                        decode attention)
attn_o              gemm            B*q x H*d @ H*d x hidden            weights
mlp_gate, mlp_up    gemm            B*q x hidden @ hidden x I           weights (gate: gated
                                                                        MLPs such as SwiGLU)
mlp_down            gemm            B*q x I @ I x hidden                weights
==================  ==============  ==================================  =====================

``fused_qkv`` (:class:`InferenceStep`) runs the q, k and v projections as one GEMM of their weights
concatenated along n, as engines that fuse them do (gpt-fast's ``model.py`` ``Attention.wqkv``, an
``nn.Linear(dim, (n_head + 2 * n_local_heads) * head_dim)`` whose output is split; TensorRT-LLM's
``tensorrt_llm/models/llama`` ``Attention``, one ``ColumnLinear`` ``qkv``): the same MACs and weights as the
three, one kernel instead of three; the K / V part of its output is the KV-cache append.

then ``lm_head`` (B x hidden @ hidden x vocab: the next token of each sequence) for decoders.
B is the batch, q the tokens per sequence in this step (prefill: L; decode: 1), H / KV the
query / KV heads, g = H / KV the query heads that share a KV head, d the head dimension, I
the intermediate size, S the positions attended to (prefill: L; decode: the context T, or
the sliding window if smaller).

Attention is one GEMM per (sequence, KV head) with its own operands: the g query heads that
share a KV head are stacked into m (as grouped-query decode kernels do), so the K / V cache
of a head is one operand read once. The KV-cache traffic is therefore the DRAM traffic the
families already count: reads are the score / context GEMMs' k x n operand, the append is
the attn_k / attn_v output written. Decode attends to T positions: the new token's K / V is
appended first and then read with the rest (T - 1 cached + 1 new). Prefill computes the full
L x L scores (causal and sliding-window masks are not exploited, as a dense kernel does).

Mixture-of-experts blocks (Mixtral) replace the MLP by ``moe_router`` (B*q x hidden @ hidden
x E) and the experts as batched GEMMs: the B*q*top_k (token, expert) pairs are spread evenly
over the E experts (an assumption: real routing is data-dependent), so ``r`` experts get
``c + 1`` tokens and the others ``c`` (``c, r = divmod(B*q*top_k, E)``), one batched GEMM per
token count. OPT configs whose word embeddings are narrower than the hidden size get
``project_in`` / ``project_out``.

The non-matrix operators run on the vector unit as ``vector`` layers (rows x width), in
place: ``attn_norm`` / ``mlp_norm`` (LayerNorm or RMSNorm over hidden; before attention and
the MLP in pre-norm models, after the residual in BERT), ``attn_rotary`` (rotary models: the
B*q*(H + KV) query and key heads of d), ``attn_softmax`` (B*H*q rows of S scores, scaled),
``attn_residual`` / ``mlp_residual`` (B*q x hidden), ``mlp_act`` (after the up projection:
ReLU / GELU / SiLU over B*q x I, or SwiGLU's silu(gate) * up for gated MLPs; MoE experts
B*q*top_k x I) and ``final_norm`` (decoders, the B last positions before the LM head).
``vector_ops=False`` leaves them out (the GEMMs only).

On a GPU each vector layer that ``launches`` is a kernel and pays the vector unit's launch gap. A step that
compiles the model (``fused_elementwise``, the default: torch.compile / TorchInductor, as gpt-fast and torchao
run decode; TensorRT-LLM) fuses the element-wise and reduction operators between two matrix kernels into one
kernel, the matrix kernels (cuBLAS / CUTLASS GEMMs, tinygemm, attention) being extern kernels it does not fuse
into (:func:`fuse_elementwise`); a Llama decode block then launches 5 vector kernels (the previous block's
residual add with the attention norm, rotary, softmax, the residual add with the MLP norm, the activation; 4 with
a fused decode-attention kernel, whose softmax runs inside it). ``fused_elementwise=False``: one
kernel per vector layer, as eager PyTorch launches at least.

Not simulated: embeddings and positional-embedding additions, biases.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import (
    BatchedGemmLayer,
    GemmLayer,
    Network,
    NetworkLayer,
    ResidentMemory,
    VectorLayer,
)
from accel_sim.foundations.workload.llm.compression import DENSE, Compression
from accel_sim.foundations.workload.llm.hf_config import TransformerConfig

PHASES = ("prefill", "decode")
ATTENTION_KERNELS = ("unfused", "fused")   # decode attention: score, softmax, context; or one fused kernel
# The vector-unit op of each config activation (hf_config.ACTIVATIONS); gated MLPs use swiglu.
ACTIVATION_OPS = {"relu": "relu", "silu": "silu", "swish": "silu"}  # every gelu variant: "gelu"


@dataclass(frozen=True)
class InferenceStep:
    """One forward pass: ``prefill`` of ``context`` tokens per sequence, or ``decode`` of one
    token attending to ``context`` positions; ``batch`` sequences. ``attention``: ``fused`` runs decode
    attention as one fused kernel (``attn_decode``, :func:`attention_layers`), as serving engines do."""

    phase: str
    context: int
    batch: int = 1
    attention: str = "unfused"
    fused_qkv: bool = False      # one attn_qkv GEMM instead of attn_q, attn_k, attn_v (see the module doc)
    fused_elementwise: bool = True   # one kernel per run of vector layers between matrix kernels (fuse_elementwise)

    @property
    def tokens(self) -> int:
        """Tokens per sequence this step computes."""
        return self.context if self.phase == "prefill" else 1


def check_step(config: TransformerConfig, step: InferenceStep) -> None:
    """An :class:`InputError` naming the option (or the config key) if the step cannot run."""
    if step.phase not in PHASES:
        raise InputError.single("--phase", step.phase, f"expected one of {', '.join(PHASES)}")
    if step.context < 1:
        raise InputError.single("--context", str(step.context), "must be >= 1 (the tokens of the prompt, or the "
                                "positions the decoded token attends to)")
    if step.attention not in ATTENTION_KERNELS:
        raise InputError.single("--attention", step.attention, f"expected one of {', '.join(ATTENTION_KERNELS)}")
    if step.batch < 1:
        raise InputError.single("--batch", str(step.batch), "must be >= 1 (sequences per step)")
    if step.phase == "decode" and not config.decoder:
        raise InputError.single(config.source, "model_type", f"{config.model_type} is an encoder: it has no decode "
                                "phase (use --phase prefill)")
    if config.max_positions is not None and step.context > config.max_positions:
        raise InputError.single("--context", str(step.context), f"exceeds the {config.max_positions} positions "
                                f"the model was built for ({config.source})")


def attention_span(config: TransformerConfig, step: InferenceStep) -> int:
    """Positions each query attends to (decode: capped by a sliding window)."""
    if step.phase == "decode" and config.sliding_window is not None:
        return min(step.context, config.sliding_window)
    return step.context


def workload_name(config: TransformerConfig, step: InferenceStep) -> str:
    base = "".join(c if c.isalnum() else "_" for c in config.name.lower()).strip("_") or "model"
    fused = "_fused" if step.attention == "fused" and step.phase == "decode" else ""
    qkv = "_fusedqkv" if step.fused_qkv else ""
    eager = "" if step.fused_elementwise else "_unfusedelem"
    return f"{base}_{step.phase}_ctx{step.context}_b{step.batch}{fused}{qkv}{eager}"


def activation_op(config: TransformerConfig) -> str:
    """The vector-unit op applied after the MLP's up projection."""
    return "swiglu" if config.gated_mlp else ACTIVATION_OPS.get(config.activation, "gelu")


def transformer_layers(config: TransformerConfig, step: InferenceStep,
                       vector_ops: bool = True) -> tuple[NetworkLayer, ...]:
    """The step's layers, in execution order (see the module doc); ``vector_ops=False``: GEMMs only."""
    check_step(config, step)
    rows = step.batch * step.tokens
    d, span = config.head_dim, attention_span(config, step)
    width = len(str(config.layers - 1))
    layers: list[NetworkLayer] = []

    def norm(name: str, norm_rows: int) -> list[NetworkLayer]:
        return [VectorLayer(name, config.norm, rows=norm_rows, width=config.hidden)]

    def residual(prefix: str, where: str) -> list[NetworkLayer]:
        add: list[NetworkLayer] = [VectorLayer(f"{prefix}{where}_residual", "residual_add", rows=rows,
                                               width=config.hidden)]
        return add if config.pre_norm else add + norm(f"{prefix}{where}_norm", rows)

    if config.embed_dim is not None:
        layers.append(GemmLayer("project_in", m=rows, k=config.embed_dim, n=config.hidden))
    for index in range(config.layers):
        p = f"l{index:0{width}d}_"
        layers += norm(p + "attn_norm", rows) if config.pre_norm else []
        layers += projection_layers(config, p, rows, step.fused_qkv)
        if config.rotary:
            layers.append(VectorLayer(p + "attn_rotary", "rotary", rows=rows * (config.heads + config.kv_heads),
                                      width=d))
        layers += attention_layers(config, p, step.batch, step.tokens, span, step.attention == "fused")
        layers.append(GemmLayer(p + "attn_o", m=rows, k=config.heads * d, n=config.hidden))
        layers += residual(p, "attn")
        layers += norm(p + "mlp_norm", rows) if config.pre_norm else []
        layers += _moe(config, p, rows) if config.experts else _mlp(config, p, rows)
        layers += residual(p, "mlp")
    if config.decoder:
        last_rows = step.batch  # the last position of each sequence predicts its next token
        layers += norm("final_norm", last_rows)
        head_width = config.hidden
        if config.embed_dim is not None:
            layers.append(GemmLayer("project_out", m=last_rows, k=config.hidden, n=config.embed_dim))
            head_width = config.embed_dim
        layers.append(GemmLayer("lm_head", m=last_rows, k=head_width, n=config.vocab))
    if not vector_ops:
        return tuple(layer for layer in layers if not isinstance(layer, VectorLayer))
    return fuse_elementwise(tuple(layers)) if step.fused_elementwise else tuple(layers)


def fuse_elementwise(layers: tuple[NetworkLayer, ...]) -> tuple[NetworkLayer, ...]:
    """``layers`` as a compiler that fuses element-wise and reduction operators runs them: each maximal run of
    consecutive vector layers that launch becomes one kernel, charged to the run's last layer (the others get
    ``launches=False``). Matrix kernels (GEMMs, attention) are fusion barriers, and so is a vector layer that runs
    inside one (a fused attention kernel's softmax). Charging the last layer keeps one launch per block when a
    caller runs a block apart from its neighbours (:mod:`accel_sim.systems.serving.step`): the run that joins a
    block's ``mlp_residual`` to the next block's ``attn_norm`` is charged to the ``attn_norm``."""
    def joins_next(index: int) -> bool:
        here, after = layers[index], layers[index + 1] if index + 1 < len(layers) else None
        return (isinstance(here, VectorLayer) and here.launches and isinstance(after, VectorLayer)
                and after.launches)
    return tuple(dataclasses.replace(layer, launches=False) if joins_next(i) else layer
                 for i, layer in enumerate(layers))


KV_READS = ("per_kv_head", "per_query_head")


def projection_layers(config: TransformerConfig, prefix: str, rows: int, fused_qkv: bool = False) -> list[NetworkLayer]:
    """The q, k and v projections of ``rows`` token rows: three GEMMs, or with ``fused_qkv`` one of their
    weights concatenated along n (``attn_qkv``, n = (heads + 2 kv_heads) x head_dim)."""
    d = config.head_dim
    if fused_qkv:
        return [GemmLayer(prefix + "attn_qkv", m=rows, k=config.hidden, n=(config.heads + 2 * config.kv_heads) * d)]
    return [GemmLayer(prefix + "attn_q", m=rows, k=config.hidden, n=config.heads * d),
            GemmLayer(prefix + "attn_k", m=rows, k=config.hidden, n=config.kv_heads * d),
            GemmLayer(prefix + "attn_v", m=rows, k=config.hidden, n=config.kv_heads * d)]


def attention_layers(config: TransformerConfig, prefix: str, batch: int, tokens: int, span: int,
                     fused: bool = False, kv_reads: str = "per_kv_head") -> list[NetworkLayer]:
    """Scores, softmax and context of ``batch`` sequences of ``tokens`` queries each attending to ``span``
    positions (one GEMM per sequence and KV head, the query heads of a group stacked into m).

    ``fused`` (decode, one query per sequence): one fused decode-attention kernel instead, as serving engines
    run it (FlashDecoding, vLLM's paged attention): ``attn_decode``, a batched GEMM per (sequence, KV head)
    of ``g x 2S @ 2S x d`` whose ``2S x d`` operand is the K and the V cache stacked (each read once, in one
    pass), so its MACs are the score's and the context's (``g d S`` each) and its k is the KV length a kernel
    splits (:mod:`accel_sim.models.tensor_core.plan.split`), then the softmax on the vector unit (its work; it
    launches no kernel: it runs inside the fused one). Its dense
    operand stands for the query and the probabilities, which a fused kernel keeps on chip: it moves
    ``2S x g`` elements where the kernel loads ``d x g`` (under 1 % of the cache's bytes for g = 1).

    ``kv_reads`` (fused decode): ``per_kv_head``, a GQA-aware kernel (FlashDecoding, vLLM's, TensorRT-LLM's XQA)
    that reads each KV head's cache once for the g query heads of its group, as above; ``per_query_head``, a
    kernel of one thread block per query head (TensorRT-LLM's masked multi-head attention, ``blockIdx.x`` the
    query head and ``hi_kv = hi / qhead_per_kv`` the KV head it reads, grid ``(heads, batch, 1)``:
    ``decoderMaskedMultiheadAttentionTemplate.h`` / ``decoderMaskedMultiheadAttentionLaunch.h``): a batched
    GEMM per (sequence, query head) of ``1 x 2S @ 2S x d``, the g instances of a group reading one operand
    (consecutive in launch order, the query head fastest), so the cache is read g times. Both are split along the
    KV length by the family's batched rule when their CTAs do not fill the device (the masked kernel's multi-block
    mode; at the batches of the shipped serving cases neither splits)."""
    d, g = config.head_dim, config.group_size
    if kv_reads not in KV_READS:
        raise ValueError(f"kv_reads must be one of {', '.join(KV_READS)}, got {kv_reads!r}")
    if fused and tokens == 1:
        decode = (BatchedGemmLayer(prefix + "attn_decode", instances=batch * config.kv_heads, m=g, k=2 * span, n=d)
                  if kv_reads == "per_kv_head" else
                  BatchedGemmLayer(prefix + "attn_decode", instances=batch * config.heads, m=1, k=2 * span, n=d,
                                   operand_shared_by=g))
        return [decode, VectorLayer(prefix + "attn_softmax", "softmax", rows=batch * config.heads, width=span,
                                    launches=False)]   # inside the fused kernel: no launch of its own
    return [BatchedGemmLayer(prefix + "attn_score", instances=batch * config.kv_heads, m=tokens * g, k=d, n=span),
            VectorLayer(prefix + "attn_softmax", "softmax", rows=batch * config.heads * tokens, width=span),
            BatchedGemmLayer(prefix + "attn_context", instances=batch * config.kv_heads, m=tokens * g, k=span, n=d)]


def _mlp(config: TransformerConfig, prefix: str, rows: int) -> list[NetworkLayer]:
    up = [GemmLayer(prefix + "mlp_gate", m=rows, k=config.hidden, n=config.intermediate)] if config.gated_mlp else []
    return up + [GemmLayer(prefix + "mlp_up", m=rows, k=config.hidden, n=config.intermediate),
                 VectorLayer(prefix + "mlp_act", activation_op(config), rows=rows, width=config.intermediate),
                 GemmLayer(prefix + "mlp_down", m=rows, k=config.intermediate, n=config.hidden)]


def _moe(config: TransformerConfig, prefix: str, rows: int) -> list[NetworkLayer]:
    layers: list[NetworkLayer] = [GemmLayer(prefix + "moe_router", m=rows, k=config.hidden, n=config.experts),
                                  VectorLayer(prefix + "moe_router_softmax", "softmax", rows=rows,
                                              width=config.experts)]
    tokens, busier = divmod(rows * config.experts_per_token, config.experts)
    groups = [(count, experts) for count, experts in ((tokens + 1, busier), (tokens, config.experts - busier))
              if count > 0 and experts > 0]
    for count, experts in groups:
        suffix = f"_{count}tok" if len(groups) > 1 else ""
        shapes = ([("gate", config.hidden, config.intermediate)] if config.gated_mlp else []) + [
            ("up", config.hidden, config.intermediate), ("down", config.intermediate, config.hidden)]
        gemms = [BatchedGemmLayer(f"{prefix}moe_{what}{suffix}", instances=experts, m=count, k=k, n=n)
                 for what, k, n in shapes]
        layers += gemms[:-1] + [VectorLayer(f"{prefix}moe_act{suffix}", activation_op(config), rows=count * experts,
                                            width=config.intermediate)] + gemms[-1:]
    return layers


def transformer_network(config: TransformerConfig, step: InferenceStep, compression: Compression = DENSE,
                        vector_ops: bool = True) -> Network:
    """The step as a :class:`Network` (what ``import-hf`` writes, without the file), its weights
    and KV cache compressed as ``compression`` says."""
    suffix = "" if compression == DENSE else "_" + re.sub(r"[^A-Za-z0-9]+", "_", compression.label)
    return Network(name=workload_name(config, step) + suffix,
                   layers=compression.apply(transformer_layers(config, step, vector_ops)),
                   source=f"Hugging Face config {config.source}", description=describe(config, step, compression),
                   memory=ResidentMemory(batch=step.batch, other_weight_elements=config.unsimulated_parameters))


def describe(config: TransformerConfig, step: InferenceStep, compression: Compression = DENSE) -> str:
    what = (f"prefill of {step.context} tokens" if step.phase == "prefill"
            else f"decode of 1 token at context {step.context}")
    variant = (", fused QKV projection" if step.fused_qkv else "") + (
        "" if step.fused_elementwise else ", one kernel per vector operator") + ("" if compression == DENSE
                                                                    else f", {compression.label}")
    return f"{config.name}: {what}, batch {step.batch}{variant}"
