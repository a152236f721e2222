"""Continuous batching over time, as a SimPy model: requests arrive, an engine admits them into the KV
cache and runs one iteration after another, each timed by :class:`~.step.StepModel`.

- **Admission** (both schedulers): first come, first served, while the running batch has fewer than
  ``max_batch`` sequences and the KV cache can hold the request's prompt and all its output tokens
  (no request is ever evicted: TensorRT-LLM's ``GUARANTEED_NO_EVICT`` capacity policy). The KV
  capacity in tokens is the device memory left after the weights and the largest iteration's
  activations, over the KV bytes of one token (:func:`kv_capacity_tokens`), or given.
- **fcfs**: an admitted prompt is prefilled whole, alone, in its own iteration, before the running
  sequences decode again (prefill first, as vLLM's default scheduler before chunked prefill);
  otherwise every running sequence decodes one token.
- **chunked** (chunked prefill, Sarathi-Serve; vLLM's ``enable_chunked_prefill``): every iteration
  decodes one token of every running sequence that has its prompt, and fills the rest of a budget of
  ``chunk_tokens`` tokens with the next piece of the oldest prompt still being prefilled.

A prompt's last prefill iteration produces its first token (TTFT is measured at that iteration's end);
each decode iteration one more. Events are per arrival and per iteration, never per token.
"""
from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

import numpy as np
import pandas as pd
import simpy

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.llm.compression import DENSE, Compression
from accel_sim.foundations.workload.llm.generator import InferenceStep
from accel_sim.foundations.workload.llm.hf_config import TransformerConfig
from accel_sim.foundations.workload.llm.memory import step_footprint
from accel_sim.foundations.workload.memory import refusal
from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.pipeline.sweep.progress import Progress
from accel_sim.systems.serving.parallel import TensorParallel, shard
from accel_sim.systems.serving.requests import Request
from accel_sim.systems.serving.pipeline import PipelineStepModel, stage_config
from accel_sim.systems.serving.step import Iteration, StepModel, kv_bytes_per_token

SCHEDULERS = ("fcfs", "chunked")
PERCENTILES = (50, 90, 99)


@dataclass(frozen=True)
class ServingConfig:
    scheduler: str = "fcfs"
    chunk_tokens: int = 512            # chunked: tokens per iteration (vLLM's max_num_batched_tokens default with chunking)
    max_batch: int = 256               # sequences running at once (vLLM's max_num_seqs default)
    kv_capacity_tokens: int | None = None   # None: from the device memory
    slo_ttft_s: float | None = None    # service-level objective on the time to first token (None: none)
    slo_tpot_s: float | None = None    # on the time per output token

    def __post_init__(self) -> None:
        for option, value in (("--slo-ttft-ms", self.slo_ttft_s), ("--slo-tpot-ms", self.slo_tpot_s)):
            if value is not None and not value > 0:
                raise InputError.single(option, str(value * 1e3), "must be > 0 milliseconds")
        if self.scheduler not in SCHEDULERS:
            raise InputError.single("--scheduler", self.scheduler, f"expected one of {', '.join(SCHEDULERS)}")
        for option, value in (("--chunk-tokens", self.chunk_tokens), ("--max-batch", self.max_batch)):
            if value < 1:
                raise InputError.single(option, str(value), "must be >= 1")
        if self.scheduler == "chunked" and self.chunk_tokens <= 1:
            raise InputError.single("--chunk-tokens", str(self.chunk_tokens), "chunked prefill needs a budget > 1 "
                                    "token (one for decodes, the rest for a prompt chunk)")
        if self.kv_capacity_tokens is not None and self.kv_capacity_tokens < 1:
            raise InputError.single("--kv-capacity-tokens", str(self.kv_capacity_tokens), "must be >= 1")


@dataclass(eq=False)
class _Sequence:
    request: Request
    admitted: int = 0            # admission order (the order the running batch lists its sequences in)
    prefilled: int = 0
    generated: int = 0           # kept current until the prompt is prefilled, then set when the sequence finishes
    first_token_s: float = math.nan
    finish_s: float = math.nan

    @property
    def reserved(self) -> int:
        return self.request.prompt_tokens + self.request.output_tokens


@dataclass(frozen=True)
class ServingResult:
    requests: pd.DataFrame        # one row per request
    iterations: pd.DataFrame      # one row per engine iteration
    summary: dict = field(default_factory=dict)


def kv_capacity_tokens(arch: ArchSpec, config: TransformerConfig, serving: ServingConfig,
                       requests: Sequence[Request], compression: Compression = DENSE) -> int:
    """Tokens the KV cache holds: (device memory - weights - the largest iteration's activations) / the KV
    bytes of one token; an :class:`InputError` when the weights and one request do not fit."""
    if config.max_positions is not None:
        over = next((r for r in requests if r.prompt_tokens + r.output_tokens > config.max_positions), None)
        if over is not None:
            raise InputError.single(f"request {over.index}", "prompt_tokens + output_tokens",
                                    f"{over.prompt_tokens + over.output_tokens} tokens exceed the model's "
                                    f"{config.max_positions} positions ({config.source})")
    if serving.kv_capacity_tokens is not None:
        capacity = serving.kv_capacity_tokens
    else:
        if arch.memory_capacity is None:
            raise InputError.single("--arch", arch.name, "states no memory_capacity: give --kv-capacity-tokens")
        longest = max(r.prompt_tokens + r.output_tokens for r in requests)
        prompt = max(r.prompt_tokens for r in requests)
        prefill_rows = min(prompt, serving.chunk_tokens) if serving.scheduler == "chunked" else prompt
        largest = [step_footprint(config, InferenceStep("prefill", prefill_rows, 1), arch.word_bits, compression),
                   step_footprint(config, InferenceStep("decode", longest, min(serving.max_batch, len(requests))),
                                  arch.word_bits, compression)]
        weights = largest[0].weights_bytes
        activations = max(f.activation_bytes for f in largest)
        capacity = math.floor((arch.memory_capacity - weights - activations)
                              / kv_bytes_per_token(config, arch.word_bits, compression))
        if capacity < longest:
            one = step_footprint(config, InferenceStep("decode", longest, 1), arch.word_bits, compression)
            raise InputError.single(config.name, "memory", refusal(one, arch.name, arch.memory_capacity))
    too_long = next((r for r in requests if r.prompt_tokens + r.output_tokens > capacity), None)
    if too_long is not None:
        raise InputError.single(f"request {too_long.index}", "prompt_tokens + output_tokens",
                                f"{too_long.prompt_tokens + too_long.output_tokens} tokens exceed the KV cache's "
                                f"{capacity} tokens")
    return capacity


class Engine:
    """The SimPy processes of one serving run (see the module doc).

    The running batch is kept as running totals, updated as sequences join, advance and leave, so an iteration
    costs the sequences it changes, not the sequences running: the prompts still to prefill (a queue in admission
    order, the front one being prefilled), the number of decoding sequences and the tokens they store, and the KV
    tokens stored and reserved by all. Every decoding sequence gains one token per decode iteration, so a decoder's
    tokens follow from the count of decode iterations (``decode_clock``): it finishes at the decode iteration its
    last token is due (``_due``)."""

    def __init__(self, env: simpy.Environment, step: StepModel, requests: Sequence[Request], serving: ServingConfig,
                 capacity_tokens: int, progress: Progress | None = None):
        self.env, self.step, self.serving, self.capacity = env, step, serving, capacity_tokens
        self.requests = requests
        self.waiting: deque[_Sequence] = deque()
        self.prefilling: deque[_Sequence] = deque()   # running sequences whose prompt is not all prefilled
        self.running = 0            # sequences running (admitted, not finished)
        self.decoding = 0           # of those, the ones whose prompt is prefilled
        self.decode_stored = 0      # KV tokens the decoding sequences store
        self.stored = 0             # KV tokens all running sequences store
        self.reserved = 0           # KV tokens they reserve (prompt + output each)
        self.decode_clock = 0       # decode iterations so far
        self._due: dict[int, list[_Sequence]] = {}   # decode_clock -> the decoders finishing then
        self.admitted = 0
        self.done: list[_Sequence] = []
        self.progress = progress
        self.rows: list[tuple] = []
        self._wake = env.event()
        env.process(self._arrivals())
        self.finished = env.process(self._engine())

    def _arrivals(self):
        for request in self.requests:
            if request.arrival_s > self.env.now:
                yield self.env.timeout(request.arrival_s - self.env.now)
            self.waiting.append(_Sequence(request))
            if not self._wake.triggered:
                self._wake.succeed()

    def _admit(self) -> None:
        while (self.waiting and self.running < self.serving.max_batch
               and self.reserved + self.waiting[0].reserved <= self.capacity):
            sequence = self.waiting.popleft()
            sequence.admitted, self.admitted = self.admitted, self.admitted + 1
            self.reserved += sequence.reserved
            self.running += 1
            self.prefilling.append(sequence)

    def _plan(self) -> tuple[Iteration, bool, _Sequence | None, int]:
        """The next iteration: its work, whether the decoding sequences decode, the prompt being prefilled and its
        chunk."""
        prefilling = self.prefilling[0] if self.prefilling else None
        if self.serving.scheduler == "fcfs" and prefilling is not None:
            prompt = prefilling.request.prompt_tokens
            return Iteration(prefill=prompt, prefill_span=prompt, heads=1), False, prefilling, prompt
        decoders = self.decoding
        chunk = 0
        if prefilling is not None:
            chunk = min(prefilling.request.prompt_tokens - prefilling.prefilled, self.serving.chunk_tokens - decoders)
        if chunk <= 0:
            prefilling, chunk = None, 0
        span = round(self.decode_stored / decoders) if decoders else 0
        completes = prefilling is not None and prefilling.prefilled + chunk == prefilling.request.prompt_tokens
        return (Iteration(decode=decoders, decode_span=span, prefill=chunk,
                          prefill_span=(prefilling.prefilled + chunk) if prefilling else 0,
                          heads=decoders + int(completes)), True, prefilling, chunk)

    def _advance(self, decode: bool, prefilling: _Sequence | None, chunk: int, now: float) -> list[_Sequence]:
        """Apply one iteration's work: every decoder gains a token, the chunk is prefilled (its last one produces
        the first token); the sequences that have all their tokens, in admission order."""
        finished = []
        if decode and self.decoding:
            self.decode_clock += 1
            self.stored += self.decoding
            self.decode_stored += self.decoding
            finished = self._due.pop(self.decode_clock, [])
        if prefilling is not None:
            prefilling.prefilled += chunk
            self.stored += chunk
            request = prefilling.request
            if prefilling.prefilled == request.prompt_tokens:
                self.prefilling.popleft()
                prefilling.generated, prefilling.first_token_s = 1, now
                self.stored += 1
                if request.output_tokens == 1:
                    finished.append(prefilling)
                else:
                    self.decoding += 1
                    self.decode_stored += prefilling.prefilled + 1
                    self._due.setdefault(self.decode_clock + request.output_tokens - 1, []).append(prefilling)
        if len(finished) > 1:
            finished.sort(key=lambda s: s.admitted)
        return finished

    def _engine(self):
        total = len(self.requests)
        while len(self.done) < total:
            self._admit()
            if not self.running:
                yield self._wake
                self._wake = self.env.event()
                continue
            iteration, decode, prefilling, chunk = self._plan()
            cost = self.step.cost(iteration)
            start = self.env.now
            yield self.env.timeout(cost.seconds)
            now = self.env.now
            finished = self._advance(decode, prefilling, chunk, now)
            self.rows.append((start, cost.seconds, iteration.decode, iteration.prefill, self.running,
                              self.stored, self.reserved, cost.energy_j))
            for sequence in finished:
                sequence.finish_s, sequence.generated = now, sequence.request.output_tokens
                tokens = sequence.reserved      # the KV tokens it stores now, all it reserved
                if sequence.request.output_tokens > 1:    # it was decoding
                    self.decoding -= 1
                    self.decode_stored -= tokens
                self.reserved -= tokens
                self.stored -= tokens
                self.running -= 1
                self.done.append(sequence)
                if self.progress is not None:
                    self.progress.advance()


def _percentiles(values: np.ndarray, name: str) -> dict:
    values = values[~np.isnan(values)]
    return {f"{name}_p{p}": float(np.percentile(values, p)) if len(values) else math.nan for p in PERCENTILES} | {
        f"{name}_mean": float(values.mean()) if len(values) else math.nan}


def serve(arch: ArchSpec, config: TransformerConfig, requests: Sequence[Request], serving: ServingConfig = ServingConfig(),
          compression: Compression = DENSE, step: StepModel | None = None,
          progress: TextIO | None = None, tp: int = 1, pp: int = 1, kv_reads: str = "per_kv_head") -> ServingResult:
    """Simulate serving ``requests`` of ``config`` on ``arch`` (see the module doc); with ``tp`` > 1 on that many
    devices in tensor parallel (:mod:`.parallel`: each holds 1 / tp of the weights and of the KV cache), with ``pp``
    > 1 in that many pipeline stages of tp devices each (:mod:`.pipeline`: each stage holds 1 / pp of the blocks;
    the embeddings and the LM head are counted on every stage's memory, an over-count of one stage's share).
    ``kv_reads`` names the decode-attention kernel's reads of a grouped-query model's cache (:class:`.step.StepModel`;
    ignored when ``step`` is given)."""
    if not requests:
        raise InputError.single("requests", "", "no requests to serve")
    for request in requests:
        for field_name in ("prompt_tokens", "output_tokens"):
            if getattr(request, field_name) < 1:
                raise InputError.single(f"request {request.index}", field_name,
                                        f"must be >= 1, got {getattr(request, field_name)}")
    parallel = TensorParallel(tp, arch.device_link_bandwidth, arch.all_reduce_latency)
    per_device = shard(stage_config(config, pp), tp)
    capacity = kv_capacity_tokens(arch, per_device, serving, requests, compression)
    if step is None:
        step = (PipelineStepModel(arch, config, pp, compression=compression, tp=parallel, kv_reads=kv_reads) if pp > 1
                else StepModel(arch, config, compression, tp=parallel, kv_reads=kv_reads))
    meter = Progress(f"serving {config.name} on {arch.name}", len(requests), 0, progress, unit="requests")
    env = simpy.Environment()
    engine = Engine(env, step, sorted(requests, key=lambda r: (r.arrival_s, r.index)), serving, capacity, meter)
    env.run(until=engine.finished)
    meter.finish()
    done = sorted(engine.done, key=lambda s: s.request.index)
    frame = pd.DataFrame({
        "request": [s.request.index for s in done],
        "arrival_s": [s.request.arrival_s for s in done],
        "prompt_tokens": [s.request.prompt_tokens for s in done],
        "output_tokens": [s.request.output_tokens for s in done],
        "generated_tokens": [s.generated for s in done],
        "first_token_s": [s.first_token_s for s in done],
        "finish_s": [s.finish_s for s in done]})
    frame["ttft_s"] = frame.first_token_s - frame.arrival_s
    frame["tpot_s"] = ((frame.finish_s - frame.first_token_s) / (frame.output_tokens - 1)).where(frame.output_tokens > 1)
    frame["latency_s"] = frame.finish_s - frame.arrival_s
    iterations = pd.DataFrame(engine.rows, columns=["start_s", "duration_s", "decode_sequences", "prefill_tokens",
                                                    "running_sequences", "kv_tokens", "kv_reserved_tokens", "energy_j"])
    iterations["kv_share"] = iterations.kv_tokens / capacity
    makespan = float(frame.finish_s.max() - frame.arrival_s.min())
    generated = int(frame.generated_tokens.sum())
    summary = {"model": config.name, "arch": arch.name, "tp": tp, "pp": pp, "scheduler": serving.scheduler, "requests": len(frame),
               "tokens_requested": int(frame.output_tokens.sum()), "tokens_generated": generated,
               "prompt_tokens": int(frame.prompt_tokens.sum()), "makespan_s": makespan,
               "output_tokens_per_s": generated / makespan if makespan > 0 else math.nan,
               "requests_per_s": len(frame) / makespan if makespan > 0 else math.nan,
               **_percentiles(frame.ttft_s.to_numpy(), "ttft_s"), **_percentiles(frame.tpot_s.to_numpy(), "tpot_s"),
               **_percentiles(frame.latency_s.to_numpy(), "latency_s"),
               "energy_j": float(iterations.energy_j.sum()),
               "energy_per_token_j": float(iterations.energy_j.sum()) / generated,
               "kv_capacity_tokens": capacity, "kv_peak_share": float(iterations.kv_share.max()),
               "iterations": len(iterations), "layer_simulations": step.layer_simulations,
               **_attainment(frame, serving, makespan)}
    return ServingResult(frame, iterations, summary)


def _attainment(frame: pd.DataFrame, serving: ServingConfig, makespan: float) -> dict:
    """With service-level objectives: the share of requests meeting every objective (TTFT, TPOT; a one-token
    request has no TPOT and meets that one) and the goodput, those requests per second and their output tokens
    per second (DistServe's goodput, Zhong et al., OSDI 2024)."""
    if serving.slo_ttft_s is None and serving.slo_tpot_s is None:
        return {}
    met = pd.Series(True, index=frame.index)
    if serving.slo_ttft_s is not None:
        met &= frame.ttft_s <= serving.slo_ttft_s
    if serving.slo_tpot_s is not None:
        met &= frame.tpot_s.isna() | (frame.tpot_s <= serving.slo_tpot_s)
    return {"slo_ttft_s": serving.slo_ttft_s, "slo_tpot_s": serving.slo_tpot_s, "slo_attainment": float(met.mean()),
            "goodput_requests_per_s": float(met.sum()) / makespan if makespan > 0 else math.nan,
            "goodput_tokens_per_s": float(frame.generated_tokens[met].sum()) / makespan if makespan > 0 else math.nan}
