"""The serving kernels' bars, measured in one run (ratios of simulated cycles, no wall-clock times).

On ``ampere_a100_serving`` (split-K GEMMs and split-KV decode attention) against ``ampere_a100`` (unsplit kernels,
attention as score, softmax and context kernels), each kernel's cycles over its DRAM-bound time: the launch gap
(``kernel_launch_cycles``, paid by every kernel) plus its DRAM bytes at the sustained bandwidth.

- decode attention of one Llama-2-7B block at context 2048 (bar: within 10 %), batches 1, 8, 16, 64, and of
  Llama-3-8B (grouped-query, 8 KV heads) for comparison;
- GPT-2's 768-wide projections at decode batch 1, 8, 16: ``mlp_down`` (3072 -> 768, 12 CTAs unsplit) and ``attn_q``
  (768 -> 768) (bar: within 30 %).

    python benchmarks/bench_serving_kernels.py
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from accel_sim import load_arch  # noqa: E402
from accel_sim.foundations.workload.layer import GemmLayer  # noqa: E402
from accel_sim.foundations.workload.llm.generator import attention_layers  # noqa: E402
from accel_sim.foundations.workload.llm.hf_config import read_hf_config  # noqa: E402
from accel_sim.pipeline.simulate import simulate_layer  # noqa: E402

CONFIGS = REPO / "workloads" / "llm" / "configs"
BARS = {"attention": 1.10, "projection": 1.30}


def ratio(arch, layers) -> tuple[float, str]:
    """Cycles of the layers' matrix kernels over their DRAM-bound time, and the kernels they ran."""
    spec = arch.tensor_core
    runs = [r for r in (simulate_layer(arch, layer).result for layer in layers) if "tile_m" in r.metrics]
    floor = sum(spec.kernel_launch_cycles + (r.dram_read_bytes + r.dram_write_bytes) / spec.dram_bandwidth for r in runs)
    kernels = ", ".join(f"{int(r.metrics['tile_m'])}x{int(r.metrics['tile_n'])}x{int(r.metrics['tile_k'])}"
                        f" split {int(r.metrics.get('split_k', 1))}" for r in runs)
    return sum(r.cycles for r in runs) / floor, kernels


def main() -> int:
    serving, plain = load_arch("ampere_a100_serving"), load_arch("ampere_a100")
    failed = 0
    print("decode attention, context 2048: cycles / DRAM-bound time (bar <= 1.10 for Llama-2-7B)")
    for model in ("llama_2_7b", "llama_3_8b"):
        config = read_hf_config(CONFIGS / f"{model}.json")
        for batch in (1, 8, 16, 64):
            before, _ = ratio(plain, attention_layers(config, "l0_", batch, 1, 2048))
            after, kernels = ratio(serving, attention_layers(config, "l0_", batch, 1, 2048, fused=True))
            bar = model == "llama_2_7b"
            failed += bar and after > BARS["attention"]
            print(f"  {model} batch {batch:3d}: unfused {before:.3f} -> fused {after:.3f} ({kernels})"
                  f"{'' if not bar else ' ok' if after <= BARS['attention'] else ' MISSED'}")
    print("GPT-2 768-wide projections: cycles / DRAM-bound time (bar <= 1.30)")
    for name, k in (("mlp_down", 3072), ("attn_q", 768)):
        for batch in (1, 8, 16):
            layer = GemmLayer(name, m=batch, k=k, n=768)
            before, _ = ratio(plain, [layer])
            after, kernels = ratio(serving, [layer])
            failed += after > BARS["projection"]
            print(f"  {name} batch {batch:2d}: unsplit {before:.3f} -> {after:.3f} ({kernels})"
                  f" {'ok' if after <= BARS['projection'] else 'MISSED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
