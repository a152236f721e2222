"""A fused q, k, v projection (``fused_qkv``: one ``attn_qkv`` GEMM, as gpt-fast's ``Attention.wqkv`` and
TensorRT-LLM's Llama ``qkv`` ColumnLinear run it): hand-counted shapes, the same MACs and weight bytes as the
three GEMMs, two kernels fewer per block, fast == reference on a fused layer, and the serving step model."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from accel_sim.foundations.contract import counter_differences
from accel_sim.foundations.workload.llm.generator import InferenceStep, projection_layers, transformer_network
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.foundations.workload.llm.workload_file import StepElements
from accel_sim.models.tensor_core.family import FAMILY
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.simulate import simulate
from accel_sim.systems.serving.step import Iteration, StepModel
from tests.cli.cli_helpers import run_cli
from tests.tensor_core.archs import a100

CONFIGS = Path(__file__).resolve().parents[2] / "workloads" / "llm" / "configs"
LLAMA_3 = read_hf_config(CONFIGS / "llama_3_8b.json")   # 32 heads, 8 KV heads of 128, hidden 4096, 32 blocks


def test_fused_projection_is_one_gemm_of_the_three_summed_by_hand():
    step = InferenceStep("decode", 105, batch=3)
    three = transformer_network(LLAMA_3, step).layers
    fused = transformer_network(LLAMA_3, dataclasses.replace(step, fused_qkv=True)).layers
    qkv = {layer.name: layer for layer in fused}["l00_attn_qkv"]
    # n = (32 + 2 x 8) x 128 = 6144; m = 3 sequences x 1 token; k = hidden 4096
    assert (qkv.m, qkv.k, qkv.n) == (3, 4096, 6144)
    assert qkv.macs == 3 * 4096 * 6144 == 75_497_472
    assert qkv.weight_elements == 4096 * 6144 == 25_165_824     # q 4096 x 4096 + k, v 4096 x 1024 each
    assert len(three) - len(fused) == 2 * 32                     # two kernels fewer per block
    assert not any(layer.name.endswith(("attn_q", "attn_k", "attn_v")) for layer in fused)
    one, other = StepElements.of(three, LLAMA_3), StepElements.of(fused, LLAMA_3)
    assert one == other                                          # MACs, weights, KV read and append conserved
    assert other.kv_append == 32 * 3 * 2 * 8 * 128
    assert sum(layer.output_elements for layer in three) == sum(layer.output_elements for layer in fused)


def test_fused_step_conserves_macs_and_weight_bytes_and_reads_the_input_once():
    arch = load_arch("ampere_a100_80gb")
    block = dataclasses.replace(read_hf_config(CONFIGS / "llama_2_7b.json"), layers=1)
    runs = [simulate(arch, transformer_network(block, InferenceStep("decode", 105, 1, fused_qkv=fused))).summary_row()
            for fused in (False, True)]
    assert runs[0]["macs_dense"] == runs[1]["macs_dense"] == runs[1]["macs_issued"]
    assert runs[0]["dram_write_bytes"] == runs[1]["dram_write_bytes"]
    # the same weight bytes; the 1 x 4096 fp16 input is read by one kernel instead of three: 2 x 8192 B fewer
    assert runs[0]["dram_read_bytes"] - runs[1]["dram_read_bytes"] == 2 * 4096 * 2
    assert runs[1]["cycles"] < runs[0]["cycles"]                 # two launches and latencies fewer


def test_fast_and_reference_agree_on_a_fused_projection():
    small = dataclasses.replace(LLAMA_3, hidden=256, heads=4, kv_heads=2, head_dim=32)
    (layer,) = projection_layers(small, "l0_", rows=5, fused_qkv=True)
    assert layer.n == (4 + 2 * 2) * 32
    plan = FAMILY.plan(a100(sms=3), layer)
    assert counter_differences(FAMILY.fast(plan, None), FAMILY.reference(plan, None)) == []


def test_serving_step_model_fuses_the_projection():
    arch = load_arch("ampere_a100_80gb")
    config = read_hf_config(CONFIGS / "gpt2.json")
    it = Iteration(decode=4, decode_span=64, heads=4)
    three, fused = StepModel(arch, config).cost(it), StepModel(arch, config, fused_qkv=True).cost(it)
    assert fused.seconds < three.seconds


def test_import_hf_writes_the_fused_projection(tmp_path, capsys):
    result = run_cli(capsys, "import-hf", CONFIGS / "llama_3_8b.json", "--phase", "decode", "--context", "64",
                     "--fused-qkv", "--out", tmp_path)
    assert result.code == 0
    text = next(tmp_path.glob("*_fusedqkv.yaml")).read_text()
    assert "{name: l00_attn_qkv, type: gemm, m: 1, k: 4096, n: 6144}" in text and "attn_k," not in text
    assert "fused QKV projection" in text and "KV append (attn_qkv's K / V columns) 65,536 elements" in text


def test_serve_runs_the_fused_projection(capsys):
    common = ["serve", "--model", CONFIGS / "gpt2.json", "--arch", "ampere_a100", "--requests", "2",
              "--prompt-tokens", "16", "--output-tokens", "2", "--lengths", "fixed", "--quiet"]
    three, fused = run_cli(capsys, *common), run_cli(capsys, *common, "--fused-qkv")
    assert three.code == fused.code == 0 and three.out != fused.out
