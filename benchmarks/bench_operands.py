"""Operand generation against simulation (issue 22, item 3): operands only when a model reads values.

Two cases of the issue, CPU seconds (``time.process_time``, this process only; the machine is
shared, wall time is not a measure here):

- EIE's nine Table IV layers (``eie_benchmarks``): generating each layer's weights and inputs,
  then simulating with the operands already made (EIE reads values: both are needed);
- a dense 4096^3 GEMM on the A100 tensor core (``ampere_a100_dense``): the whole layer run, of
  which generating is zero when the hashes come from the seed spec (dense cycles never look at
  values), against what generating the two tensors would cost.

Run (the worktree's code first on the path):

    python benchmarks/bench_operands.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accel_sim import load_arch, load_workload  # noqa: E402
from accel_sim.pipeline.simulate import simulate_layer  # noqa: E402
from accel_sim.foundations.workload import GemmLayer  # noqa: E402
from accel_sim.foundations.workload.operands import _cached_operands, layer_operands  # noqa: E402


def cpu(function) -> float:
    start = time.process_time()
    function()
    return time.process_time() - start


def eie_layers() -> None:
    arch, network = load_arch("eie"), load_workload("eie_benchmarks")
    generating = simulating = 0.0
    for layer in network.layers:
        _cached_operands.cache_clear()
        ops = layer_operands(layer)
        generating += cpu(lambda ops=ops: (ops.weights, ops.inputs))
        simulating += cpu(lambda layer=layer: simulate_layer(arch, layer))
    print(f"EIE nine Table IV layers: generating {generating:.2f} CPU-s, simulating {simulating:.2f} CPU-s")


def dense_gemm() -> None:
    arch, layer = load_arch("ampere_a100_dense"), GemmLayer("dense4096", m=4096, k=4096, n=4096)
    _cached_operands.cache_clear()
    run = cpu(lambda: simulate_layer(arch, layer))
    ops = layer_operands(layer)
    generating = cpu(lambda: (ops.weights, ops.inputs))  # what an eager generator would have spent
    print(f"dense 4096^3 GEMM on the tensor core: whole layer run {run * 1e3:.1f} CPU-ms (no operand generated); "
          f"generating the operands would take {generating:.2f} CPU-s")


if __name__ == "__main__":
    eie_layers()
    dense_gemm()
