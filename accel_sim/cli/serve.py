"""``accel-sim serve --model CONFIG.json --arch A [--requests N --rate R | --trace FILE] --out DIR``: LLM
serving over time (continuous batching, a KV cache of the device's capacity, FCFS or chunked prefill),
each iteration timed by the family's step model (:mod:`accel_sim.systems.serving`). Prints TTFT, TPOT,
latency percentiles, tokens/s and energy per token; ``--out`` writes ``requests.csv``, ``iterations.csv``,
``summary.csv`` and ``serving.png``."""
from __future__ import annotations

import argparse
import math

from accel_sim.cli.args import add_compression_options, add_output_options, progress_stream
from accel_sim.cli.output import check_output_folder


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("serve", help="simulate LLM serving over time: requests, continuous batching, "
                                   "KV-cache capacity; TTFT, TPOT, tokens/s, energy per token")
    parser.add_argument("--model", required=True, help="Hugging Face config.json (e.g. workloads/llm/configs/llama_2_7b.json)")
    parser.add_argument("--arch", default="ampere_a100", help="accelerator config (default ampere_a100)")
    parser.add_argument("--trace", default=None, help="CSV of requests: arrival_s, prompt_tokens, output_tokens "
                        "(instead of the seeded distribution)")
    parser.add_argument("--requests", type=int, default=100, help="requests drawn from the distribution (default 100)")
    parser.add_argument("--rate", type=float, default=math.inf,
                        help="Poisson arrivals, requests per second (default inf: all at time 0)")
    parser.add_argument("--prompt-tokens", type=int, default=512, help="mean prompt length (default 512)")
    parser.add_argument("--output-tokens", type=int, default=128, help="mean output length (default 128)")
    parser.add_argument("--lengths", default="uniform", help="fixed, uniform on [mean/2, 3 mean/2] (default) or exponential")
    parser.add_argument("--seed", type=int, default=0, help="seed of arrivals and lengths (default 0)")
    parser.add_argument("--scheduler", default="fcfs", help="fcfs (whole prompts first) or chunked (chunked prefill)")
    parser.add_argument("--chunk-tokens", type=int, default=512, help="chunked: tokens per iteration (default 512)")
    parser.add_argument("--max-batch", type=int, default=256, help="sequences running at once (default 256)")
    parser.add_argument("--kv-capacity-tokens", type=int, default=None,
                        help="KV-cache capacity in tokens (default: the device memory left after weights and activations)")
    parser.add_argument("--tp", type=int, default=1, help="tensor-parallel devices (default 1); must divide the heads "
                        "and the KV heads")
    parser.add_argument("--pp", type=int, default=1, help="pipeline-parallel stages (default 1), each of --tp devices "
                        "holding num_hidden_layers / pp blocks; must divide the layers")
    add_compression_options(parser)
    parser.add_argument("--slo-ttft-ms", type=float, default=None, help="service-level objective on the time to first "
                        "token, ms: prints the share of requests meeting the objectives and the goodput")
    parser.add_argument("--slo-tpot-ms", type=float, default=None, help="service-level objective on the time per "
                        "output token, ms")
    parser.add_argument("--fused-qkv", action="store_true",
                        help="the q, k and v projections as one GEMM of their concatenated weights (attn_qkv), as "
                             "TensorRT-LLM and gpt-fast run them; default: three GEMMs")
    parser.add_argument("--kv-reads", default="per_kv_head",
                        help="how the decode-attention kernel reads a grouped-query model's KV cache: per_kv_head "
                             "(default; a GQA-aware kernel, FlashDecoding's, vLLM's, TensorRT-LLM's XQA: each KV head's "
                             "cache once for the query heads of its group) or per_query_head (one thread block per "
                             "query head, TensorRT-LLM's masked multi-head attention: each KV head's cache once per "
                             "query head, the repeats from the L2); the same for a multi-head model")
    parser.add_argument("--out", default=None, help="folder for requests.csv, iterations.csv, summary.csv, serving.png")
    parser.add_argument("--no-figure", action="store_true", help="skip serving.png")
    add_output_options(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    import pandas as pd

    from accel_sim.foundations.workload.llm.compression import Compression
    from accel_sim.foundations.workload.llm.hf_config import read_hf_config
    from accel_sim.pipeline.catalog import load_arch
    from accel_sim.systems.serving.engine import ServingConfig, serve
    from accel_sim.systems.serving.requests import RequestSource, generate, read_trace

    identity = " ".join(f"{k}={v}" for k, v in sorted(vars(args).items()) if k not in ("handler", "force", "quiet"))
    folder = check_output_folder(args.out, "serve " + identity, args.force) if args.out is not None else None
    compression = Compression.parse(args.weights, args.weight_bits, args.kv_bits, args.group_size, args.scale_bits,
                                    args.quantize_lm_head, args.precision)
    serving = ServingConfig(args.scheduler, args.chunk_tokens, args.max_batch, args.kv_capacity_tokens,
                            None if args.slo_ttft_ms is None else args.slo_ttft_ms / 1e3,
                            None if args.slo_tpot_ms is None else args.slo_tpot_ms / 1e3)
    requests = read_trace(args.trace) if args.trace else generate(RequestSource(
        args.requests, args.rate, args.prompt_tokens, args.output_tokens, args.lengths, args.seed))
    config = read_hf_config(args.model)
    arch = load_arch(args.arch)
    result = serve(arch, config, requests, serving, compression, step=_fused_qkv_step(args, arch, config, compression),
                   progress=progress_stream(args), tp=args.tp, pp=args.pp, kv_reads=args.kv_reads)
    s = result.summary
    devices = f"{args.tp} x {arch.name} (tensor parallel)" if args.tp > 1 else arch.name
    devices = f"{args.pp} pipeline stages of {devices}" if args.pp > 1 else devices
    weights = "" if compression.label == "dense" else f", weights {compression.label}"
    print(f"{config.name}{weights} on {devices}, {s['scheduler']}: {s['requests']} requests, {s['tokens_generated']:,} tokens "
          f"generated of {s['tokens_requested']:,} requested, in {s['makespan_s']:.2f} s ({s['iterations']:,} iterations)")
    print(f"  throughput {s['output_tokens_per_s']:.1f} output tokens/s, {s['requests_per_s']:.2f} requests/s; "
          f"energy {s['energy_per_token_j'] * 1e3:.1f} mJ per output token")
    for name, label in (("ttft_s", "TTFT"), ("tpot_s", "TPOT"), ("latency_s", "latency")):
        scale, unit = (1e3, "ms") if name != "latency_s" else (1, "s")
        print(f"  {label:8s} p50 {s[name + '_p50'] * scale:.2f} {unit}, p90 {s[name + '_p90'] * scale:.2f} {unit}, "
              f"p99 {s[name + '_p99'] * scale:.2f} {unit}")
    print(f"  KV cache {s['kv_capacity_tokens']:,} tokens, peak use {100 * s['kv_peak_share']:.1f} %")
    if "slo_attainment" in s:
        print(f"  SLO {_slo_text(s)}: {100 * s['slo_attainment']:.1f} % of requests met it; goodput "
              f"{s['goodput_requests_per_s']:.2f} requests/s, {s['goodput_tokens_per_s']:.1f} output tokens/s")
    if folder is not None:
        out = folder.create()
        result.requests.to_csv(out / "requests.csv", index=False)
        result.iterations.to_csv(out / "iterations.csv", index=False)
        pd.DataFrame([s]).to_csv(out / "summary.csv", index=False)
        written = [out / "requests.csv", out / "iterations.csv", out / "summary.csv"]
        if not args.no_figure:
            from accel_sim.pipeline.plot.save import save_figure
            from accel_sim.pipeline.plot.serving import serving_figure
            written.append(save_figure(serving_figure(result.requests, result.iterations,
                                                      f"{config.name} on {arch.name}, {s['scheduler']}"),
                                       out / "serving.png"))
        print(f"wrote {', '.join(str(p) for p in written)}")
    return 0


def _slo_text(summary: dict) -> str:
    parts = [f"{label} <= {summary[key] * 1e3:g} ms" for key, label in (("slo_ttft_s", "TTFT"), ("slo_tpot_s", "TPOT"))
             if summary[key] is not None]
    return " and ".join(parts)


def _fused_qkv_step(args: argparse.Namespace, arch: object, config: object, compression: object) -> object:
    """With ``--fused-qkv`` the step model the engine would build, fusing the q, k and v projections; else None
    (the engine's own)."""
    if not args.fused_qkv:
        return None
    from accel_sim.systems.serving.parallel import TensorParallel
    from accel_sim.systems.serving.pipeline import PipelineStepModel
    from accel_sim.systems.serving.step import StepModel

    parallel = TensorParallel(args.tp, arch.device_link_bandwidth, arch.all_reduce_latency)
    if args.pp > 1:
        return PipelineStepModel(arch, config, args.pp, compression=compression, tp=parallel, fused_qkv=True,
                                 kv_reads=args.kv_reads)
    return StepModel(arch, config, compression, tp=parallel, fused_qkv=True, kv_reads=args.kv_reads)
