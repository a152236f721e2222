"""The shipped LLM configs (workloads/llm/configs/): every model and phase generates the layer
shapes and MAC counts that the published architecture gives, written out here independently
of the generator (per-model numbers typed from the model cards / config.json files)."""
from __future__ import annotations

from pathlib import Path

import pytest

from accel_sim.foundations.workload.layer import BatchedGemmLayer, VectorLayer
from accel_sim.foundations.workload.llm.generator import InferenceStep, transformer_layers, transformer_network
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.foundations.workload.loader import load_workload

CONFIGS = Path(__file__).resolve().parents[2] / "workloads" / "llm" / "configs"

# name: (file, hidden, heads, kv_heads, intermediate, layers, vocab, gated MLP, sliding window)
MODELS = {
    "gpt2": ("gpt2.json", 768, 12, 12, 3072, 12, 50257, False, None),
    "opt_1.3b": ("opt_1.3b.json", 2048, 32, 32, 8192, 24, 50272, False, None),
    "llama_2_7b": ("llama_2_7b.json", 4096, 32, 32, 11008, 32, 32000, True, None),
    "llama_3_8b": ("llama_3_8b.json", 4096, 32, 8, 14336, 32, 128256, True, None),
    "mistral_7b": ("mistral_7b.json", 4096, 32, 8, 14336, 32, 32000, True, 4096),
}
# (phase, context, batch): GPT-2 and OPT stop at 1024 / 2048 positions
STEPS = {"prefill": ("prefill", 512, 2), "decode": ("decode", 1000, 4)}


def analytic_macs(hidden, heads, kv_heads, inter, layers, vocab, gated, window, phase, context, batch):
    """MACs of one step: Q, K, V, O projections, QK^T and PV per head, the MLP, the LM head."""
    head_dim = hidden // heads
    tokens = batch * (context if phase == "prefill" else 1)
    span = context if phase == "prefill" or window is None else min(context, window)
    q_o = 2 * tokens * hidden * hidden
    k_v = 2 * tokens * hidden * kv_heads * head_dim
    attention = 2 * tokens * heads * head_dim * span
    mlp = (3 if gated else 2) * tokens * hidden * inter
    lm_head = batch * hidden * vocab
    return layers * (q_o + k_v + attention + mlp) + lm_head


@pytest.mark.parametrize("phase", STEPS)
@pytest.mark.parametrize("model", MODELS)
def test_macs_and_shapes_match_the_published_architecture(model, phase):
    file, hidden, heads, kv_heads, inter, n_layers, vocab, gated, window = MODELS[model]
    kind, context, batch = STEPS[phase]
    layers = transformer_layers(read_hf_config(CONFIGS / file), InferenceStep(kind, context, batch))
    expected = analytic_macs(hidden, heads, kv_heads, inter, n_layers, vocab, gated, window, kind, context, batch)
    assert sum(layer.macs for layer in layers) == expected
    per_block = 9 if gated else 8
    assert len([layer for layer in layers if not isinstance(layer, VectorLayer)]) == n_layers * per_block + 1
    tokens = context if kind == "prefill" else 1
    d, g = hidden // heads, heads // kv_heads
    by_name = {layer.name.split("_", 1)[1]: layer for layer in layers if layer.name.startswith("l00_")}
    shape = {name: (getattr(layer, "instances", 1), layer.m, layer.k, layer.n) for name, layer in by_name.items()
             if not isinstance(layer, VectorLayer)}
    assert shape["attn_q"] == (1, batch * tokens, hidden, hidden)
    assert shape["attn_k"] == shape["attn_v"] == (1, batch * tokens, hidden, kv_heads * d)
    assert shape["attn_score"] == (batch * kv_heads, tokens * g, d, context)
    assert shape["attn_context"] == (batch * kv_heads, tokens * g, context, d)
    assert shape["mlp_down"] == (1, batch * tokens, inter, hidden)
    assert ("mlp_gate" in shape) == gated
    assert isinstance(by_name["attn_score"], BatchedGemmLayer)
    head = layers[-1]
    assert head.name == "lm_head" and (head.m, head.k, head.n) == (batch, hidden, vocab)
    # the vector unit's operators of a block: (op, rows, width)
    rotary = model.startswith(("llama", "mistral"))
    vector = {name: (layer.op, layer.rows, layer.width) for name, layer in by_name.items()
              if isinstance(layer, VectorLayer)}
    norm = "rmsnorm" if rotary else "layernorm"
    assert vector["attn_norm"] == vector["mlp_norm"] == (norm, batch * tokens, hidden)
    assert vector["attn_softmax"] == ("softmax", batch * heads * tokens, context)
    assert vector["attn_residual"] == vector["mlp_residual"] == ("residual_add", batch * tokens, hidden)
    assert vector["mlp_act"] == ("swiglu" if gated else "relu" if model == "opt_1.3b" else "gelu", batch * tokens, inter)
    assert vector.get("attn_rotary") == (("rotary", batch * tokens * (heads + kv_heads), d) if rotary else None)
    assert layers[-2].name == "final_norm" or layers[-3].name == "final_norm"  # OPT projects out in between


def test_decode_beyond_the_sliding_window_reads_the_window():
    """Mistral's rolling-buffer cache holds 4096 positions: decode at 8000 attends to 4096."""
    layers = transformer_layers(read_hf_config(CONFIGS / "mistral_7b.json"), InferenceStep("decode", 8000, 1))
    score = next(layer for layer in layers if layer.name == "l00_attn_score")
    assert (score.instances, score.m, score.k, score.n) == (8, 4, 128, 4096)
    assert sum(layer.macs for layer in layers) == analytic_macs(4096, 32, 8, 14336, 32, 32000, True, 4096,
                                                                "decode", 8000, 1)


def test_written_workload_round_trips_through_the_loader(tmp_path):
    from accel_sim.foundations.workload.llm.workload_file import write_llm_workload

    step = InferenceStep("decode", 256, 3)
    config = read_hf_config(CONFIGS / "llama_3_8b.json")
    written = write_llm_workload(CONFIGS / "llama_3_8b.json", step, tmp_path)
    loaded = load_workload(written.path)
    generated = transformer_network(config, step)
    assert loaded.name == generated.name == "meta_llama_3_8b_decode_ctx256_b3"
    def shape(layer):
        return layer if isinstance(layer, VectorLayer) else layer.gemm()

    assert [(type(a), a.name, shape(a)) for a in loaded.layers] == [(type(b), b.name, shape(b)) for b in generated.layers]
    assert loaded.macs == written.macs == generated.macs
    text = written.path.read_text()
    assert f"{generated.macs:,} MACs" in text
    # KV cache per step: 32 layers x (K and V) x batch 3 x 8 KV heads x 256 positions x 128; append: 1 token
    assert f"KV cache read {32 * 2 * 3 * 8 * 256 * 128:,}" in text
    assert f"KV append (attn_k / attn_v outputs) {32 * 2 * 3 * 8 * 128:,}" in text


def test_mixture_of_experts_spreads_token_expert_pairs_evenly():
    from accel_sim.foundations.workload.llm.hf_config import config_from_dict

    config = config_from_dict({"model_type": "mixtral", "hidden_size": 64, "num_attention_heads": 4,
                               "num_key_value_heads": 2, "intermediate_size": 96, "num_hidden_layers": 1,
                               "vocab_size": 100, "hidden_act": "silu", "num_local_experts": 8,
                               "num_experts_per_tok": 2}, "inline")
    layers = {layer.name: layer for layer in transformer_layers(config, InferenceStep("prefill", 5, 1))}
    # 5 tokens x top-2 = 10 (token, expert) pairs over 8 experts: 2 experts get 2 tokens, 6 get 1
    assert (layers["l0_moe_up_2tok"].instances, layers["l0_moe_up_2tok"].m) == (2, 2)
    assert (layers["l0_moe_up_1tok"].instances, layers["l0_moe_up_1tok"].m) == (6, 1)
    expert_macs = sum(layer.macs for name, layer in layers.items() if "moe_" in name and "router" not in name)
    assert expert_macs == 3 * 5 * 2 * 64 * 96
    decode = {layer.name: layer for layer in transformer_layers(config, InferenceStep("decode", 5, 1))}
    assert (decode["l0_moe_down"].instances, decode["l0_moe_down"].m) == (2, 1)  # only the 2 chosen experts


def test_encoder_has_no_decode_and_no_lm_head():
    from accel_sim.foundations.errors import InputError
    from accel_sim.foundations.workload.llm.hf_config import config_from_dict

    bert = config_from_dict({"model_type": "bert", "hidden_size": 768, "num_attention_heads": 12,
                             "num_hidden_layers": 12, "intermediate_size": 3072, "vocab_size": 30522,
                             "hidden_act": "gelu", "max_position_embeddings": 512}, "bert.json")
    layers = transformer_layers(bert, InferenceStep("prefill", 128, 1))
    # the same GEMMs as workloads/bert_base_seq128.yaml (12 heads there are separate layers)
    assert sum(layer.macs for layer in layers) == load_workload("bert_base_seq128").macs
    assert [layer.name for layer in layers[-3:]] == ["l11_mlp_down", "l11_mlp_residual", "l11_mlp_norm"]  # post-norm
    with pytest.raises(InputError, match="encoder"):
        transformer_layers(bert, InferenceStep("decode", 128, 1))


def test_compressed_workload_round_trips_and_compresses_only_block_weights(tmp_path):
    from accel_sim.foundations.workload.llm.compression import Compression
    from accel_sim.foundations.workload.llm.workload_file import write_llm_workload

    step = InferenceStep("decode", 64, 2)
    compression = Compression.parse("2:4", weight_bits=4, kv_bits=8)
    written = write_llm_workload(CONFIGS / "gpt2.json", step, tmp_path, compression=compression)
    loaded = {layer.name: layer for layer in load_workload(written.path).layers}
    generated = transformer_network(read_hf_config(CONFIGS / "gpt2.json"), step, compression)
    assert written.path.stem == generated.name == "gpt2_decode_ctx64_b2_2_4_w4_kv8"
    for layer in generated.layers:
        got = loaded[layer.name]
        for field in ("weight_sparsity", "weight_density", "quantized_weight_bits"):
            assert getattr(got, field, None) == getattr(layer, field, None), (layer.name, field)
    q, score, head = loaded["l00_attn_q"], loaded["l00_attn_score"], loaded["lm_head"]
    assert (str(q.weight_sparsity), q.operands.weight_pattern, q.quantized_weight_bits) == ("2:4", "nm", 4)
    assert (score.weight_sparsity, score.quantized_weight_bits) == (None, 8)      # the KV cache: quantized, not pruned
    assert (head.weight_sparsity, head.quantized_weight_bits) == (None, None)     # LM head left dense
    unstructured = Compression.parse("unstructured:0.4").apply(generated.layers)
    assert {layer.weight_density for layer in unstructured if layer.name.endswith("mlp_up")} == {0.4}
