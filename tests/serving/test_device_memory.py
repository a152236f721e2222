"""Device memory (issue 36 item 1): every shipped config states its capacity, a run that does not fit is
refused in one line with the largest batch that fits, and the fit limits equal a hand count."""
from __future__ import annotations

from pathlib import Path

import pytest

from accel_sim.foundations.config.loader import ARCH_DIR, load_arch_raw
from accel_sim.foundations.workload.llm.compression import Compression
from accel_sim.foundations.workload.llm.generator import InferenceStep, transformer_network
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.foundations.workload.llm.memory import largest_batch, largest_context, parameters, step_footprint
from accel_sim.foundations.workload.layer import GemmLayer, Network
from accel_sim.foundations.workload.memory import network_footprint
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.simulate import check_device_memory
from tests.cli.cli_helpers import assert_one_line_error, run_cli

CONFIGS = Path(__file__).resolve().parents[2] / "workloads" / "llm" / "configs"
GiB = 2**30
FP16 = 2  # bytes


def test_every_shipped_config_states_its_memory_capacity():
    """A size with its datasheet, or null with the reason (a generic array, a paper without one)."""
    missing = [path.stem for path in sorted(ARCH_DIR.glob("*.yaml")) if "memory_capacity" not in load_arch_raw(path)[1]]
    assert not missing, missing
    assert load_arch("ampere_a100").memory_capacity == 40 * GiB
    assert load_arch("ampere_a100_80gb").memory_capacity == 80 * GiB


@pytest.mark.parametrize("model, params", [("llama_2_7b", 6_738_415_616), ("llama_3_8b", 8_030_261_248)])
def test_parameters_are_the_published_counts(model, params):
    """Hugging Face's parameter counts of the two checkpoints (no biases in Llama)."""
    assert parameters(read_hf_config(CONFIGS / f"{model}.json")) == params


def hand_count(hidden, layers, kv_heads, head_dim, heads, params, context, capacity):
    """Largest decode batch at ``context`` by hand: FP16 weights; per sequence the K and V of every layer
    and the largest activation, the softmax of heads x context scores (input and output)."""
    weights = params * FP16
    kv = 2 * layers * kv_heads * head_dim * context * FP16
    softmax = 2 * heads * context * FP16
    return (capacity - weights) // (kv + softmax)


@pytest.mark.parametrize("model, shape", [("llama_2_7b", (4096, 32, 32, 128, 32, 6_738_415_616)),
                                          ("llama_3_8b", (4096, 32, 8, 128, 32, 8_030_261_248))])
@pytest.mark.parametrize("capacity_gib", [40, 80])
@pytest.mark.parametrize("context", [2048, 4096])
def test_largest_batch_is_the_hand_count(model, shape, capacity_gib, context):
    config = read_hf_config(CONFIGS / f"{model}.json")
    expected = hand_count(*shape, context, capacity_gib * GiB)
    assert largest_batch(config, "decode", context, capacity_gib * GiB, 16) == expected
    # and the batch found is the boundary: it fits, one more does not
    fits = step_footprint(config, InferenceStep("decode", context, expected), 16).total_bytes
    over = step_footprint(config, InferenceStep("decode", context, expected + 1), 16).total_bytes
    assert fits <= capacity_gib * GiB < over


def test_the_known_limits():
    """Llama-2-7B at context 4096: 13 sequences on 40 GB, 33 on 80 GB; Llama-3-8B (GQA, 4x less KV) 50 and 129."""
    llama2, llama3 = (read_hf_config(CONFIGS / f"{m}.json") for m in ("llama_2_7b", "llama_3_8b"))
    assert [largest_batch(llama2, "decode", 4096, c * GiB, 16) for c in (40, 80)] == [13, 33]
    assert [largest_batch(llama3, "decode", 4096, c * GiB, 16) for c in (40, 80)] == [50, 129]


def test_largest_context_is_the_boundary():
    config = read_hf_config(CONFIGS / "llama_2_7b.json")
    context = largest_context(config, "decode", 64, 40 * GiB, 16)
    per_token = 2 * 32 * 4096 * FP16 + 2 * 32 * FP16   # K and V of 32 layers, the softmax's two elements a head
    assert context == (40 * GiB - 6_738_415_616 * FP16) // (64 * per_token)
    assert largest_context(config, "decode", 1, 80 * GiB, 16) == 4096    # the model's own limit


def test_quantized_weights_and_kv_shrink_the_footprint():
    config = read_hf_config(CONFIGS / "llama_2_7b.json")
    step = InferenceStep("decode", 4096, 8)
    dense = step_footprint(config, step, 16)
    small = step_footprint(config, step, 16, Compression.parse("dense", 4, 8))
    assert small.kv_cache_bytes == dense.kv_cache_bytes / 2
    block = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008)   # block weights at 4 bits; LM head and embeddings stay FP16
    assert small.weights_bytes == dense.weights_bytes - block * (2 - 0.5)
    sparse = step_footprint(config, step, 16, Compression.parse("2:4"))
    assert sparse.weights_bytes == dense.weights_bytes - block * 2 + block * (16 + 2) / 2 / 8   # half kept + 2-bit index


def test_the_137_gb_case_is_refused_in_one_line(tmp_path, capsys):
    """Issue 36: Llama-2-7B decode, batch 64, context 4096 on a 40 GB A100 (137 GB of KV cache)."""
    result = run_cli(capsys, "import-hf", CONFIGS / "llama_2_7b.json", "--phase", "decode", "--context", "4096",
                     "--batch", "64", "--out", tmp_path / "w")
    assert result.code == 0, result
    workload = next((tmp_path / "w").glob("*.yaml"))
    line = assert_one_line_error(run_cli(capsys, "run", "--arch", "ampere_a100", "--workload", workload),
                                 "does not fit device memory", "KV cache 137.44 GB", "weights 13.48 GB",
                                 "ampere_a100 holds 42.95 GB (40 GiB)", "the largest batch that fits is 13")
    assert "150.95 GB" in line


def test_a_workload_without_a_batch_is_still_refused():
    network = Network("big", (GemmLayer("fc", m=1, k=200_000, n=200_000),))   # 80 GB of FP16 weights
    with pytest.raises(ValueError, match="states no batch"):
        check_device_memory(load_arch("ampere_a100"), network)
    assert network_footprint(network, 16).weights_bytes == 200_000 * 200_000 * 2
    check_device_memory(load_arch("tpu_like_128x128_ws"), network)   # no stated capacity: not checked


def test_the_step_network_states_its_batch_and_embeddings():
    config = read_hf_config(CONFIGS / "llama_2_7b.json")
    memory = transformer_network(config, InferenceStep("decode", 128, 3)).memory
    assert memory.batch == 3 and memory.other_weight_elements == 32000 * 4096 + 4096 * 65


def test_import_hf_prints_the_largest_batch(tmp_path, capsys):
    result = run_cli(capsys, "import-hf", CONFIGS / "llama_3_8b.json", "--phase", "decode", "--context", "4096",
                     "--batch", "8", "--out", tmp_path / "w", "--fit", "ampere_a100_80gb")
    assert result.code == 0, result
    assert "fits ampere_a100_80gb (80 GiB): largest batch at context 4096: 129" in result.out
