"""Bars of issue 17 (SIMT GPU sparse kernels), measured in CPU time and printed next to each bar:

- the whole ``gpu-sparse-kernels`` and ``csb-transpose`` studies (as ``accel-sim reproduce`` writes
  them) < 120 s;
- one ResNet-50 layer as SpMM (res2 1x1 reduce, 256 -> 64 channels at 56 x 56, 90 % sparse, Sputnik-style;
  and the largest 1x1 by weights, res5 expand, on every sparse CUDA-core kernel) < 2 s, operand generation included;
- the studies' comparison rows (SparseRT geometric means within 25 %, CSB A^T x within 1.2x of A x,
  CSR A^T x at least 2x its A x, balanced kernels at least 1.3x a row per warp on power-law rows).

    python benchmarks/bench_simt.py
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import matplotlib  # noqa: E402

matplotlib.use("Agg")

from accel_sim import load_arch  # noqa: E402
from accel_sim.pipeline.simulate import simulate_layer  # noqa: E402
from accel_sim.studies.registry import all_studies, write_study  # noqa: E402
from accel_sim.foundations.workload import ConvLayer  # noqa: E402

STUDY_BAR_S, LAYER_BAR_S = 120.0, 2.0


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def main() -> int:
    layers = (("sputnik", ConvLayer("res2_1x1_reduce", in_h=56, in_w=56, in_channels=256, out_channels=64, kernel_h=1,
                                    kernel_w=1, weight_density=0.1)),)
    layers += tuple((kernel, ConvLayer("res5_1x1_expand", in_h=7, in_w=7, in_channels=512, out_channels=2048, kernel_h=1,
                                       kernel_w=1, weight_density=0.1)) for kernel in ("sputnik", "merge", "csr_vector",
                                                                                     "sparsert"))
    for kernel, layer in layers:
        arch = load_arch("ampere_a100_simt", {"simt.kernel": kernel})
        start = time.process_time()
        result = simulate_layer(arch, layer).result
        spent = time.process_time() - start
        print(f"[{verdict(spent < LAYER_BAR_S)}] {layer.name} on {kernel}: {spent:.2f} s CPU (bar < {LAYER_BAR_S} s), "
              f"{result.cycles} cycles")
    total = 0.0
    with tempfile.TemporaryDirectory() as out:
        for name in ("gpu-sparse-kernels", "csb-transpose"):
            start = time.process_time()
            output = write_study(all_studies()[name], Path(out) / name)
            spent = time.process_time() - start
            total += spent
            print(f"{name}: {spent:.1f} s CPU")
            for c in output.comparisons:
                if c.published is not None or "bar" in c.quantity:
                    print(f"  [{verdict(c.within_tolerance)}] {c.quantity}: simulated {c.simulated:.3f}"
                          + (f", published {c.published}" if c.published is not None else ""))
    print(f"[{verdict(total < STUDY_BAR_S)}] both studies {total:.1f} s CPU (bar < {STUDY_BAR_S:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
