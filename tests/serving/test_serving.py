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


def test_a_request_with_no_prompt_or_no_output_is_refused(a100, llama):
    for prompt, output in ((0, 5), (5, 0)):
        with pytest.raises(InputError, match="must be >= 1"):
            serve(a100, llama, [Request(0, 0.0, 10, 10), Request(1, 0.0, prompt, output)])


def _rows_summed_over_the_batch(step: StepModel, requests, serving: ServingConfig, capacity: int) -> list[tuple]:
    """Every iteration's row with the running batch summed sequence by sequence (the engine keeps running totals;
    requests all at time 0)."""
    waiting, running, rows, now, reserved = list(requests), [], [], 0.0, 0
    while waiting or running:
        while waiting and len(running) < serving.max_batch and reserved + sum(waiting[0][:2]) <= capacity:
            reserved += sum(waiting[0][:2])
            running.append(list(waiting.pop(0)) + [0, 0])           # prompt, output, prefilled, generated
        prefilling = next((s for s in running if s[2] < s[0]), None)
        if serving.scheduler == "fcfs" and prefilling is not None:
            decoders, chunk = [], prefilling[0]
            it = Iteration(prefill=chunk, prefill_span=chunk, heads=1)
        else:
            decoders = [s for s in running if s[2] == s[0]]
            chunk = min(prefilling[0] - prefilling[2], serving.chunk_tokens - len(decoders)) if prefilling else 0
            if chunk <= 0:
                prefilling, chunk = None, 0
            span = round(sum(s[2] + s[3] for s in decoders) / len(decoders)) if decoders else 0
            completes = prefilling is not None and prefilling[2] + chunk == prefilling[0]
            it = Iteration(decode=len(decoders), decode_span=span, prefill=chunk,
                           prefill_span=prefilling[2] + chunk if prefilling else 0, heads=len(decoders) + completes)
        cost = step.cost(it)
        start, now = now, now + cost.seconds
        for s in decoders:
            s[3] += 1
        if prefilling is not None:
            prefilling[2] += chunk
            prefilling[3] = 1 if prefilling[2] == prefilling[0] else 0
        rows.append((start, cost.seconds, it.decode, it.prefill, len(running), sum(s[2] + s[3] for s in running),
                     reserved, cost.energy_j))
        reserved -= sum(s[0] + s[1] for s in running if s[3] == s[1])
        running = [s for s in running if s[3] < s[1]]
    return rows


@pytest.mark.parametrize("serving", [ServingConfig("fcfs", max_batch=5, kv_capacity_tokens=900),
                                     ServingConfig("chunked", chunk_tokens=48, max_batch=6, kv_capacity_tokens=700)],
                         ids=["fcfs", "chunked"])
def test_running_totals_equal_the_batch_summed_sequence_by_sequence(a100, llama, serving):
    requests = generate(RequestSource(requests=40, prompt_tokens=60, output_tokens=12, lengths="exponential", seed=5))
    step = StepModel(a100, llama, row_bucket=1, span_bucket=1)     # every token of a span counts
    result = serve(a100, llama, requests, serving, step=step)
    expected = _rows_summed_over_the_batch(step, [(r.prompt_tokens, r.output_tokens) for r in requests], serving,
                                           result.summary["kv_capacity_tokens"])
    assert list(result.iterations.drop(columns="kv_share").itertuples(index=False, name=None)) == expected
