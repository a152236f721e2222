"""``accel-sim import-hf config.json --phase decode --context 2048 --batch 8 --out DIR``: the
matrix products of one transformer inference step, from a Hugging Face ``config.json``."""
from __future__ import annotations

import argparse

from accel_sim.cli.args import add_compression_options, add_output_options
from accel_sim.cli.output import check_output_folder


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "import-hf", help="write the GEMMs of a transformer's prefill or decode step, from a Hugging Face "
        "config.json, as a workload")
    parser.add_argument("config", help="the model's config.json (e.g. workloads/llm/configs/llama_2_7b.json)")
    parser.add_argument("--phase", required=True, choices=("prefill", "decode"),
                        help="prefill: the whole prompt at once; decode: one new token per sequence")
    parser.add_argument("--context", required=True, type=int,
                        help="prefill: prompt length L in tokens; decode: positions the new token attends to "
                        "(the KV cache length T, the new token included)")
    parser.add_argument("--batch", type=int, default=1, help="sequences per step (default 1)")
    parser.add_argument("--attention", default="unfused", choices=("unfused", "fused"),
                        help="decode attention as the score, softmax and context kernels (default), or one fused "
                             "decode-attention kernel split along the KV length (attn_decode), as serving engines run it")
    parser.add_argument("--fused-qkv", action="store_true",
                        help="the q, k and v projections as one GEMM of their concatenated weights (attn_qkv, n = "
                             "(heads + 2 KV heads) x head dim), as gpt-fast and TensorRT-LLM run them; default: three")
    parser.add_argument("--unfused-elementwise", action="store_true",
                        help="one kernel (one launch) per vector operator, as eager PyTorch runs them; default: one "
                             "per run of vector operators between matrix kernels, as torch.compile and TensorRT-LLM "
                             "fuse them")
    parser.add_argument("--out", required=True, help="output folder (the workload YAML)")
    parser.add_argument("--name", default=None,
                        help="workload name (default: model_phase_ctxT_bB, e.g. llama_2_7b_hf_decode_ctx2048_b8)")
    add_compression_options(parser)
    parser.add_argument("--fit", default=None, metavar="ARCH",
                        help="also print the step's device memory on ARCH (a name in arch_configs/ or a path) and the "
                        "largest batch and context that fit its memory_capacity")
    add_output_options(parser, quiet=False)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from accel_sim.foundations.workload.llm.compression import Compression
    from accel_sim.foundations.workload.llm.generator import InferenceStep
    from accel_sim.foundations.workload.llm.workload_file import write_llm_workload

    compression = Compression.parse(args.weights, args.weight_bits, args.kv_bits, args.group_size, args.scale_bits,
                                    args.quantize_lm_head, args.precision)
    identity = f"import-hf {args.config} --phase {args.phase} --context {args.context} --batch {args.batch}"
    if compression.label != "dense":
        identity += f" --weights {args.weights} --weight-bits {args.weight_bits} --kv-bits {args.kv_bits}"
    if compression.group_size:
        identity += f" --group-size {args.group_size} --scale-bits {args.scale_bits}"
    if compression.lm_head:
        identity += " --quantize-lm-head"
    if compression.precision:
        identity += f" --precision {compression.precision}"
    if args.fused_qkv:
        identity += " --fused-qkv"
    if args.unfused_elementwise:
        identity += " --unfused-elementwise"
    folder = check_output_folder(args.out, identity, args.force)
    step = InferenceStep(phase=args.phase, context=args.context, batch=args.batch, attention=args.attention,
                         fused_qkv=args.fused_qkv, fused_elementwise=not args.unfused_elementwise)
    written = write_llm_workload(args.config, step, folder.path, name=args.name, before_write=folder.create,
                                 compression=compression)
    print(f"{written.description}: {written.layers} layers, {written.macs:,} MACs")
    print(f"wrote {written.path}")
    if args.fit is not None:
        print(_fit_line(args.config, step, compression, args.fit))
    return 0


def _fit_line(config_path: str, step: object, compression: object, arch_name: str) -> str:
    """The step's footprint on ``arch_name`` and the largest batch and context that fit its memory."""
    from accel_sim.foundations.workload.llm.hf_config import read_hf_config
    from accel_sim.foundations.workload.llm.memory import largest_batch, largest_context, step_footprint
    from accel_sim.pipeline.catalog import load_arch

    arch = load_arch(arch_name)
    config = read_hf_config(config_path)
    footprint = step_footprint(config, step, arch.word_bits, compression)
    if arch.memory_capacity is None:
        return f"device memory: needs {footprint.describe()}; {arch.name} states no capacity"
    capacity = arch.memory_capacity
    batch = largest_batch(config, step.phase, step.context, capacity, arch.word_bits, compression)
    context = largest_context(config, step.phase, step.batch, capacity, arch.word_bits, compression)
    verdict = "fits" if footprint.fits(capacity) else "does NOT fit"
    return (f"device memory: needs {footprint.describe()}; {verdict} {arch.name} ({capacity / 2**30:g} GiB): "
            f"largest batch at context {step.context}: {batch}; largest context at batch {step.batch}: {context}")
