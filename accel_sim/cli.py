"""Command line: parse arguments, call the Python API, print, set the exit code.

Exit codes: 0 success, 2 bad input (one line per problem, no traceback), 1 internal error.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

import yaml

from accel_sim.errors import InputError

DEFAULT_ARCH = "tpu_like_128x128_ws"
DEFAULT_WORKLOAD = "resnet18"
# Commands that live beside their model: each module has ``register(subparsers)`` adding one
# sub-command whose handler takes the parsed arguments and returns the exit code.
COMMAND_MODULES: tuple[str, ...] = ("accel_sim.storage.command", "accel_sim.importers.onnx_command",
                                     "accel_sim.trace.command")


def _parse_overrides(pairs: Sequence[str]) -> dict:
    overrides = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError.single("--set", pair, "expected dotted.path=value, e.g. systolic.rows=64")
        overrides[key.strip()] = yaml.safe_load(value)
    return overrides


def _cmd_run(args: argparse.Namespace) -> int:
    from accel_sim.config.loader import load_arch
    from accel_sim.report import layer_table, write_report
    from accel_sim.simulate import simulate
    from accel_sim.workload.loader import load_workload

    arch = load_arch(args.arch, _parse_overrides(args.set))
    network = load_workload(args.workload)
    run = simulate(arch, network, reference=args.reference)
    print(f"{network.name} on {arch.name} ({arch.family}, {len(network.layers)} layers)")
    print(layer_table(run))
    if args.out is not None:
        paths = write_report(run, Path(args.out), figure=not args.no_figure)
        print(f"wrote {', '.join(str(p) for p in paths.values())}")
    return 0


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from accel_sim.studies.registry import all_studies, reproduce_all, write_study

    studies = all_studies()
    if args.list or args.study is None:
        for name, s in studies.items():
            print(f"{name:28s} {s.title}")
        return 0
    out = Path(args.out)
    if args.study == "all":
        gallery = reproduce_all(out)
        print(f"wrote {len(gallery.outputs)} studies and {out / 'README.md'}")
        for name, error in gallery.failures.items():
            print(f"accel-sim: study {name} failed: {error} (traceback in {out / name / 'error.txt'})",
                  file=sys.stderr)
        return 1 if gallery.failures else 0
    if args.study not in studies:
        raise InputError.single("reproduce", args.study, f"no such study; known: {', '.join(studies)}")
    write_study(studies[args.study], out)
    print(f"wrote {out / 'results.csv'}, {out / 'figure.png'}, {out / 'README.md'}")
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from accel_sim.sweep import run_sweep

    summary = run_sweep(args.sweep_file, args.out, jobs=args.jobs, scheduler=args.scheduler,
                        progress=None if args.quiet else sys.stderr)
    print(summary.line())
    print(f"wrote {summary.store}, {summary.csv}" + (f", {summary.parquet}" if summary.parquet else ""))
    return 0


def _cmd_encode(args: argparse.Namespace) -> int:
    import json

    from accel_sim.compress.encode_json import encode, encoded_json, read_matrix

    params = {}
    if args.pes is not None:
        params["n_pes"] = args.pes
    if args.index_bits is not None:
        params["index_bits"] = args.index_bits
    encoded = encode(read_matrix(args.matrix), args.format, params)
    print(json.dumps(encoded_json(encoded, args.value_bits)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="accel-sim", description="Cycle-level simulator of sparse and "
                                     "low-precision deep-learning accelerators.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="simulate a workload on an accelerator and report per-layer results")
    run.add_argument("--arch", default=DEFAULT_ARCH,
                     help="accel_sim YAML (path or name in arch_configs/) or a SCALE-Sim .cfg")
    run.add_argument("--workload", default=DEFAULT_WORKLOAD,
                     help="accel_sim YAML (path or name in workloads/) or a SCALE-Sim topology .csv")
    run.add_argument("--out", default=None, help="report folder (layers.csv, summary.csv, config.resolved.yaml, PNG)")
    run.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                     help="override a config field, e.g. --set systolic.rows=64 (repeatable)")
    run.add_argument("--reference", action="store_true", help="use the per-event reference model (slow)")
    run.add_argument("--no-figure", action="store_true", help="skip the figure (layers.svg)")
    run.set_defaults(handler=_cmd_run)

    enc = sub.add_parser("encode", help="print a small matrix encoded in a sparse format, as JSON")
    enc.add_argument("matrix", help="a .npy file or an inline nested list, e.g. '[[0,1],[2,0]]'")
    enc.add_argument("--format", required=True, help="format name (csr, csc, eie, scnn, rle, csb, bsr, coo, bitmap, nm, dense)")
    enc.add_argument("--pes", type=int, default=None, help="eie: number of PEs rows are interleaved over")
    enc.add_argument("--index-bits", type=int, default=None, help="width of a (relative) index")
    enc.add_argument("--value-bits", type=int, default=8, help="width of a value, for the storage breakdown")
    enc.set_defaults(handler=_cmd_encode)

    reproduce = sub.add_parser("reproduce", help="run a registered study (paper figure) into a folder")
    reproduce.add_argument("study", nargs="?", help="study name, or 'all'")
    reproduce.add_argument("--out", default="reports", help="output folder (default: reports)")
    reproduce.add_argument("--list", action="store_true", help="list the registered studies")
    reproduce.set_defaults(handler=_cmd_reproduce)

    sweep = sub.add_parser("sweep", help="run a design-space sweep into a durable result store (resumable)")
    sweep.add_argument("sweep_file", help="sweep YAML: base arch, workload, axes (see sweeps/)")
    sweep.add_argument("--out", required=True, help="output folder (results.sqlite, results.csv)")
    sweep.add_argument("--jobs", type=int, default=1, help="worker processes on this machine (default 1: in-process)")
    sweep.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                       help="run on this Dask distributed scheduler instead of local processes")
    sweep.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    sweep.set_defaults(handler=_cmd_sweep)
    for module in COMMAND_MODULES:
        importlib.import_module(module).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except InputError as err:
        for problem in err.problems:
            print(f"accel-sim: error: {problem}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("accel-sim: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
