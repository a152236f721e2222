"""Speed bars of issue 4: the EIE model on the nine benchmark layers.

Bars (wall time, this machine):
- the nine benchmark layers of ``workloads/eie_benchmarks.yaml`` at 64 PEs (``arch_configs/eie.yaml``),
  fast path: under 5 s in total;
- the FIFO-depth study, 9 layers x 9 depths (1..256), under 60 s.

Operand generation (seeded Gaussian weights pruned by magnitude, ``layer_operands``; 193 M dense
weights, VGG-6 alone 103 M) is not the model and is timed separately: each layer's operands are
generated (and timed) just before its model run, which then finds them in the cache. Run:

    python benchmarks/bench_eie.py [--repeat N]

Printed: per-layer model time, the totals next to the bars, and cycles as a checksum.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accel_sim.config.loader import load_arch  # noqa: E402
from accel_sim.eie.family import FAMILY  # noqa: E402
from accel_sim.eie.plan import retime  # noqa: E402
from accel_sim.studies.eie_fifo_depth import DEPTHS  # noqa: E402
from accel_sim.workload.loader import load_workload  # noqa: E402
from accel_sim.workload.operands import layer_operands  # noqa: E402

BENCHMARK_BAR_S = 5.0
FIFO_STUDY_BAR_S = 60.0


def main() -> int:
    parser = argparse.ArgumentParser(description="EIE model speed on the nine benchmark layers")
    parser.add_argument("--repeat", type=int, default=1, help="passes; the best model time is reported")
    args = parser.parse_args()
    arch = load_arch("eie")
    layers = load_workload("eie_benchmarks").layers
    best_model = float("inf")
    best_fifo = float("inf")
    generation = 0.0
    for _ in range(args.repeat):
        model_s, fifo_s, generation = 0.0, 0.0, 0.0
        checksum = []
        for layer in layers:
            start = time.perf_counter()
            ops = layer_operands(layer)
            ops.weights, ops.inputs  # noqa: B018 - generated now (operands are lazy), timed as generation
            generation += time.perf_counter() - start
            start = time.perf_counter()
            plan = FAMILY.plan(arch, layer)
            result = FAMILY.account(plan, FAMILY.fast(plan))
            layer_s = time.perf_counter() - start
            model_s += layer_s
            start = time.perf_counter()
            for depth in DEPTHS:
                depth_plan = retime(plan, "fifo_depth", depth)
                FAMILY.account(depth_plan, FAMILY.fast(depth_plan))
            fifo_s += layer_s + time.perf_counter() - start  # plan once per layer, as the study does
            checksum.append(result.cycles)
            print(f"  {layer.name:8s} {layer_s:6.3f} s  {result.cycles:>8,} cycles")
        best_model, best_fifo = min(best_model, model_s), min(best_fifo, fifo_s)
    print(f"operand generation (not the model): {generation:.2f} s")
    print(f"nine layers at 64 PEs, fast path: {best_model:.2f} s   (bar < {BENCHMARK_BAR_S:.0f} s) "
          f"{'OK' if best_model < BENCHMARK_BAR_S else 'MISSED'}")
    print(f"FIFO-depth study, 9 layers x {len(DEPTHS)} depths: {best_fifo:.2f} s   (bar < {FIFO_STUDY_BAR_S:.0f} s) "
          f"{'OK' if best_fifo < FIFO_STUDY_BAR_S else 'MISSED'}")
    print(f"checksum (total cycles): {sum(checksum):,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
