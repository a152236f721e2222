"""The simulated counterpart of a measured serving figure (a measured-hardware case with ``serving:``): the case's
requests, all at time 0, served on its device by the engine of :mod:`.engine` (FCFS: each prompt prefilled, then
the batch decodes together, as a static batch runs); ``tokens_per_s`` is the run's output tokens per second (every
request's output tokens over the time from the first arrival to the last token), ``tokens_per_s_per_gpu`` that over
the run's tensor-parallel devices, ``time_s`` the median time to the first token. The case names the decode-attention
kernel its engine ran (``kv_reads``: how it reads a grouped-query model's cache, :class:`.step.StepModel`) and
whether it fuses the q, k and v projections (``fused_qkv``)."""
from __future__ import annotations

import functools

from accel_sim.foundations.config.loader import REPO_ROOT
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.measured import MeasuredCase, ServingRun
from accel_sim.foundations.workload.llm.compression import Compression
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.measured import SimulatedCase
from accel_sim.systems.serving.engine import ServingConfig, serve
from accel_sim.systems.serving.parallel import TensorParallel
from accel_sim.systems.serving.step import StepModel
from accel_sim.systems.serving.requests import Request

QUANTITIES = {"tokens_per_s": "output_tokens_per_s", "tokens_per_s_per_gpu": "output_tokens_per_s", "time_s": "ttft_s_p50"}
PER_DEVICE = ("tokens_per_s_per_gpu",)


@functools.lru_cache(maxsize=64)
def serving_summary(device: str, run: ServingRun) -> dict:
    """The summary of serving ``run`` on ``device`` (remembered: a TTFT case and a throughput case may share it)."""
    arch = load_arch(device)
    config = read_hf_config(REPO_ROOT / "workloads" / run.model)
    requests = [Request(i, 0.0, run.prompt_tokens, run.output_tokens) for i in range(run.requests)]
    compression = Compression.parse("dense", kv_bits=run.kv_bits, precision=run.precision)
    parallel = TensorParallel(run.tp, arch.device_link_bandwidth, arch.all_reduce_latency)
    step = StepModel(arch, config, compression, tp=parallel, kv_reads=run.kv_reads, fused_qkv=run.fused_qkv)
    return serve(arch, config, requests, ServingConfig("fcfs", max_batch=run.requests), compression, step=step,
                 tp=run.tp).summary


def simulate_serving_case(case: MeasuredCase) -> SimulatedCase:
    if case.serving is None or case.quantity not in QUANTITIES:
        raise InputError.single(case.name, "quantity", f"a serving case measures {' or '.join(QUANTITIES)}")
    summary = serving_summary(case.device, case.serving)
    devices = case.serving.tp if case.quantity in PER_DEVICE else 1
    return SimulatedCase(float(summary[QUANTITIES[case.quantity]]) / devices, load_arch(case.device).family,
                         float(summary["makespan_s"]))
