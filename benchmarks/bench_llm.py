"""Run time of one Llama-2-7B inference step (issue 19's speed bar), fast path, batch 1.

Bars: a decode step at context 2048 in < 5 s and a prefill of 2048 tokens in < 30 s, on the
tensor core (``ampere_a100``) and a systolic array (``tpu_like_128x128_ws``). Each run is the
whole network (:func:`accel_sim.pipeline.simulate`: 289 layers, the attention ones batched GEMMs of 32
instances) from the shipped config ``workloads/llm/configs/llama_2_7b.json``. Also printed:
where the time goes (seconds in the batched attention layers, the rest in the projections and
the LM head) and the peak resident memory of this process. ``--blocks N`` simulates only the
first N of the 32 identical transformer blocks (and the LM head) and extrapolates the step's
time as N blocks x 32 / N (printed as "extrapolated"), for runs too slow to wait for.
``--counting-only`` times the family's plan and fast path alone (``Family.counters``, every
instance of a batched GEMM): no accounting, so no operand tensors are generated for the
result's content hashes; the gap to the full run is the cost of generating operands. Times are
CPU seconds of this process (``time.process_time``: the machine may be shared). The step
includes the vector layers (norms, rotary, softmax, SwiGLU, residuals) on the vector unit. Run:

    python benchmarks/bench_llm.py [--arch NAME ...] [--phase decode|prefill ...] [--batch B] [--blocks N] [--counting-only]
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from accel_sim import load_arch  # noqa: E402
from accel_sim.foundations.energy.table import load_energy_table  # noqa: E402
from accel_sim.pipeline.simulate import simulate_layer  # noqa: E402
from accel_sim.pipeline.catalog import family_of  # noqa: E402
from accel_sim.foundations.workload.layer import BatchedGemmLayer, single_layers  # noqa: E402
from accel_sim.foundations.workload.llm.generator import InferenceStep, transformer_network  # noqa: E402
from accel_sim.foundations.workload.llm.hf_config import read_hf_config  # noqa: E402

CONFIG = REPO / "workloads" / "llm" / "configs" / "llama_2_7b.json"
CONTEXT = 2048
BARS_S = {"decode": 5.0, "prefill": 30.0}   # issue 19, "Speed"
ARCHS = ("ampere_a100", "tpu_like_128x128_ws")


def time_step(arch_name: str, phase: str, batch: int, blocks: int | None = None,
              counting_only: bool = False) -> tuple[float, float, int]:
    """(seconds, seconds in batched layers, cycles) of one step, layer by layer as simulate() runs it;
    with ``blocks``, the block part is measured on that many blocks and scaled to all of them."""
    arch = load_arch(arch_name)
    config = read_hf_config(CONFIG)
    network = transformer_network(config, InferenceStep(phase, CONTEXT, batch))
    table = load_energy_table(arch.energy_table)
    family = family_of(arch)
    scale = config.layers / blocks if blocks else 1.0
    width = len(str(config.layers - 1))
    total = batched = 0.0
    cycles = 0.0
    for layer in network.layers:
        in_block = layer.name.startswith("l") and layer.name[1:1 + width].isdigit()
        if blocks and in_block and int(layer.name[1:1 + width]) >= blocks:
            continue
        factor = scale if in_block else 1.0
        start = time.process_time()
        if counting_only:
            ones = ((layer.as_grouped(),) if isinstance(layer, BatchedGemmLayer) and family.batched_as_groups
                    else single_layers((layer,)))  # as simulate runs it (vector layers: not counted here)
            cycles += factor * sum(family.counters(arch, one)[1].cycles for one in ones)
        else:
            cycles += factor * simulate_layer(arch, layer, table).result.cycles
        spent = factor * (time.process_time() - start)
        total += spent
        batched += spent if isinstance(layer, BatchedGemmLayer) else 0.0
    return total, batched, round(cycles)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", action="append", default=None, help=f"default: {', '.join(ARCHS)}")
    parser.add_argument("--phase", action="append", default=None, choices=tuple(BARS_S))
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--blocks", type=int, default=None, help="simulate N blocks and extrapolate")
    parser.add_argument("--counting-only", action="store_true", help="plan + fast path only (no operands)")
    args = parser.parse_args(argv)
    within = True
    for arch_name in args.arch or ARCHS:
        for phase in args.phase or tuple(BARS_S):
            total, batched, cycles = time_step(arch_name, phase, args.batch, args.blocks, args.counting_only)
            ok = total < BARS_S[phase]
            within &= ok
            how = (f" (extrapolated from {args.blocks} blocks)" if args.blocks else "") + \
                (" [counting only]" if args.counting_only else "")
            print(f"{arch_name:22s} Llama-2-7B {phase:7s} ctx {CONTEXT} batch {args.batch}: {total:7.2f} s{how} "
                  f"(attention batched GEMMs {batched:6.2f} s, other layers {total - batched:6.2f} s; "
                  f"bar {BARS_S[phase]:.0f} s: {'ok' if ok else 'MISSED'}), {cycles:,} cycles", flush=True)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux
    print(f"peak resident memory of this process: {peak_mib:,.0f} MiB")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
