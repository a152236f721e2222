"""How each family's cost grows with the work (issue 22 item 6): time and memory as work doubles.

For every family, one layer is grown in steps that double its work: the non-zeros the model
processes (EIE, the PE array: weight non-zeros; Cnvlutin: non-zero activations), the products
(SCNN: weight density doubled at a fixed activation density) or the layer size (dense models:
the GEMM's ``m``). Each point is one ``simulate_layer`` (plan, fast path, accounting, energy) on
operands generated beforehand (generation is not the model: ``benchmarks/bench_operands.py``).
Printed per point: CPU seconds (``time.process_time``, best of ``--repeat``), the ratio to the
previous point and its growth exponent ``log2(ratio)`` (1 = linear in the work), and the peak
Python heap of one run (``tracemalloc``, numpy arrays included; measured in a separate pass).

Issue 22's bar: doubling the work costs at most 2.2x the time at every step (exponent <= 1.14).
Steps where the earlier point takes under ``--floor`` seconds are reported but not held to the
bar (fixed costs dominate there, and their ratio says nothing about growth). Each point is timed
alone, runs back to back: a point whose working set just outgrows the cache can look super-linear
next to a smaller one that stayed warm; ``--interleaved PAIRS`` re-times every failing step with
the two points' runs alternated (same load, same cache state) and prints that ratio next to it. Run:

    python benchmarks/scaling.py [--repeat 3] [--only eie scnn] [--steps 5] [--interleaved 15]
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accel_sim import load_arch  # noqa: E402
from accel_sim.pipeline.simulate import simulate_layer  # noqa: E402
from accel_sim.foundations.workload import ConvLayer, GemmLayer  # noqa: E402
from accel_sim.foundations.workload.operands import layer_operands  # noqa: E402

BAR = 2.2


def conv(name: str, **fields) -> ConvLayer:
    base = dict(in_h=28, in_w=28, in_channels=128, out_channels=128, kernel_h=3, kernel_w=3, pad_top=1,
                pad_bottom=1, pad_left=1, pad_right=1)
    return ConvLayer(name, **{**base, **fields})


# family -> (arch config, what doubles, layer of step i): the sparse models twice, once doubling
# the non-zeros (or products) at a fixed size, once doubling the layer at fixed densities
SERIES = {
    "systolic CALC": ("tpu_like_128x128_ws", "size (GEMM m)", lambda i: GemmLayer("g", m=2048 * 2 ** i, k=1024, n=1024)),
    "systolic USER": ("scalesim_32x32_ws", "size (GEMM m)", lambda i: GemmLayer("g", m=64 * 2 ** i, k=256, n=256)),
    "systolic USER conv": ("scalesim_32x32_ws", "size (in_channels)", lambda i: conv("c", in_channels=32 * 2 ** i)),
    # dense GEMMs kept under the work limit (accel_sim.foundations.workload.work: 2^31 operand values) at the last step
    "tensor_core": ("ampere_a100_dense", "size (GEMM m)", lambda i: GemmLayer("g", m=4096 * 2 ** i, k=16384, n=8192)),
    "dlu": ("dlu", "size (GEMM m)", lambda i: GemmLayer("g", m=8192 * 2 ** i, k=2048, n=8192)),
    "eie": ("eie", "weight non-zeros", lambda i: GemmLayer("fc", m=1, k=4096, n=4096, weight_density=0.02 * 2 ** i,
                                                          input_density=0.5)),
    "eie ": ("eie", "size (in_features)", lambda i: GemmLayer("fc", m=1, k=1024 * 2 ** i, n=4096, weight_density=0.1,
                                                             input_density=0.5)),
    "scnn": ("scnn", "products (weight density)", lambda i: conv("c", weight_density=0.05 * 2 ** i,
                                                                 input_density=0.5)),
    "scnn ": ("scnn", "size (in_channels)", lambda i: conv("c", in_channels=32 * 2 ** i, weight_density=0.3,
                                                           input_density=0.5)),
    "pe_array reassignment": ("pe_array_reassignment", "weight non-zeros",
                              lambda i: conv("c", in_h=56, in_w=56, in_channels=512, out_channels=1024,
                                             weight_density=0.05 * 2 ** i, input_density=0.5)),
    "pe_array reassignment ": ("pe_array_reassignment", "size (out_channels)",
                               lambda i: conv("c", in_h=56, in_w=56, in_channels=512, out_channels=256 * 2 ** i,
                                              weight_density=0.3, input_density=0.5)),
    "pe_array skipping": ("pe_array_skipping", "size (out_channels)",
                          lambda i: conv("c", in_h=56, in_w=56, in_channels=512, out_channels=256 * 2 ** i,
                                         weight_density=0.3, input_density=0.5)),
    "pe_array skipping ": ("pe_array_skipping", "weight non-zeros",
                           lambda i: conv("c", in_h=56, in_w=56, in_channels=512, out_channels=1024,
                                          weight_density=0.05 * 2 ** i, input_density=0.5)),
    "lowbit": ("lowbit", "size (out_channels)", lambda i: conv("c", in_channels=256, out_channels=256 * 2 ** i)),
    "lowbit ternary": ("lowbit", "size (out_channels)", lambda i: conv("c", in_channels=256, out_channels=256 * 2 ** i,
                                                                      precision="ternary")),
    "lowbit ternary ": ("lowbit", "weight non-zeros", lambda i: conv("c", in_channels=256, out_channels=1024,
                                                                    precision="ternary",
                                                                    weight_density=0.05 * 2 ** i)),
    "cnvlutin": ("cnvlutin", "non-zero activations", lambda i: conv("c", in_h=112, in_w=112, in_channels=512,
                                                                    out_channels=256, input_density=0.05 * 2 ** i)),
    "cnvlutin ": ("cnvlutin", "size (in_channels)", lambda i: conv("c", in_h=112, in_w=112, in_channels=64 * 2 ** i,
                                                                   out_channels=256, input_density=0.5)),
}


def cpu_seconds(arch, layer, repeat: int, budget: float = 0.5) -> float:
    """Best of ``repeat`` runs, more for short runs (until ``budget`` CPU seconds, at most 50):
    on a shared machine the best of many is the steadiest estimate of a short run."""
    best, spent, runs = math.inf, 0.0, 0
    while runs < repeat or (spent < budget and runs < 50):
        start = time.process_time()
        simulate_layer(arch, layer)
        took = time.process_time() - start
        best, spent, runs = min(best, took), spent + took, runs + 1
    return best


def interleaved_ratio(arch, earlier, later, pairs: int) -> tuple[float, float]:
    """(ratio of the minima, ratio of the medians) of ``later`` over ``earlier``, their runs
    alternated ``pairs`` times: both points under the same load and the same cache state (each
    run follows a run of the other point), where :func:`cpu_seconds` times each point alone."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(pairs):
        for layer, spent in zip((earlier, later), times):
            start = time.process_time()
            simulate_layer(arch, layer)
            spent.append(time.process_time() - start)
    return min(times[1]) / min(times[0]), statistics.median(times[1]) / statistics.median(times[0])


def peak_mb(arch, layer) -> float:
    tracemalloc.start()
    simulate_layer(arch, layer)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2 ** 20


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--steps", type=int, default=5, help="points per family (doublings + 1)")
    parser.add_argument("--floor", type=float, default=0.01, help="seconds below which a step is not held to the bar")
    parser.add_argument("--only", nargs="*", help="families whose name starts with one of these")
    parser.add_argument("--interleaved", type=int, default=0, metavar="PAIRS",
                        help="re-time each failing step with its two points' runs alternated PAIRS times")
    args = parser.parse_args(argv)
    failures = []
    print(f"{'family':23s} {'doubling':26s} {'step':>4s} {'CPU s':>9s} {'ratio':>6s} {'exp':>5s} {'peak MB':>8s}")
    for family, (arch_name, what, layer_of) in SERIES.items():
        if args.only and not any(family.startswith(o) for o in args.only):
            continue
        arch = load_arch(arch_name)
        previous = None
        for i in range(args.steps):
            layer = layer_of(i)
            ops = layer_operands(layer)
            if arch.family not in ("systolic", "tensor_core", "dlu"):
                ops.weights, ops.inputs  # noqa: B018 - generated before timing (cached for the runs)
            seconds = cpu_seconds(arch, layer, args.repeat)
            memory = peak_mb(arch, layer)
            line = f"{family:23s} {what:26s} {i:4d} {seconds:9.4f}"
            if previous is not None:
                ratio = seconds / previous
                note = ""
                if previous < args.floor:
                    note = "  (below the floor)"
                elif ratio > BAR:
                    note = f"  FAILS (> {BAR}x)"
                    failure = f"{family.strip()} ({what}) step {i - 1} -> {i}: {ratio:.2f}x"
                    if args.interleaved:
                        low, mid = interleaved_ratio(arch, layer_of(i - 1), layer, args.interleaved)
                        note += f"; interleaved {low:.2f}x (minima) {mid:.2f}x (medians)"
                        failure += f" (interleaved: {low:.2f}x minima, {mid:.2f}x medians)"
                    failures.append(failure)
                line += f" {ratio:6.2f} {math.log2(ratio):5.2f} {memory:8.1f}{note}"
            else:
                line += f" {'':6s} {'':5s} {memory:8.1f}"
            print(line, flush=True)
            previous = seconds
    print(f"steps over {BAR}x: {len(failures)}" + "".join(f"\n  {f}" for f in failures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
