"""``accel-sim sweep SWEEP.yaml --out DIR``: a design-space sweep into a durable result store; run
again into the same folder, it computes only the points not yet stored."""
from __future__ import annotations

import argparse

from accel_sim.cli.args import add_output_options, progress_stream
from accel_sim.cli.output import check_output_folder


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("sweep", help="run a design-space sweep into a durable result store (resumable)")
    parser.add_argument("sweep_file", help="sweep YAML: base arch, workload, axes (see sweeps/)")
    parser.add_argument("--out", required=True, help="output folder (results.sqlite, results.csv)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes on this machine (default 1: in-process)")
    parser.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                        help="run on this Dask distributed scheduler instead of local processes")
    parser.add_argument("--batch", type=int, default=None, metavar="N",
                        help="design points simulated together, layer by layer: each layer's operands and the plan "
                             "pieces the points share are made once (default 8, fewer when a worker would wait; 1 "
                             "runs each point alone). Same results; a killed run loses at most the batch in progress")
    parser.add_argument("--max-points", type=int, default=None, metavar="N",
                        help="run a sweep of more than the default limit of points (counted from the axes "
                             "before any point is built; accel_sim.pipeline.sweep.spec.DEFAULT_MAX_POINTS)")
    add_output_options(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from accel_sim.foundations.errors import InputError
    from accel_sim.pipeline.sweep import load_sweep
    from accel_sim.pipeline.sweep.spec import DEFAULT_MAX_POINTS
    from accel_sim.pipeline.sweep.store import stored_count
    from accel_sim.systems.sweep import run_sweep

    check_output_folder(args.out, "", force=True)  # a file, an unwritable place: refused before loading
    if args.max_points is not None and args.max_points < 1:
        raise InputError.single("--max-points", "", f"must be >= 1, got {args.max_points}")
    sweep = load_sweep(args.sweep_file, args.max_points or DEFAULT_MAX_POINTS, progress_stream(args))
    folder = check_output_folder(args.out, f"sweep {sweep.name}", args.force)
    folder.create()
    args.on_interrupt = lambda: (f"{stored_count(folder.path)} configs of sweep {sweep.name} are saved in "
                                 f"{folder.path}; run the same command again to compute only the missing ones")
    summary = run_sweep(sweep, folder.path, jobs=args.jobs, scheduler=args.scheduler, progress=progress_stream(args),
                        batch=args.batch)
    print(summary.line())
    print(f"wrote {summary.store}, {summary.csv}" + (f", {summary.parquet}" if summary.parquet else ""))
    return 0
