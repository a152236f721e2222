"""``accel-sim import-hf config.json --phase decode --context 2048 --batch 8 --out DIR``: the
matrix products of one transformer inference step, from a Hugging Face ``config.json``."""
from __future__ import annotations

import argparse

from accel_sim.cli.args import add_output_options
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
    parser.add_argument("--out", required=True, help="output folder (the workload YAML)")
    parser.add_argument("--name", default=None,
                        help="workload name (default: model_phase_ctxT_bB, e.g. llama_2_7b_hf_decode_ctx2048_b8)")
    parser.add_argument("--weights", default="dense",
                        help="block weights: dense (default), 2:4 (N:M-pruned, weight_sparsity 2:4) or "
                        "unstructured:D (magnitude-pruned to density D)")
    parser.add_argument("--weight-bits", type=int, default=None,
                        help="weight-only quantization of the block weights: stored bits (e.g. 8, 4; default: the "
                        "arch's word)")
    parser.add_argument("--kv-bits", type=int, default=None,
                        help="stored bits of the K / V cache (e.g. 8; default: the arch's word)")
    add_output_options(parser, quiet=False)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from accel_sim.foundations.workload.llm.compression import Compression
    from accel_sim.foundations.workload.llm.generator import InferenceStep
    from accel_sim.foundations.workload.llm.workload_file import write_llm_workload

    compression = Compression.parse(args.weights, args.weight_bits, args.kv_bits)
    identity = f"import-hf {args.config} --phase {args.phase} --context {args.context} --batch {args.batch}"
    if compression.label != "dense":
        identity += f" --weights {args.weights} --weight-bits {args.weight_bits} --kv-bits {args.kv_bits}"
    folder = check_output_folder(args.out, identity, args.force)
    step = InferenceStep(phase=args.phase, context=args.context, batch=args.batch)
    written = write_llm_workload(args.config, step, folder.path, name=args.name, before_write=folder.create,
                                 compression=compression)
    print(f"{written.description}: {written.layers} layers, {written.macs:,} MACs")
    print(f"wrote {written.path}")
    return 0
