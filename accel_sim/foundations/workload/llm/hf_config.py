"""A transformer's shape from a Hugging Face ``config.json``, read as plain JSON.

No ``transformers`` dependency: each supported ``model_type`` names the keys its config
uses (:data:`DIALECTS`, the key names of the ``transformers`` configuration classes:
``GPT2Config``, ``OPTConfig``, ``LlamaConfig``, ``MistralConfig``, ``MixtralConfig``,
``Qwen2Config``, ``BertConfig``, ``RobertaConfig``). :func:`read_hf_config` checks every
value once and raises an :class:`~accel_sim.foundations.errors.InputError` naming the file and the key:
a missing key, a value that is not a positive integer, heads that do not divide the hidden
size, KV heads that do not divide the heads, an unknown activation or model type.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accel_sim.foundations.errors import InputError, Problem

# Activation names the transformers ACT2FN table uses for these families; the activation does
# not change a GEMM, it is recorded for the vector unit (issue 19 item 3).
ACTIVATIONS = ("relu", "gelu", "gelu_new", "gelu_fast", "gelu_pytorch_tanh", "gelu_accurate", "quick_gelu",
               "silu", "swish")


@dataclass(frozen=True)
class Dialect:
    """How one ``model_type`` spells the shape keys, and its block structure.

    A key of None: the family has no such key (KV heads = heads: multi-head attention)."""

    hidden: str
    heads: str
    layers: str
    vocab: str
    activation: str
    intermediate: str
    intermediate_optional: bool = False  # absent or null: 4 x hidden (GPT-2's n_inner, GPT2MLP)
    kv_heads: str | None = None
    gated_mlp: bool = False          # SwiGLU-style MLP: gate and up projections, then down
    decoder: bool = True             # causal decoder with a KV cache (else an encoder)
    max_positions: str | None = None
    experts: str | None = None       # mixture of experts: experts per layer, experts per token
    experts_per_token: str | None = None
    embed_projection: str | None = None  # OPT: word embeddings of another width, projected in and out
    norm: str = "layernorm"          # the block's normalisation (vector unit op): layernorm or rmsnorm
    rotary: bool = False             # rotary position embedding on Q and K (RoFormer), else learned positions
    pre_norm: bool = True            # norm before attention / MLP (GPT-2, Llama); False: after the residual (BERT)
    tied_embeddings: bool = True     # default of tie_word_embeddings (transformers' PretrainedConfig: True;
                                     # LlamaConfig, MistralConfig, MixtralConfig, Qwen2Config: False)


_LLAMA = dict(hidden="hidden_size", heads="num_attention_heads", layers="num_hidden_layers", vocab="vocab_size",
              activation="hidden_act", intermediate="intermediate_size", kv_heads="num_key_value_heads",
              gated_mlp=True, max_positions="max_position_embeddings", norm="rmsnorm", rotary=True,
              tied_embeddings=False)
_BERT = dict(hidden="hidden_size", heads="num_attention_heads", layers="num_hidden_layers", vocab="vocab_size",
             activation="hidden_act", intermediate="intermediate_size", decoder=False,
             max_positions="max_position_embeddings", pre_norm=False)

DIALECTS: dict[str, Dialect] = {
    "gpt2": Dialect(hidden="n_embd", heads="n_head", layers="n_layer", vocab="vocab_size",
                    activation="activation_function", intermediate="n_inner", intermediate_optional=True,
                    max_positions="n_positions"),
    "opt": Dialect(hidden="hidden_size", heads="num_attention_heads", layers="num_hidden_layers",
                   vocab="vocab_size", activation="activation_function", intermediate="ffn_dim",
                   max_positions="max_position_embeddings", embed_projection="word_embed_proj_dim"),
    "llama": Dialect(**_LLAMA),
    "mistral": Dialect(**_LLAMA),
    "qwen2": Dialect(**_LLAMA),
    "mixtral": Dialect(**_LLAMA, experts="num_local_experts", experts_per_token="num_experts_per_tok"),
    "bert": Dialect(**_BERT),
    "roberta": Dialect(**_BERT),
}


@dataclass(frozen=True)
class TransformerConfig:
    """The shapes of a transformer stack, in the model's own terms (no phase, no batch)."""

    name: str
    model_type: str
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    layers: int
    vocab: int
    activation: str
    gated_mlp: bool
    decoder: bool
    max_positions: int | None = None
    experts: int = 0                 # 0: a dense MLP
    experts_per_token: int = 0
    sliding_window: int | None = None
    embed_dim: int | None = None     # width of the word embeddings when it differs from hidden (OPT)
    source: str = ""                 # the file it was read from
    norm: str = "layernorm"          # layernorm or rmsnorm (Dialect.norm)
    rotary: bool = False             # rotary embedding on Q and K
    pre_norm: bool = True            # norms before attention / MLP (else after the residual)
    tied_embeddings: bool = True     # the LM head is the token-embedding table (tie_word_embeddings)

    @property
    def unsimulated_parameters(self) -> int:
        """Parameters resident in device memory that no generated layer reads: the token embeddings
        (unless tied to the LM head, whose layer holds them), learned position embeddings, and the norm
        gains (RMSNorm: one vector of hidden; LayerNorm: gain and bias) of every block and of the final or
        embedding norm. Biases of the projections (GPT-2, OPT, BERT) and BERT's token-type embeddings are
        not counted (under 0.2 % of those models)."""
        width = self.embed_dim or self.hidden
        tokens = 0 if (self.decoder and self.tied_embeddings) else self.vocab * width
        positions = 0 if self.rotary or self.max_positions is None else self.max_positions * self.hidden
        per_norm = self.hidden * (1 if self.norm == "rmsnorm" else 2)
        return tokens + positions + per_norm * (2 * self.layers + 1)

    @property
    def group_size(self) -> int:
        """Query heads that share one KV head (1: MHA; heads: MQA; else GQA)."""
        return self.heads // self.kv_heads


def read_hf_config(path: str | Path) -> TransformerConfig:
    """The config at ``path``; an :class:`InputError` naming the file and the key if it is unusable."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError.single(where, "", "file not found") from None
    except (OSError, UnicodeDecodeError) as err:
        raise InputError.single(where, "", f"cannot read it ({err})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError.single(where, f"line {err.lineno}", f"not valid JSON ({err.msg})") from None
    if not isinstance(data, dict):
        raise InputError.single(where, "", f"expected a JSON object (a Hugging Face config.json), got "
                                f"{type(data).__name__}")
    return config_from_dict(data, where, default_name=Path(path).parent.name if Path(path).name == "config.json"
                            else Path(path).stem)


def config_from_dict(data: dict[str, Any], where: str, default_name: str = "model") -> TransformerConfig:
    """Check a parsed config (``where`` names it in errors) and return its shapes."""
    model_type = data.get("model_type")
    if model_type is None:
        raise InputError.single(where, "model_type", "missing; it says which keys hold the shapes "
                                f"(known: {', '.join(DIALECTS)})")
    if model_type not in DIALECTS:
        raise InputError.single(where, "model_type", f"{model_type!r} is not supported; known: {', '.join(DIALECTS)}")
    dialect = DIALECTS[model_type]
    reader = _Reader(data, where, model_type)
    hidden = reader.positive(dialect.hidden)
    heads = reader.positive(dialect.heads)
    layers = reader.positive(dialect.layers)
    vocab = reader.positive(dialect.vocab)
    kv_heads = reader.positive(dialect.kv_heads, default=heads) if dialect.kv_heads else heads
    intermediate = (reader.positive(dialect.intermediate, default=4 * hidden) if dialect.intermediate_optional
                    else reader.positive(dialect.intermediate))
    explicit_head_dim = reader.positive("head_dim", default=None) if "head_dim" in data else None
    activation = reader.activation(dialect.activation)
    max_positions = reader.positive(dialect.max_positions, default=None) if dialect.max_positions else None
    experts = reader.positive(dialect.experts) if dialect.experts and dialect.experts in data else 0
    per_token = reader.positive(dialect.experts_per_token) if experts else 0
    window = reader.positive("sliding_window", default=None) if dialect.decoder and "sliding_window" in data else None
    embed_dim = reader.positive(dialect.embed_projection, default=hidden) if dialect.embed_projection else hidden
    for what, key, value in (("layers", dialect.layers, layers), ("hidden", dialect.hidden, hidden),
                             ("intermediate", dialect.intermediate, intermediate), ("vocab", dialect.vocab, vocab),
                             ("heads", dialect.heads, heads), ("heads", dialect.kv_heads, kv_heads),
                             ("experts", dialect.experts, experts), ("hidden", "head_dim", explicit_head_dim or 0)):
        if value > SIZE_LIMITS[what]:
            reader.problems.append(Problem(where, key or what, f"{value:,} is more than the limit of "
                                           f"{SIZE_LIMITS[what]:,} (several times the largest published model; "
                                           "refused before building anything)"))
    if reader.problems:
        raise InputError(reader.problems)
    problems = []
    if explicit_head_dim is None and hidden % heads:
        problems.append(Problem(where, dialect.heads, f"{heads} heads do not divide the hidden size "
                                f"{dialect.hidden} = {hidden} (each head gets hidden / heads channels)"))
    if heads % kv_heads:
        problems.append(Problem(where, dialect.kv_heads or "", f"{kv_heads} KV heads do not divide the "
                                f"{heads} attention heads ({dialect.heads}); each KV head serves the same "
                                "number of query heads"))
    if experts and per_token > experts:
        problems.append(Problem(where, dialect.experts_per_token or "", f"{per_token} experts per token "
                                f"exceed the {experts} experts ({dialect.experts})"))
    if problems:
        raise InputError(problems)
    tied = data.get("tie_word_embeddings", dialect.tied_embeddings)
    if not isinstance(tied, bool):
        raise InputError.single(where, "tie_word_embeddings", f"expected true or false, got {tied!r}")
    name = str(data.get("_name_or_path") or default_name).rstrip("/").split("/")[-1]
    return TransformerConfig(
        name=name, model_type=model_type, hidden=hidden, heads=heads, kv_heads=kv_heads,
        head_dim=explicit_head_dim if explicit_head_dim is not None else hidden // heads,
        intermediate=intermediate, layers=layers, vocab=vocab, activation=activation,
        gated_mlp=dialect.gated_mlp, decoder=dialect.decoder, max_positions=max_positions, experts=experts,
        experts_per_token=per_token, sliding_window=window, embed_dim=embed_dim if embed_dim != hidden else None,
        source=where, norm=dialect.norm, rotary=dialect.rotary, pre_norm=dialect.pre_norm,
        tied_embeddings=tied)


_MISSING = object()

# Largest sizes a config may declare, checked before anything is built (a config with 10**9 layers is
# refused at once instead of growing without end). Each is several times the largest published model
# (config.json of each on huggingface.co, and the papers):
#   layers:        126 in Llama-3.1-405B (meta-llama/Llama-3.1-405B), 118 in PaLM 540B (Chowdhery et al.
#                  2022, Table 1)                                                            -> 1,024
#   hidden size:   16,384 in Llama-3.1-405B, 18,432 in PaLM 540B                              -> 131,072
#   intermediate:  53,248 in Llama-3.1-405B, 73,728 in PaLM 540B (4 x 18,432)                 -> 524,288
#   vocabulary:    256,000 in Gemma (google/gemma-7b), 262,144 in Gemma 3 (google/gemma-3-27b-it) -> 2,097,152
#   heads:         128 in Llama-3.1-405B and PaLM 540B (48 in GPT-3 175B: Brown et al. 2020, Table 2.1) -> 4,096
#   experts:       256 routed experts in DeepSeek-V3 (deepseek-ai/DeepSeek-V3)                 -> 4,096
SIZE_LIMITS = {"layers": 1_024, "hidden": 131_072, "intermediate": 524_288, "vocab": 2_097_152,
               "heads": 4_096, "experts": 4_096}


class _Reader:
    """Reads keys of one config, collecting every problem before raising."""

    def __init__(self, data: dict[str, Any], where: str, model_type: str):
        self.data, self.where, self.model_type = data, where, model_type
        self.problems: list[Problem] = []

    def positive(self, key: str, default: Any = _MISSING) -> Any:
        value = self.data.get(key, _MISSING)
        if value is None and default is not _MISSING:  # e.g. GPT-2's "n_inner": null, Mistral's "sliding_window": null
            return default
        if value is _MISSING:
            if default is not _MISSING:
                return default
            self.problems.append(Problem(self.where, key, f"missing (a {self.model_type} config needs it)"))
            return 1
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            self.problems.append(Problem(self.where, key, f"expected a positive integer, got {value!r}"))
            return 1
        return value

    def activation(self, key: str) -> str:
        value = self.data.get(key, _MISSING)
        if value is _MISSING:
            self.problems.append(Problem(self.where, key, f"missing (a {self.model_type} config needs it)"))
            return ACTIVATIONS[0]
        if value not in ACTIVATIONS:
            self.problems.append(Problem(self.where, key, f"unknown activation {value!r}; known: "
                                         f"{', '.join(ACTIVATIONS)}"))
            return ACTIVATIONS[0]
        return str(value)
