"""The main job, whole process; one design's run and SCALE-Sim 3.0.0 on the same network.

Main job: ``python -m accel_sim run --out DIR`` with no ``--arch`` / ``--workload`` (ResNet-18 dense, pruned,
2:4 and int4 on ``tpu_like_128x128_ws`` and ``tpu_like_128x128_ws_nm``, the side-by-side table, CSVs, resolved
config and figure), each run a fresh process; bar: under 3 s whole process (:data:`MAIN_JOB_BAR_S`).
One design: ``python -m accel_sim run --arch tpu_like_128x128_ws --workload resnet18 --out DIR`` likewise.
Printed, median of ``--repeat`` runs: the whole process (wall and CPU seconds, CPU from ``getrusage`` of
the child) and, in a separate process, the simulation alone (``simulate(arch, network)`` on loaded files, CPU).

SCALE-Sim (``--scalesim``, needs a virtual environment with ``scalesim==3.0.0`` and ``numpy<2.4``,
default ``/work/ss-venv``; see ``/work/shared/validation/scalesim/README.md``): the same ResNet-18
(``workloads/resnet18.yaml`` written as a SCALE-Sim topology: SCALE-Sim has no padding, so each
layer's input is the padded input, which gives the same output size and MACs; the FC layer is a
1 x 1 convolution) on SCALE-Sim's own 128 x 128 WS CALC config (``tests/data/scalesim/
r18_tpu128_ws_calc/tpu128_ws_calc.cfg``, the numbers of ``tpu_like_128x128_ws``), run through its
Python API with ``save_disk_space=True`` (no per-cycle trace files: SCALE-Sim at its fastest; its
command line always writes them), one run, in a fresh process. The ratio is SCALE-Sim's whole
process over the one-design run, CPU and wall; bar >= 300x (whole process). Run:

    python benchmarks/bench_main_job.py [--repeat 5] [--scalesim [--venv /work/ss-venv]]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from child_process import timed_run

ROOT = Path(__file__).resolve().parents[1]
BAR = 300.0
MAIN_JOB_BAR_S = 3.0
SCALESIM_CFG = ROOT / "tests" / "data" / "scalesim" / "r18_tpu128_ws_calc" / "tpu128_ws_calc.cfg"
SIMULATION = """
import sys, time
from accel_sim import load_arch, load_workload, simulate
arch, network = load_arch("tpu_like_128x128_ws"), load_workload("resnet18")
start = time.process_time()
simulate(arch, network)
print(time.process_time() - start)
"""
SCALESIM = """
import sys
from scalesim.scale_sim import scalesim
run = scalesim(save_disk_space=True, verbose=False, config=sys.argv[1], topology=sys.argv[2], layout=sys.argv[3],
               input_type_gemm=False)
run.run_scale(top_path=sys.argv[4])
"""
ENV = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(Path.home())}


def timed(command: list[str], cwd: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system of the child) of one process, and its stdout."""
    wall, cpu, done = timed_run(command, cwd=cwd, env=ENV, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return wall, cpu, done.stdout


def scalesim_files(directory: Path) -> tuple[Path, Path]:
    """``workloads/resnet18.yaml`` as a SCALE-Sim topology (padded inputs, FC as 1 x 1) and a layout
    file (read though unused: custom layouts are off in the config) with one row per layer."""
    sys.path.insert(0, str(ROOT))
    from accel_sim import load_workload
    from accel_sim.foundations.workload import ConvLayer
    topology, layout = directory / "resnet18_padded.csv", directory / "layout.csv"
    rows = ["Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,"]
    layouts = ["Layer name, IFMAP Height Intraline Factor, IFMAP Width Intraline Factor, Filter Height Intraline "
               "Factor, Filter Width Intraline Factor, Channel Intraline Factor, Num Filter Intraline Factor, IFMAP "
               "Height Intraline Order, IFMAP Width Intraline Order, Channel Intraline Order, IFMAP Height Interline "
               "Order, IFMAP Width Interline Order, Channel Interline Order, Num Filter Intraline Order, Channel "
               "Intraline Order, Filter Height Intraline Order, Filter Width Intraline Order, Num Filter Interline "
               "Order, Channel Interline Order, Filter Height Interline Order, Filter Width Interline Order,"]
    for layer in load_workload("resnet18").layers:
        if isinstance(layer, ConvLayer):
            if layer.stride_h != layer.stride_w or layer.groups != 1:
                raise SystemExit(f"{layer.name}: SCALE-Sim takes one stride and no groups")
            h, w = layer.in_h + layer.pad_top + layer.pad_bottom, layer.in_w + layer.pad_left + layer.pad_right
            rows.append(f"{layer.name},{h},{w},{layer.kernel_h},{layer.kernel_w},{layer.in_channels},"
                        f"{layer.out_channels},{layer.stride_h},")
        else:  # m x k times k x n: m one-pixel images of k channels
            rows.append(f"{layer.name},1,1,1,1,{layer.k},{layer.n},1,")
        layouts.append(f"{layer.name},1,1,1,1,1,1,1,2,0,4,5,3,3,0,1,2,7,4,5,6,")
    topology.write_text("\n".join(rows) + "\n")
    layout.write_text("\n".join(layouts) + "\n")
    return topology, layout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scalesim", action="store_true", help="also run SCALE-Sim 3.0.0 (about 2 minutes, 4 GB)")
    parser.add_argument("--venv", type=Path, default=Path("/work/ss-venv"))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        jobs = [timed([sys.executable, "-m", "accel_sim", "run", "--out", str(out / "main"), "--force"], ROOT)
                for _ in range(args.repeat)]
        job_wall, job_cpu = statistics.median(r[0] for r in jobs), statistics.median(r[1] for r in jobs)
        runs = [timed([sys.executable, "-m", "accel_sim", "run", "--arch", "tpu_like_128x128_ws", "--workload",
                       "resnet18", "--out", str(out / "report"), "--force"], ROOT)
                for _ in range(args.repeat)]
        sims = [float(timed([sys.executable, "-c", SIMULATION], ROOT)[2].split()[-1]) for _ in range(args.repeat)]
        wall, cpu = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        sim = statistics.median(sims)
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print(f"main job (resnet18 dense / pruned / 2:4 / int4 on two designs, report and figure): whole process "
              f"{job_wall:.3f} s wall, {job_cpu:.3f} s CPU (median of {args.repeat}; bar < {MAIN_JOB_BAR_S:.0f} s)")
        print(f"one design (tpu_like_128x128_ws x resnet18, report and figure): whole process {wall:.3f} s wall, "
              f"{cpu:.3f} s CPU; simulation alone {sim * 1e3:.1f} ms CPU (medians of {args.repeat})")
        if not args.scalesim:
            return 0
        python = args.venv / "bin" / "python"
        if not python.exists():
            print(f"SCALE-Sim: no virtual environment at {args.venv} (see the module doc)")
            return 0
        topology, layout = scalesim_files(out)
        ss_wall, ss_cpu, _ = timed([str(python), "-c", SCALESIM, str(SCALESIM_CFG), str(topology), str(layout),
                                    str(out / "scalesim")], out)
        print(f"SCALE-Sim 3.0.0, same ResNet-18 on its tpu128_ws_calc config: {ss_wall:.1f} s wall, {ss_cpu:.1f} s CPU")
        print(f"ratio, whole process: {ss_wall / wall:.0f}x wall, {ss_cpu / cpu:.0f}x CPU (bar >= {BAR:.0f}x); "
              f"simulation alone vs SCALE-Sim CPU: {ss_cpu / sim:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
