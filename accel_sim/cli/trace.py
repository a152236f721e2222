"""``accel-sim trace --arch A --workload W --out DIR [--layer NAME] [--html]``: a teaching trace.

Runs one layer on the family's reference (every family; docs/traces.md lists an example for
each) and writes ``trace.json`` (Chrome / Perfetto trace events), ``cycles.txt`` (one line per
cycle) and with ``--html`` ``trace.html`` (a self-contained page that draws the datapath and steps
through the cycles), through
:func:`accel_sim.pipeline.trace.files.write_trace`.
"""
from __future__ import annotations

import argparse

from accel_sim.cli.args import add_output_options
from accel_sim.cli.output import check_output_folder


DESCRIPTION = ("Run one layer on its family's discrete-event reference, recording every agent's events, and write "
               "trace.json (Perfetto) and cycles.txt (one line per cycle, with the counters so far). Every family "
               "has a trace; a layer whose trace would pass 50,000 events or 20,000 cycles is refused before it "
               "is simulated.")
EPILOG = """small examples (one per family in docs/traces.md; workload trace_examples holds tiny layers):
  accel-sim trace --arch eie_4pe_example --workload eie_4pe_example --out DIR
  accel-sim trace --arch scalesim_32x32_ws --workload tiny_conv --layer conv2 --out DIR
  accel-sim trace --arch scnn --workload tiny_conv --layer conv1 --out DIR
  accel-sim trace --arch eyeriss_v2 --workload trace_examples --layer conv_small --out DIR
  accel-sim trace --arch lowbit --workload trace_examples --layer softmax_small --out DIR   (vector unit)"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("trace", help="write a per-cycle teaching trace (Perfetto JSON + text table) "
                                   "of one layer", description=DESCRIPTION, epilog=EPILOG,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
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
