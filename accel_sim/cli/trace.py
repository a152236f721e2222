"""``accel-sim trace --arch A --workload W --out DIR [--layer NAME] [--html]``: a teaching trace.

Runs one layer on the family's reference and writes ``trace.json`` (Chrome / Perfetto trace
events), ``cycles.txt`` (one line per cycle) and with ``--html`` ``trace.html`` (a self-contained
page that draws the datapath and steps through the cycles), through
:func:`accel_sim.pipeline.trace.files.write_trace`.
"""
from __future__ import annotations

import argparse

from accel_sim.cli.args import add_output_options
from accel_sim.cli.output import check_output_folder


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("trace", help="write a per-cycle teaching trace (Perfetto JSON + text table) "
                                   "of one layer")
    parser.add_argument("--arch", required=True, help="accelerator config (path or name in arch_configs/)")
    parser.add_argument("--workload", required=True, help="workload (path or name in workloads/)")
    parser.add_argument("--out", required=True, help="output folder (trace.json, cycles.txt)")
    parser.add_argument("--layer", default=None, help="layer name (default: the first layer)")
    parser.add_argument("--html", action="store_true", help="also write trace.html: the datapath, cycle by "
                        "cycle, in one self-contained page to open in a browser (no network needed)")
    add_output_options(parser, quiet=False)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from accel_sim.pipeline.trace.files import write_trace

    folder = check_output_folder(args.out, f"trace --arch {args.arch} --workload {args.workload}", args.force)
    paths = write_trace(args.arch, args.workload, folder.path, args.layer, html=args.html)
    folder.create()
    print(f"wrote {paths['trace']} (open in https://ui.perfetto.dev) and {paths['table']}")
    if "html" in paths:
        print(f"wrote {paths['html']} (open in a browser: the datapath, cycle by cycle)")
    return 0
