"""``accel-sim run --arch A --workload W [--out DIR]``: simulate a workload on an accelerator and print
(and with ``--out`` write) the per-layer report.

Around the Python API it adds progress on stderr, and a model's refusal of a config (a ``ValueError``
from planning a layer, e.g. an SRAM too small for the double buffer) reported as bad input naming the
arch file and the layer."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from accel_sim.cli.args import add_output_options, add_overrides_option, parse_overrides, progress_stream
from accel_sim.cli.output import check_output_folder
from accel_sim.foundations.errors import InputError, Problem

if TYPE_CHECKING:
    from accel_sim.foundations.workload.layer import Network, NetworkLayer
    from accel_sim.pipeline.catalog import ArchSpec
    from accel_sim.pipeline.run_result import RunResult

DEFAULT_ARCH = "tpu_like_128x128_ws"
DEFAULT_WORKLOAD = "resnet18"
# The main job (neither --arch nor --workload): the default network's compression variants on the default
# array and on the same array with N:M sparsity support (accel_sim.pipeline.report.compression).
MAIN_JOB_DESIGNS = (DEFAULT_ARCH, "tpu_like_128x128_ws_nm")
COLUMNS_HELP = ("util: MACs issued / (PEs x cycles); energy_uJ: dynamic energy (actions x the energy table), "
                "leakage is static_energy_pj in the CSVs; dram_write_bytes: SCALE-Sim's convention, partial "
                "outputs written once per fold of the reduction (docs/user_guide.md)")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("run", help="simulate a workload on an accelerator and report per-layer results")
    parser.add_argument("--arch", default=None,
                        help=f"accel_sim YAML (path or name in arch_configs/) or a SCALE-Sim .cfg (default {DEFAULT_ARCH}; "
                             "with neither --arch nor --workload: the main job, dense vs compressed variants on "
                             f"{' and '.join(MAIN_JOB_DESIGNS)})")
    parser.add_argument("--workload", default=None,
                        help=f"accel_sim YAML (path or name in workloads/) or a SCALE-Sim topology .csv "
                             f"(default {DEFAULT_WORKLOAD})")
    parser.add_argument("--out", default=None,
                        help="report folder (layers.csv, summary.csv, config.resolved.yaml, README.md, the figure "
                             "layers.svg; the main job adds comparison.csv)")
    add_overrides_option(parser, "override a config field, e.g. --set systolic.rows=64 (repeatable)")
    parser.add_argument("--reference", action="store_true", help="use the per-event reference model (slow)")
    parser.add_argument("--no-figure", action="store_true", help="skip the figure (layers.svg)")
    parser.add_argument("--report-format", choices=("csv", "accelergy", "scalesim"), default="csv",
                        help="with --out, also write Accelergy's action_counts.yaml + ERT.yaml, or SCALE-Sim v3's "
                             "COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv, DETAILED_ACCESS_REPORT.csv")
    add_output_options(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from accel_sim.foundations.config.loader import ARCH_DIR, resolve_path
    from accel_sim.foundations.workload.loader import load_workload
    from accel_sim.pipeline.catalog import load_arch
    from accel_sim.pipeline.report.files import layer_table, write_report

    main_job = args.arch is None and args.workload is None and not args.reference
    args.arch = args.arch or DEFAULT_ARCH
    args.workload = args.workload or DEFAULT_WORKLOAD
    identity = "run (main job)" + "".join(f" --set {pair}" for pair in sorted(args.set)) if main_job else _identity(args)
    folder = check_output_folder(args.out, identity, args.force) if args.out is not None else None
    if main_job:
        return _main_job(args, folder)
    arch = load_arch(args.arch, parse_overrides(args.set))
    network = load_workload(args.workload)
    if args.report_format == "scalesim":
        from accel_sim.pipeline.report.scalesim import check_scalesim_arch
        check_scalesim_arch(arch)
    args.on_interrupt = lambda: ("nothing was written (the report is written when every layer is done); "
                                 "run the same command again")
    arch_file = str(resolve_path(args.arch, ARCH_DIR, (".yaml", ".yml", ".cfg")))
    label = f"{arch.name} with --set {', '.join(args.set)}" if args.set else arch.name  # not the base config's name alone
    run = simulate_checked(arch, network, f"--set (on {arch_file})" if args.set else arch_file,
                           reference=args.reference, progress=progress_stream(args), always_show=args.reference,
                           label=label)
    print(f"{network.name} on {label} ({arch.family}, {len(network.layers)} layers)")
    print(layer_table(run))
    print(COLUMNS_HELP)
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


def _main_job(args: argparse.Namespace, folder) -> int:  # noqa: ANN001
    """The default network's dense, pruned, filter-pruned, 2:4 and int4 variants on :data:`MAIN_JOB_DESIGNS`, side by side."""
    from accel_sim.foundations.workload.loader import load_workload
    from accel_sim.pipeline.catalog import load_arch
    from accel_sim.pipeline.report.compression import compare_compression, comparison_frame_rows, comparison_table
    from accel_sim.pipeline.report.files import csv_text, write_report

    overrides = parse_overrides(args.set)
    designs = [load_arch(name, overrides) for name in MAIN_JOB_DESIGNS]
    network = load_workload(DEFAULT_WORKLOAD)
    args.on_interrupt = lambda: "nothing was written; run the same command again"
    rows = compare_compression(network, designs)
    print(f"{network.name}: what compression buys, {len(network.layers)} layers on {' and '.join(MAIN_JOB_DESIGNS)} "
          "(one design: --arch A --workload W)")
    print(comparison_table(rows))
    if folder is not None:
        out = folder.create()
        paths = write_report(rows[0].run, out, figure=not args.no_figure)
        paths["comparison"] = out / "comparison.csv"
        paths["comparison"].write_text(csv_text(comparison_frame_rows(rows)))
        print(f"wrote {', '.join(str(p) for p in paths.values())}")
    return 0


def _identity(args: argparse.Namespace) -> str:
    """Which run an ``--out`` folder holds: the inputs that decide its results."""
    return " ".join(["run", "--arch", str(args.arch), "--workload", str(args.workload)]
                    + [f"--set {pair}" for pair in sorted(args.set)])


def simulate_checked(arch: ArchSpec, network: Network, arch_source: str, reference: bool = False,
                     progress: TextIO | None = None, always_show: bool = False, label: str | None = None) -> RunResult:
    """:func:`accel_sim.pipeline.simulate.simulate` with a per-layer progress line (shown from the start
    with ``always_show``, else only once the run has taken :data:`LOG_INTERVAL_S`). With ``always_show``
    each layer's start is a line too (a reference run's first layer can take a minute). ``label`` names the
    design in the lines (default: the arch's name)."""
    from accel_sim.pipeline.simulate import simulate
    from accel_sim.pipeline.sweep.progress import LOG_INTERVAL_S, Progress

    name = f"{network.name} on {label or arch.name}"
    meter = Progress(name, len(network.layers), 0, progress, unit="layers",
                     start_after_s=0.0 if always_show else LOG_INTERVAL_S)
    current: list[NetworkLayer] = []
    started = [0]

    def on_layer(layer: NetworkLayer) -> None:
        if current:
            meter.advance()
        current[:] = [layer]
        started[0] += 1
        if always_show and progress is not None:
            progress.write(f"{name}: layer {started[0]}/{len(network.layers)} ({layer.name}) started\n")
            progress.flush()

    try:
        run = simulate(arch, network, reference=reference, on_layer=on_layer)
    except MemoryError:
        where = f"layer {current[0].name}" if current else "layers"
        raise InputError.single(str(arch_source), where, "the simulation needs more memory than this machine "
                                "has; make the layer or the array smaller") from None
    except OverflowError as err:   # e.g. a latency of 1e300 cycles: numpy's integers cannot hold the sums
        where = f"layer {current[0].name}" if current else "layers"
        raise InputError.single(str(arch_source), where, f"a number in this config is too large to simulate with "
                                f"({err}); check its cycle, size and bandwidth fields") from None
    except InputError as err:  # a size limit names the config's name: name its file (or --set) instead
        raise InputError([Problem(arch_source, p.path, p.message) if p.file == arch.name else
                          Problem(arch_source, f"{p.file}: {p.path}", p.message) if p.path == "size" else p
                          for p in err.problems]) from None
    except ValueError as err:
        if not current:
            raise
        raise InputError.single(str(arch_source), f"layer {current[0].name}", str(err)) from None
    meter.advance()
    meter.finish(only_if_shown=not always_show)
    return run
