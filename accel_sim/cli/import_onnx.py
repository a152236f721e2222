"""``accel-sim import-onnx MODEL.onnx --out DIR``: a trained model becomes a workload with real weights."""
from __future__ import annotations

import argparse

from accel_sim.cli.args import add_output_options
from accel_sim.cli.output import check_output_folder


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "import-onnx", help="import the Conv / Gemm / MatMul layers of an ONNX model as a workload with real weights")
    parser.add_argument("model", help="the .onnx file")
    parser.add_argument("--out", required=True, help="output folder (workload YAML + one .npz payload per layer)")
    parser.add_argument("--input-shape", action="append", default=[], metavar="[NAME:]DIMS",
                        help="shape of a model input, e.g. 1,3,224,224 or input:1,3,224,224 (repeatable; needed "
                        "when the model has symbolic dimensions)")
    parser.add_argument("--name", default=None, help="workload name (default: the model file's stem)")
    add_output_options(parser, quiet=False)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from accel_sim.foundations.workload.onnx_model import import_onnx, parse_input_shapes

    folder = check_output_folder(args.out, f"import-onnx {args.model}", args.force)
    result = import_onnx(args.model, args.out, input_shapes=parse_input_shapes(args.input_shape), name=args.name)
    folder.create()
    print(f"imported {len(result.layers)} layers from {args.model}:")
    for entry in result.layers:
        density = entry.get("weight_density", 1.0)
        payload = entry.get("operands", "(generated operands)")
        print(f"  {entry['name']:24s} {entry['type']:5s} weight density {density:.4f}  {payload}")
    if result.skipped_ops:
        print("not simulated: " + ", ".join(f"{op} x{n}" for op, n in sorted(result.skipped_ops.items())))
    print(f"wrote {result.workload}")
    return 0
