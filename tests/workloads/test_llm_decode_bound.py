"""Decode at batch 1 is DRAM-bound (issue 19): on the tensor core, the PE array and the DLU the
step's time is within 10 % of (weight + KV-cache bytes) / the bandwidth of the stream that
carries them; weight-only quantization shrinks that bound with the bytes; 2:4 weights carry
their metadata. The systolic array with SCALE-Sim's USER-mode scratchpads (its default,
``operand_fetch: scalesim``) misses the 10 % and is held to what it does show; with
``operand_fetch: streaming`` (tpu_like_128x128_ws_streaming) it meets it. One transformer block (and the LM head) stands for the step: the
blocks are identical."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from accel_sim import load_arch, simulate
from accel_sim.foundations.workload.llm.compression import Compression
from accel_sim.foundations.workload.llm.generator import InferenceStep, transformer_network
from accel_sim.foundations.workload.llm.hf_config import config_from_dict
from accel_sim.foundations.workload.llm.workload_file import StepElements

CONFIGS = Path(__file__).resolve().parents[2] / "workloads" / "llm" / "configs"


def llama(blocks: int = 1, **shape) -> object:
    data = json.loads((CONFIGS / "llama_2_7b.json").read_text())
    data.update(num_hidden_layers=blocks, **shape)
    return config_from_dict(data, "llama_2_7b.json (test)")


SMALL = dict(hidden_size=1024, num_attention_heads=8, num_key_value_heads=8, intermediate_size=2752,
             vocab_size=8000)  # a 7B-shaped block at a quarter of the width (PE-array model: operands generated)


def user_mode(tmp_path: Path, base: str, bandwidth: str) -> object:
    path = tmp_path / f"{base}_user.yaml"
    path.write_text(f"extends: {base}\nname: {base}_user\ndram: {{bandwidth_mode: user, bandwidth: {bandwidth}}}\n")
    return load_arch(str(path))


def stream_bandwidth(arch) -> float:
    """Bytes per cycle of the DRAM stream that carries weights and the KV cache."""
    return arch.tensor_core.dram_bandwidth if arch.family == "tensor_core" else arch.dram.bandwidth


DENSE = Compression()   # frozen: safe as a shared default


def bound_and_cycles(arch, config, compression=DENSE, word_bits=None):
    network = transformer_network(config, InferenceStep("decode", 2048, 1), compression)
    elements = StepElements.of(network.layers)
    weight_bits = compression.weight_bits or word_bits or arch.word_bits
    kv_bits = compression.kv_bits or word_bits or arch.word_bits
    # block weights at their stored width; the LM head stays at the word width
    head = next(layer for layer in network.layers if layer.name == "lm_head").weight_elements
    data_bytes = ((elements.weights - head) * weight_bits + head * (word_bits or arch.word_bits)
                  + elements.kv_read * kv_bits) / 8
    run = simulate(arch, network)
    return data_bytes / stream_bandwidth(arch), run.summary_row()["cycles"]


def vector_launch_cycles(arch, config, compression=DENSE) -> int:
    """The step's vector kernels' launch gaps: a fixed cost per kernel that moves no DRAM bytes."""
    network = transformer_network(config, InferenceStep("decode", 2048, 1), compression)
    return sum(layer.launches for layer in network.layers if layer.kind == "vector") * \
        arch.vector_unit.kernel_launch_cycles


@pytest.mark.parametrize("variant", ["dense", "w8", "w4"])
def test_tensor_core_decode_is_within_10_percent_of_the_dram_bound(variant):
    """Less the vector kernels' launch gaps: fixed costs that move no bytes (6 here, 3 % of the 4-bit step, which
    the GEMMs' own launch gaps and latencies already bring near the 10 %)."""
    compression = Compression.parse("dense", weight_bits={"dense": None, "w8": 8, "w4": 4}[variant])
    arch = load_arch("ampere_a100")
    bound, cycles = bound_and_cycles(arch, llama(), compression)
    assert bound <= cycles - vector_launch_cycles(arch, llama(), compression) <= 1.10 * bound


def test_dlu_decode_is_within_10_percent_of_the_dram_bound():
    arch = load_arch("dlu")  # USER-mode HBM, 128 B per cycle per stream
    for compression in (Compression(), Compression.parse("dense", weight_bits=8)):
        bound, cycles = bound_and_cycles(arch, llama(), compression, word_bits=arch.dlu.bits)
        assert bound <= cycles <= 1.10 * bound, compression.label


def test_pe_array_decode_is_within_10_percent_of_the_dram_bound(tmp_path):
    arch = user_mode(tmp_path, "pe_array", "32 B/cycle")
    bound, cycles = bound_and_cycles(arch, llama(**SMALL))
    assert bound <= cycles <= 1.10 * bound


def test_systolic_decode_reads_each_weight_once_but_misses_the_10_percent(tmp_path):
    """SCALE-Sim's USER mode leaves each layer's first prefetch out of ``cycles`` and re-fetches
    weight folds that overflow half the filter SRAM, so its decode cycles are not (weight + KV
    bytes) / bandwidth (measured: 0.76x at hidden 512, 2.4x at hidden 1024; docs/llm.md). What
    holds while the operands fit: the DRAM reads are the weights and the KV cache, once."""
    arch = user_mode(tmp_path, "tpu_like_128x128_ws", "32 B/cycle")
    config = llama(**dict(SMALL, hidden_size=512, intermediate_size=1376, num_attention_heads=4,
                          num_key_value_heads=4, vocab_size=2000))
    network = transformer_network(config, InferenceStep("decode", 2048, 1))
    elements = StepElements.of(network.layers)
    run = simulate(arch, network)
    data_bytes = (elements.weights + elements.kv_read) * arch.word_bytes
    assert data_bytes <= run.summary_row()["dram_read_bytes"] <= 1.05 * data_bytes


def test_systolic_streaming_decode_is_within_10_percent_of_the_dram_bound():
    """``operand_fetch: streaming`` (arch_configs/tpu_like_128x128_ws_streaming.yaml): every weight
    and KV block is read once, one fold ahead, so a full-width Llama-2-7B block plus LM head at
    batch 1 takes its (weight + KV bytes) / bandwidth of the filter stream."""
    arch = load_arch("tpu_like_128x128_ws_streaming")
    network = transformer_network(llama(), InferenceStep("decode", 2048, 1))
    elements = StepElements.of(network.layers)
    run = simulate(arch, network)
    data_bytes = (elements.weights + elements.kv_read) * arch.word_bytes
    assert data_bytes <= run.summary_row()["dram_read_bytes"] <= 1.01 * data_bytes
    bound, cycles = bound_and_cycles(arch, llama())
    assert bound <= cycles <= 1.10 * bound
