"""Bars of issue 16 (training): accuracy on the digits and CPU time of every low-bit run.

Trains every configuration of the ``low-bit-training`` study with the study's schedules (MLP and
CNN) and prints, per run, the test accuracy, the loss against float32 and the CPU seconds
(``time.process_time``, one BLAS thread). Bars:

- BNN and XNOR-Net MLPs >= 90 % test accuracy;
- TWN, TTQ and 4-bit DoReFa MLPs within 2 points of float32; INQ 5-bit within 1 point;
- each run < 60 s CPU; and the whole study (every run) measured too.

    python benchmarks/bench_lowbit_training.py
"""
from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accel_sim.systems.nn.digits import load_digits_split  # noqa: E402
from accel_sim.systems.nn.lowbit.train import LOWBIT_SCHEDULE, train_lowbit  # noqa: E402
from accel_sim.studies.low_bit_training import (  # noqa: E402
    BAR_MAX_LOSS_POINTS,
    BAR_MIN_BINARY_ACCURACY,
    CNN_EPOCHS,
    QUANTIZED_ENDS,
    VARIANTS,
)

RUN_CPU_BAR_S = 60.0


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main() -> int:
    data = load_digits_split()
    schedules = {"mlp": LOWBIT_SCHEDULE, "cnn": replace(LOWBIT_SCHEDULE, epochs=CNN_EPOCHS)}
    plan = [("mlp", label, config) for label, config in VARIANTS]
    plan += [("mlp", label, replace(config, full_precision_ends=False)) for label, config in VARIANTS
             if label in QUANTIZED_ENDS]
    plan += [("cnn", label, replace(config, network="cnn")) for label, config in VARIANTS]
    results, fp32, total = {}, {}, 0.0
    print(f"{'network':7s} {'method':22s} {'ends':9s} {'accuracy':>9s} {'loss':>7s} {'CPU s':>7s}")
    for network, label, config in plan:
        start = time.process_time()
        run = train_lowbit(data, config, schedules[network])
        cpu = time.process_time() - start
        total += cpu
        if label == "fp32":
            fp32[network] = run.test_accuracy
        results[(network, label, config.full_precision_ends)] = (run.test_accuracy, cpu)
        print(f"{network:7s} {label:22s} {'float32' if config.full_precision_ends else 'quantized':9s} "
              f"{100 * run.test_accuracy:8.2f}% {100 * (fp32[network] - run.test_accuracy):6.2f}p {cpu:7.2f}")
    checks = []
    for label in ("BNN", "XNOR-Net"):
        accuracy = 100 * results[("mlp", label, True)][0]
        checks.append((f"{label} MLP test accuracy {accuracy:.2f} %", f">= {BAR_MIN_BINARY_ACCURACY:g} %",
                       accuracy >= BAR_MIN_BINARY_ACCURACY))
    for label, bar in BAR_MAX_LOSS_POINTS.items():
        loss = 100 * (fp32["mlp"] - results[("mlp", label, True)][0])
        checks.append((f"{label} MLP loss vs float32 {loss:.2f} points", f"<= {bar:g}", loss <= bar))
    slowest = max(results.items(), key=lambda item: item[1][1])
    checks.append((f"slowest run {slowest[0][0]} {slowest[0][1]}: {slowest[1][1]:.2f} s CPU", f"< {RUN_CPU_BAR_S:g} s",
                   slowest[1][1] < RUN_CPU_BAR_S))
    print(f"\nwhole study ({len(plan)} runs): {total:.1f} s CPU")
    for measured, bar, ok in checks:
        print(f"{verdict(ok)}  {measured}  (bar {bar})")
    return 0 if all(ok for _, _, ok in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
