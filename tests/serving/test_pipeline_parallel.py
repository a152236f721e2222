"""Pipeline parallelism for inference (systems/serving/pipeline.py): the event schedule against hand counts, the
iteration time against its bounds (property tests), the stage split and a PP that does not divide the layers."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.foundations.workload.llm.generator import InferenceStep, transformer_network
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.foundations.workload.llm.memory import step_footprint
from accel_sim.pipeline.catalog import load_arch
from accel_sim.systems.serving.parallel import TensorParallel, shard
from accel_sim.systems.serving.pipeline import PipelineStepModel, micro_batches, pipeline_seconds, stage_config
from accel_sim.systems.serving.step import Iteration
from tests.cli.cli_helpers import assert_one_line_error, run_cli

LLAMA_70B = Path(__file__).resolve().parents[2] / "workloads" / "llm" / "configs" / "llama_2_70b.json"
CONFIG = read_hf_config(LLAMA_70B)
ARCH = load_arch("ampere_a100_80gb")


def test_fill_and_drain_by_hand():
    # 3 micro-batches of 1 s per stage on 2 stages, hand-offs of 0.5 s: stage 1 starts at 1.5 and then runs one
    # micro-batch a second (the next hand-off overlaps the stage's compute): 1.5 + 3 = 4.5 = (M + P - 1) c + t
    assert pipeline_seconds([[1.0, 1.0]] * 3, [0.5] * 3) == 4.5
    # hand-offs of 2 s: the link is the bottleneck: 1 + 3 x 2 + 1 = 8
    assert pipeline_seconds([[1.0, 1.0]] * 3, [2.0] * 3) == 8.0
    # one stage: no hand-off, the micro-batches one after the other
    assert pipeline_seconds([[1.0], [2.0]], [5.0, 5.0]) == 3.0


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(1, 4).flatmap(lambda stages: st.tuples(
    st.lists(st.lists(st.floats(0.0, 5.0), min_size=stages, max_size=stages), min_size=1, max_size=5),
    st.floats(0.0, 3.0))))
def test_schedule_is_at_least_every_bound(case):
    costs, transfer = case
    stages, transfers = len(costs[0]), [transfer * (1 + m) for m in range(len(costs))]
    seconds = pipeline_seconds(costs, transfers)
    busiest_stage = max(sum(row[s] for row in costs) for s in range(stages))
    busiest_link = sum(transfers) if stages > 1 else 0.0
    one_path = max(sum(row) + (stages - 1) * t for row, t in zip(costs, transfers))
    assert seconds >= max(busiest_stage, busiest_link, one_path) - 1e-9
    # and never more than running everything one after the other
    assert seconds <= sum(map(sum, costs)) + (stages - 1) * sum(transfers) + 1e-9


def test_micro_batches_split_the_iteration():
    parts = micro_batches(Iteration(decode=7, decode_span=300, prefill=64, prefill_span=64, heads=8), 3)
    assert [(m.decode, m.prefill, m.heads) for m in parts] == [(3, 64, 3), (2, 0, 3), (2, 0, 2)]
    assert sum(m.rows for m in parts) == 7 + 64


MODELS = {(tp, pp): PipelineStepModel(ARCH, CONFIG, pp, row_bucket=1, span_bucket=1,
                                      tp=TensorParallel(tp, ARCH.device_link_bandwidth)) for tp, pp in ((2, 2), (1, 4))}


@settings(max_examples=8, deadline=None, derandomize=True)
@given(shape=st.sampled_from(sorted(MODELS)), batch=st.integers(1, 32), context=st.integers(1, 4096))
def test_iteration_is_at_least_its_compute_memory_and_communication_bounds(shape, batch, context):
    tp, pp = shape
    model = MODELS[shape]
    seconds = model.cost(Iteration(decode=batch, decode_span=context, heads=batch)).seconds
    device = shard(stage_config(CONFIG, pp), tp)      # one device of the last stage (its blocks and the LM head)
    tc = ARCH.tensor_core
    network = transformer_network(device, InferenceStep("decode", context, batch))
    compute = network.macs / (tc.sms * tc.tensor_cores_per_sm * tc.dense_macs_per_cycle * ARCH.clock)
    footprint = step_footprint(device, InferenceStep("decode", context, batch), 16)
    embeddings = 2 * (CONFIG.vocab // tp) * CONFIG.hidden          # one row read
    memory = (footprint.kv_cache_bytes + footprint.weights_bytes - embeddings) / (tc.dram_bandwidth * ARCH.clock)
    micro = micro_batches(Iteration(decode=batch, decode_span=context, heads=batch), pp)
    communication = sum(model.hand_off_seconds(m.rows) for m in micro)
    assert seconds >= max(compute, memory, communication)


def test_hand_off_is_the_hand_count():
    model = MODELS[(1, 4)]
    # 16 rows x 8192 hidden x 2 bytes over NVLink 3 (300 GB/s each direction), no stated latency
    assert model.hand_off_seconds(16) == 16 * 8192 * 2 / 300e9


def test_pp_that_does_not_divide_the_layers_is_one_line(capsys):
    with pytest.raises(Exception, match="does not divide num_hidden_layers = 80"):
        stage_config(CONFIG, 3)
    assert_one_line_error(run_cli(capsys, "serve", "--model", LLAMA_70B, "--arch", "ampere_a100_80gb", "--tp", "4",
                                  "--pp", "3"), "--pp", "does not divide num_hidden_layers = 80")


def test_serve_with_pipeline_stages(capsys):
    result = run_cli(capsys, "serve", "--model", LLAMA_70B, "--arch", "ampere_a100_80gb", "--tp", "4", "--pp", "2",
                     "--requests", "6", "--prompt-tokens", "64", "--output-tokens", "8", "--quiet")
    assert result.code == 0, result
    assert "2 pipeline stages of 4 x ampere_a100_80gb" in result.out
