"""Serving over time (issue 36 item 2): the closed-form check, conservation, the schedulers, bad input."""
from __future__ import annotations

from pathlib import Path

import pytest

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.llm.generator import InferenceStep, transformer_network
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.simulate import simulate
from accel_sim.systems.serving.engine import ServingConfig, serve
from accel_sim.systems.serving.requests import Request, RequestSource, generate, read_trace
from accel_sim.systems.serving.step import Iteration, StepModel
from tests.cli.cli_helpers import assert_one_line_error, run_cli

CONFIGS = Path(__file__).resolve().parents[2] / "workloads" / "llm" / "configs"
LLAMA = CONFIGS / "llama_2_7b.json"


@pytest.fixture(scope="module")
def a100():
    return load_arch("ampere_a100")


@pytest.fixture(scope="module")
def llama():
    return read_hf_config(LLAMA)


def step_seconds(arch, config, step: InferenceStep) -> float:
    run = simulate(arch, transformer_network(config, step))
    return sum(layer.cycles for layer in run.layers) / arch.clock


def test_one_request_at_a_time_is_the_closed_form(a100, llama):
    """TTFT = the prefill step, TPOT = the mean decode step, each from simulate() of the generator's whole
    step (an independent path: the serving model composes one block's layers)."""
    prompt, output = 40, 3
    requests = [Request(i, 0.0, prompt, output) for i in range(2)]
    exact = StepModel(a100, llama, row_bucket=1, span_bucket=1)
    result = serve(a100, llama, requests, ServingConfig(max_batch=1), step=exact)
    prefill = step_seconds(a100, llama, InferenceStep("prefill", prompt, 1))
    decodes = [step_seconds(a100, llama, InferenceStep("decode", prompt + k, 1, attention="fused")) for k in range(1, output)]
    first, second = result.requests.itertuples()
    assert first.ttft_s == pytest.approx(prefill, rel=1e-12)
    assert first.tpot_s == pytest.approx(sum(decodes) / len(decodes), rel=1e-12)
    assert second.ttft_s == pytest.approx(first.latency_s + prefill, rel=1e-12)   # waits for the first
    assert result.summary["iterations"] == 2 * output


@pytest.mark.parametrize("scheduler", ["fcfs", "chunked"])
def test_tokens_generated_equal_tokens_requested(a100, llama, scheduler):
    requests = generate(RequestSource(requests=300, rate=40.0, prompt_tokens=300, output_tokens=60,
                                      lengths="exponential", seed=3))
    result = serve(a100, llama, requests, ServingConfig(scheduler=scheduler, chunk_tokens=256, max_batch=64))
    frame = result.requests
    assert (frame.generated_tokens == frame.output_tokens).all()
    assert result.summary["tokens_generated"] == sum(r.output_tokens for r in requests)
    # prompt tokens prefilled and decode tokens run add up too, iteration by iteration
    assert result.iterations.prefill_tokens.sum() == sum(r.prompt_tokens for r in requests)
    assert result.iterations.decode_sequences.sum() == sum(r.output_tokens - 1 for r in requests)
    assert (result.iterations.kv_reserved_tokens <= result.summary["kv_capacity_tokens"]).all()
    assert (result.iterations.running_sequences <= 64).all()
    assert (frame.first_token_s >= frame.arrival_s).all() and (frame.finish_s >= frame.first_token_s).all()


def test_a_small_kv_cache_queues_requests(a100, llama):
    requests = [Request(i, 0.0, 100, 20) for i in range(6)]
    result = serve(a100, llama, requests, ServingConfig(kv_capacity_tokens=250))   # two requests at a time
    assert result.iterations.running_sequences.max() == 2
    assert result.iterations.kv_reserved_tokens.max() == 240


def test_batching_one_step_beats_sequences_one_by_one(a100, llama):
    step = StepModel(a100, llama)
    one = step.cost(Iteration(decode=1, decode_span=512, heads=1)).seconds
    many = step.cost(Iteration(decode=64, decode_span=512, heads=64)).seconds
    assert one < many < 64 * one / 4


def test_decode_attention_extrapolation_is_linear_in_the_sequences(a100, llama):
    step = StepModel(a100, llama, row_bucket=1, span_bucket=1)
    costs = [step._decode_attention(b, 256).seconds for b in (16, 32, 48)]
    assert costs[2] - costs[1] == pytest.approx(costs[1] - costs[0], rel=1e-9)


def test_trace_file(tmp_path, a100, llama):
    trace = tmp_path / "trace.csv"
    trace.write_text("arrival_s,prompt_tokens,output_tokens,user\n0.5,64,8,a\n0.0,32,4,b\n")
    requests = read_trace(trace)
    assert [(r.arrival_s, r.prompt_tokens, r.output_tokens) for r in requests] == [(0.0, 32, 4), (0.5, 64, 8)]
    assert serve(a100, llama, requests).summary["tokens_generated"] == 12


@pytest.mark.parametrize("text, field", [("arrival_s,prompt_tokens\n0,5\n", "output_tokens"),
                                         ("arrival_s,prompt_tokens,output_tokens\n0,5,-3\n", "line 2: output_tokens"),
                                         ("arrival_s,prompt_tokens,output_tokens\n0,x,3\n", "line 2: prompt_tokens")])
def test_bad_trace_is_one_line(tmp_path, capsys, text, field):
    trace = tmp_path / "trace.csv"
    trace.write_text(text)
    assert_one_line_error(run_cli(capsys, "serve", "--model", LLAMA, "--trace", trace), field)


@pytest.mark.parametrize("args, field", [(("--output-tokens", "-5"), "--output-tokens"),
                                         (("--scheduler", "lifo"), "--scheduler"),
                                         (("--rate", "0"), "--rate"),
                                         (("--prompt-tokens", "5000"), "prompt_tokens + output_tokens")])
def test_bad_options_are_one_line(capsys, args, field):
    assert_one_line_error(run_cli(capsys, "serve", "--model", LLAMA, *args), field)


def test_a_request_longer_than_the_kv_cache_is_refused(capsys):
    assert_one_line_error(run_cli(capsys, "serve", "--model", LLAMA, "--kv-capacity-tokens", "100",
                                  "--prompt-tokens", "200"), "exceed the KV cache's 100 tokens")


def test_serve_command_writes_tables_and_figure(tmp_path, capsys):
    result = run_cli(capsys, "serve", "--model", LLAMA, "--requests", "20", "--rate", "10", "--prompt-tokens", "64",
                     "--output-tokens", "16", "--scheduler", "chunked", "--out", tmp_path / "out", "--quiet")
    assert result.code == 0, result
    assert "TTFT" in result.out and "tokens/s" in result.out
    for name in ("requests.csv", "iterations.csv", "summary.csv", "serving.png"):
        assert (tmp_path / "out" / name).is_file()


def test_bad_request_source_names_the_option():
    with pytest.raises(InputError, match="--lengths"):
        RequestSource(lengths="normal")
