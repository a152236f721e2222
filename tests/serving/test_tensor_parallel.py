"""Tensor parallelism for Llama-2-70B decode (issue 36 item 3): weights and KV cache split, all-reduce
bytes per block equal a hand count, and the step time is at least each of its bounds (a property test)."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.foundations.workload.llm.generator import InferenceStep, transformer_network
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.foundations.workload.llm.memory import parameters, step_footprint
from accel_sim.pipeline.catalog import load_arch
from accel_sim.systems.serving.parallel import TensorParallel, shard
from accel_sim.systems.serving.step import Iteration, StepModel
from tests.cli.cli_helpers import assert_one_line_error, run_cli

LLAMA_70B = Path(__file__).resolve().parents[2] / "workloads" / "llm" / "configs" / "llama_2_70b.json"
CONFIG = read_hf_config(LLAMA_70B)
ARCH = load_arch("ampere_a100_80gb")
HIDDEN, LAYERS, KV_HEADS, HEAD_DIM = 8192, 80, 8, 128
NORMS = HIDDEN * (2 * LAYERS + 1)   # RMSNorm gains, replicated on every device


def test_llama_2_70b_has_its_published_parameters():
    assert parameters(CONFIG) == 68_976_648_192


@pytest.mark.parametrize("degree", [2, 4, 8])
def test_weights_and_kv_cache_are_split(degree):
    batch, context = 8, 2048
    one = step_footprint(CONFIG, InferenceStep("decode", context, batch), 16)
    device = step_footprint(shard(CONFIG, degree), InferenceStep("decode", context, batch), 16)
    assert device.weights_bytes == 2 * ((parameters(CONFIG) - NORMS) // degree + NORMS)
    assert device.kv_cache_bytes == one.kv_cache_bytes / degree == 2 * LAYERS * (KV_HEADS // degree) * HEAD_DIM * \
        context * batch * 2
    layers = transformer_network(shard(CONFIG, degree), InferenceStep("decode", context, batch)).layers
    q = next(layer for layer in layers if layer.name == "l00_attn_q")
    down = next(layer for layer in layers if layer.name == "l00_mlp_down")
    assert (q.k, q.n) == (HIDDEN, 64 * HEAD_DIM // degree) and (down.k, down.n) == (28672 // degree, HIDDEN)


@pytest.mark.parametrize("degree", [2, 4, 8])
def test_all_reduce_bytes_per_block_are_the_hand_count(degree):
    tp = TensorParallel(degree, ARCH.device_link_bandwidth)
    batch = 32
    message = tp.all_reduce_bytes(batch, HIDDEN, 16)
    assert message == batch * HIDDEN * 2                              # one token's hidden vector per sequence, FP16
    assert tp.sent_bytes(message) == 2 * (degree - 1) / degree * batch * HIDDEN * 2   # ring: reduce-scatter + all-gather
    assert tp.block_seconds(batch, HIDDEN, 16) == 2 * tp.sent_bytes(message) / 300e9   # two per block, 300 GB/s


@pytest.mark.parametrize("degree", [2, 4, 8])
def test_an_all_reduce_takes_its_measured_latency_plus_its_ring_traffic(degree):
    assert ARCH.all_reduce_latency == pytest.approx(10.14e-6)   # nccl-tests, 32 B over two A100s (the config's source)
    tp = TensorParallel(degree, ARCH.device_link_bandwidth, ARCH.all_reduce_latency)
    batch = 32
    sent = 2 * (degree - 1) / degree * batch * HIDDEN * 2                # ring bytes from each device, FP16
    assert tp.all_reduce_seconds(batch * HIDDEN * 2) == pytest.approx(10.14e-6 + sent / 300e9, rel=1e-12)
    assert tp.block_seconds(batch, HIDDEN, 16) == pytest.approx(2 * (10.14e-6 + sent / 300e9), rel=1e-12)
    assert TensorParallel(1, ARCH.device_link_bandwidth, ARCH.all_reduce_latency).block_seconds(batch, HIDDEN, 16) == 0


STEP_MODELS = {degree: StepModel(ARCH, CONFIG, row_bucket=1, span_bucket=1,
                                 tp=TensorParallel(degree, ARCH.device_link_bandwidth, ARCH.all_reduce_latency))
               for degree in (2, 4, 8)}


@settings(max_examples=12, deadline=None, derandomize=True)
@given(degree=st.sampled_from([2, 4, 8]), batch=st.integers(1, 48), context=st.integers(1, 4096))
def test_step_time_is_at_least_every_bound(degree, batch, context):
    step = STEP_MODELS[degree]
    seconds = step.cost(Iteration(decode=batch, decode_span=context, heads=batch)).seconds
    device = transformer_network(shard(CONFIG, degree), InferenceStep("decode", context, batch))
    tc = ARCH.tensor_core
    compute = device.macs / (tc.sms * tc.tensor_cores_per_sm * tc.dense_macs_per_cycle * ARCH.clock)
    footprint = step_footprint(shard(CONFIG, degree), InferenceStep("decode", context, batch), 16)
    streamed = footprint.kv_cache_bytes + footprint.weights_bytes - 2 * (CONFIG.vocab // degree) * HIDDEN  # embeddings: one row read
    memory = streamed / (tc.dram_bandwidth * ARCH.clock)
    communication = LAYERS * step.tp.block_seconds(batch, HIDDEN, 16)
    assert seconds >= max(compute, memory, communication)


def test_more_devices_take_a_shorter_step():
    times = [STEP_MODELS[d].cost(Iteration(decode=16, decode_span=1024, heads=16)).seconds for d in (2, 4, 8)]
    assert times[0] > times[1] > times[2]


def test_tp_that_does_not_divide_the_heads_is_one_line(capsys):
    assert_one_line_error(run_cli(capsys, "serve", "--model", LLAMA_70B, "--arch", "ampere_a100_80gb", "--tp", "3"),
                          "--tp", "does not divide num_attention_heads = 64")
    assert_one_line_error(run_cli(capsys, "serve", "--model", LLAMA_70B, "--arch", "ampere_a100_80gb", "--tp", "16"),
                          "does not divide num_key_value_heads = 8")


def test_70b_does_not_fit_one_80_gb_device(capsys):
    assert_one_line_error(run_cli(capsys, "serve", "--model", LLAMA_70B, "--arch", "ampere_a100_80gb"),
                          "does not fit device memory", "weights 137.95 GB")


def test_a_per_gpu_throughput_case_divides_the_run_by_its_tp_degree():
    from accel_sim.foundations.measured import MeasuredCase, ServingRun
    from accel_sim.systems.serving.measured import serving_summary, simulate_serving_case
    run = ServingRun("llm/configs/llama_2_7b.json", requests=4, prompt_tokens=16, output_tokens=4, tp=2)
    per_gpu = MeasuredCase("c", "ampere_a100_80gb_serving", "llm/configs/llama_2_7b.json", {"batch": 4},
                           "tokens_per_s_per_gpu", "tokens/s/GPU", 1.0, "s", 0.2, serving=run)
    total = serving_summary("ampere_a100_80gb_serving", run)["output_tokens_per_s"]
    assert simulate_serving_case(per_gpu).value == pytest.approx(total / 2, rel=1e-12)
