"""CPU cost of each row of scnn-networks' ablation (``accel_sim.studies.scnn_common.ABLATION``: one
``scnn:`` choice flipped from arch_configs/scnn.yaml, which ships ``scatter: fifo``) on the study's subset
(the first ``ABLATION_LAYERS`` conv layers of each network), and which FIFO path each layer took. Run:

    python benchmarks/bench_scnn_ablation_rows.py [--networks alexnet googlenet vgg16]

Printed per (network, layer, row): CPU seconds of ``simulate_layer`` (time.process_time, one process; the
first FIFO layer also pays loading numba and its cached loops) and the path: ``compiled`` (the loops of
accel_sim/models/scnn/fast/scatter_fifo_kernel.py), ``numpy`` (scatter_fifo's step-by-step fallback) or ``-`` (no
FIFO: serialise, DCNN); then per row the total and per network, and the process's peak RSS.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accel_sim.pipeline.catalog import load_arch  # noqa: E402
from accel_sim.foundations.energy.table import load_energy_table  # noqa: E402
from accel_sim.models.scnn.fast import scatter_fifo  # noqa: E402
from accel_sim.pipeline.simulate import simulate_layer  # noqa: E402
from accel_sim.studies.scnn_common import ABLATION, DESIGN_CONFIGS, conv_network, scnn_variant  # noqa: E402
from accel_sim.studies.scnn_networks import ABLATION_LAYERS  # noqa: E402


def traced(paths: list[str]) -> None:
    """Record in ``paths`` which FIFO path runs (wraps scatter_fifo's two entry points)."""
    kernel, numpy_loads = scatter_fifo.kernel_busy, scatter_fifo.segment_loads

    def kernel_busy(*args, **kwargs):
        paths.append("compiled")
        return kernel(*args, **kwargs)

    def segment_loads(*args, **kwargs):
        paths.append("numpy")
        return numpy_loads(*args, **kwargs)

    scatter_fifo.kernel_busy, scatter_fifo.segment_loads = kernel_busy, segment_loads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="+", default=["alexnet", "googlenet", "vgg16"])
    args = parser.parse_args()
    paths: list[str] = []
    traced(paths)
    rows = [("dcnn", None), ("paper setting (arch_configs/scnn.yaml)", {})] + list(ABLATION)
    total: dict[tuple[str, str], float] = {}
    for name in args.networks:
        archs = [(label, load_arch(DESIGN_CONFIGS["dcnn"]) if overrides is None else scnn_variant(overrides))
                 for label, overrides in rows]
        for layer in conv_network(name, ABLATION_LAYERS).layers:
            for label, arch in archs:
                paths.clear()
                start = time.process_time()
                simulate_layer(arch, layer, load_energy_table(arch.energy_table))
                spent = time.process_time() - start
                total[label, name] = total.get((label, name), 0.0) + spent
                print(f"{name:10s} {layer.name:26s} {spent:6.2f} {'/'.join(sorted(set(paths))) or '-':9s} {label}")
    print("\nCPU-s per row: total, then " + ", ".join(args.networks))
    for label, _ in rows:
        per = [total[label, n] for n in args.networks]
        print(f"{sum(per):7.2f} " + " ".join(f"{v:6.2f}" for v in per) + f"  {label}")
    print(f"all rows {sum(total.values()):.1f} CPU-s; peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
