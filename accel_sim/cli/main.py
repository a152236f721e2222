"""Command line: parse arguments, call the Python API, print, set the exit code.

Exit codes: 0 success, 2 bad input (one line per problem, no traceback), 1 internal error,
130 interrupted (Ctrl-C; the message says what was saved and how to go on).
Every command checks its ``--out`` before any work (:mod:`accel_sim.cli.output`).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from accel_sim.cli.output import check_output_folder
from accel_sim.foundations.errors import InputError
from accel_sim.cli.args import parse_overrides

DEFAULT_ARCH = "tpu_like_128x128_ws"
DEFAULT_WORKLOAD = "resnet18"
# Commands that live beside their model: each module has ``register(subparsers)`` adding one
# sub-command whose handler takes the parsed arguments and returns the exit code.
COMMAND_MODULES: tuple[str, ...] = ("accel_sim.cli.storage", "accel_sim.cli.import_onnx",
                                     "accel_sim.cli.import_hf", "accel_sim.cli.trace",
                                     "accel_sim.cli.train", "accel_sim.cli.cluster")




def _progress_stream(args: argparse.Namespace):
    return None if getattr(args, "quiet", False) else sys.stderr


def _run_identity(args: argparse.Namespace) -> str:
    return " ".join(["run", "--arch", str(args.arch), "--workload", str(args.workload)]
                    + [f"--set {pair}" for pair in sorted(args.set)])


def _cmd_run(args: argparse.Namespace) -> int:
    from accel_sim.cli.run import simulate_checked
    from accel_sim.foundations.config.loader import ARCH_DIR, resolve_path
    from accel_sim.pipeline.catalog import load_arch
    from accel_sim.pipeline.report.files import layer_table, write_report
    from accel_sim.foundations.workload.loader import load_workload

    folder = check_output_folder(args.out, _run_identity(args), args.force) if args.out is not None else None
    arch = load_arch(args.arch, parse_overrides(args.set))
    network = load_workload(args.workload)
    if args.report_format == "scalesim":
        from accel_sim.pipeline.report.scalesim import check_scalesim_arch
        check_scalesim_arch(arch)
    args.on_interrupt = lambda: ("nothing was written (the report is written when every layer is done); "
                                 "run the same command again")
    arch_file = str(resolve_path(args.arch, ARCH_DIR, (".yaml", ".yml", ".cfg")))
    run = simulate_checked(arch, network, f"--set (on {arch_file})" if args.set else arch_file,
                           reference=args.reference, progress=_progress_stream(args), always_show=args.reference)
    print(f"{network.name} on {arch.name} ({arch.family}, {len(network.layers)} layers)")
    print(layer_table(run))
    if folder is not None:
        out = folder.create()
        paths = write_report(run, out, figure=not args.no_figure)
        if args.report_format == "accelergy":
            from accel_sim.pipeline.report.files import write_accelergy
            paths.update(write_accelergy(run, out))
        elif args.report_format == "scalesim":
            from accel_sim.pipeline.report.scalesim import write_scalesim_reports
            paths.update(write_scalesim_reports(run, out))
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
    if args.study != "all" and args.study not in studies:
        raise InputError.single("reproduce", args.study, f"no such study; known: {', '.join(studies)}")
    if args.jobs < 1:
        raise InputError.single("--jobs", str(args.jobs), "expected a number of studies run at once >= 1")
    folder = check_output_folder(out, f"reproduce {args.study}", args.force)
    folder.create()
    if args.study == "all":
        from accel_sim.cli.run import StudyProgress

        progress = StudyProgress(len(studies), _progress_stream(args))
        args.on_interrupt = lambda: progress.saved_line(out)
        gallery = reproduce_all(out, on_study=progress.start, jobs=args.jobs, on_done=progress.done)
        progress.finish()
        print(f"wrote {len(gallery.comparisons)} studies and {out / 'README.md'}")
        for name, error in gallery.failures.items():
            print(f"accel-sim: study {name} failed: {error} (traceback in {out / name / 'error.txt'})",
                  file=sys.stderr)
        return 1 if gallery.failures else 0
    args.on_interrupt = lambda: f"the study did not finish; files in {out} may be partial; run the same command again"
    write_study(studies[args.study], out)
    print(f"wrote {out / 'results.csv'}, {out / 'figure.png'}, {out / 'README.md'}")
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from accel_sim.pipeline.sweep import load_sweep
    from accel_sim.pipeline.sweep.store import stored_count
    from accel_sim.systems.sweep import run_sweep

    check_output_folder(args.out, "", force=True)  # a file, an unwritable place: refused before loading
    sweep = load_sweep(args.sweep_file)
    folder = check_output_folder(args.out, f"sweep {sweep.name}", args.force)
    folder.create()
    args.on_interrupt = lambda: (f"{stored_count(folder.path)} configs of sweep {sweep.name} are saved in "
                                 f"{folder.path}; run the same command again to compute only the missing ones")
    summary = run_sweep(sweep, folder.path, jobs=args.jobs, scheduler=args.scheduler, progress=_progress_stream(args))
    print(summary.line())
    print(f"wrote {summary.store}, {summary.csv}" + (f", {summary.parquet}" if summary.parquet else ""))
    return 0


def _cmd_encode(args: argparse.Namespace) -> int:
    import json

    from accel_sim.foundations.compress.encode_json import encode, encoded_json, read_matrix

    params = {}
    if args.pes is not None:
        params["n_pes"] = args.pes
    if args.index_bits is not None:
        params["index_bits"] = args.index_bits
    encoded = encode(read_matrix(args.matrix), args.format, params)
    try:
        data = encoded_json(encoded, args.value_bits)
    except ValueError as err:
        raise InputError.single("--value-bits", str(args.value_bits), str(err)) from None
    print(json.dumps(data))
    return 0


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """``--force`` and ``--quiet``, the same on every command that writes a folder."""
    parser.add_argument("--force", action="store_true",
                        help="write into an --out folder that holds another run's results (they are replaced)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


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
    run.add_argument("--report-format", choices=("csv", "accelergy", "scalesim"), default="csv",
                     help="with --out, also write Accelergy's action_counts.yaml + ERT.yaml, or SCALE-Sim v3's "
                          "COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv, DETAILED_ACCESS_REPORT.csv")
    add_output_options(run)
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
    reproduce.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                           help="studies run at once by 'all', each in its own process (default: one per core); "
                                "the files are the same for any value")
    add_output_options(reproduce)
    reproduce.set_defaults(handler=_cmd_reproduce)

    sweep = sub.add_parser("sweep", help="run a design-space sweep into a durable result store (resumable)")
    sweep.add_argument("sweep_file", help="sweep YAML: base arch, workload, axes (see sweeps/)")
    sweep.add_argument("--out", required=True, help="output folder (results.sqlite, results.csv)")
    sweep.add_argument("--jobs", type=int, default=1, help="worker processes on this machine (default 1: in-process)")
    sweep.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                       help="run on this Dask distributed scheduler instead of local processes")
    add_output_options(sweep)
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
            print(f"accel-sim: error: {' '.join(str(problem).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        saved = getattr(args, "on_interrupt", None)
        print(f"accel-sim: interrupted; {saved() if saved else 'nothing was saved'}", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
