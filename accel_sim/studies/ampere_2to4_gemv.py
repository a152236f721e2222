"""The batch-1 GEMV regime of the ``ampere-2to4`` study: which limits hold when the 2:4 weights are the matrix.

One GEMV (output 1 x n = input 1 x k @ weights k x n) on the A100 of both GPU families, each with its
own memory model and the same cited constants (``ampere_a100_simt`` extends ``ampere_a100``):

- tensor_core family: the dense and the 2:4 run on their fastest CUTLASS tiles (as the study's grid), with
  the shipped ``loads_in_flight: unbounded`` and with ``stages`` (CUTLASS's buffer ring: at most
  ``stages - 1`` loads ahead of the tensor cores);
- simt family: the dense CUDA-core GEMV a dense library runs at batch 1 (``dense_gemv``: a warp per row,
  FP16), the dense tensor-core GEMM and the 2:4 tensor-core GEMM (CUTLASS tiles with split-K, occupancy
  and latency hiding by resident CTAs).

And the memory-level parallelism each kernel has (Little's law: a kernel moves at most its bytes in
flight per memory latency): a CUTLASS multistage kernel keeps at least ``stages - 2`` stages of cp.async
copies in flight per CTA (its main loop waits until ``stages - 2`` are pending, then issues the next:
``cp_async_wait<kStages - 2>`` in CUTLASS's MmaMultistage / SparseMmaMultistage), ``dense_gemv`` one
512-byte iteration per resident warp. ``covers_latency`` is the memory latency up to which the bytes in
flight of the kernel's smallest wave (``busy_sms`` SMs: a tile kernel's last wave; every SM for
``dense_gemv``, whose short CTAs refill the SMs) keep DRAM at its full bandwidth (bytes in flight / DRAM
bytes per cycle); above it the kernel is latency-bound in that wave.
"""
from __future__ import annotations

import pandas as pd

from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.foundations.workload import GemmLayer, NMSparsity
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.simulate import simulate_layer

SIMT_ARCH = "ampere_a100_simt"
FP16_BITS = 16                # the study's word: FP16 weights and activations (the brief's 2:4 FP16 pattern)
BITS_PER_BYTE = 8
TWO_FOUR = NMSparsity(2, 4)   # the FP16 hardware pattern (the whole ampere-2to4 study's)
LOADS_IN_FLIGHT = ("unbounded", "stages")   # tensor_core.loads_in_flight: the shipped choice, CUTLASS's ring
COLUMNS = ["family", "kernel", "tile", "cycles", "dram_cycles", "ctas", "in_flight_per_sm", "busy_sms",
           "covers_latency"]


def _layer(n: int, k: int, sparse: bool) -> GemmLayer:
    return GemmLayer("gemv", m=1, k=k, n=n, weight_sparsity=TWO_FOUR if sparse else None)


def _tile(result: LayerResult) -> str:
    """The kernel tile that ran, as CUTLASS names it (CTA tile / warp tile), with its stages."""
    t = {name: int(result.metrics[name]) for name in ("tile_m", "tile_n", "tile_k", "warp_m", "warp_n", "stages")}
    return f"{t['tile_m']}x{t['tile_n']}x{t['tile_k']}/w{t['warp_m']}x{t['warp_n']}, {t['stages']} stages"


def _tensor_core_row(arch_name: str, n: int, k: int, sparse: bool, loads_in_flight: str = "unbounded") -> dict:
    arch = load_arch(arch_name, {"tensor_core.loads_in_flight": loads_in_flight})
    r = simulate_layer(arch, _layer(n, k, sparse)).result
    stages, fill_bits = int(r.metrics["stages"]), int(r.metrics["stage_fill_bits"])
    per_cta = (stages - 2) * fill_bits // BITS_PER_BYTE
    ctas, waves = int(r.metrics["ctas"]), int(r.metrics["waves"])
    last_wave = ctas - (waves - 1) * arch.tensor_core.sms        # one CTA per SM: the last wave is the smallest
    family = "tensor_core" if loads_in_flight == "unbounded" else f"tensor_core, loads_in_flight: {loads_in_flight}"
    return {"family": family, "kernel": "2:4 tensor-core GEMM" if sparse else "dense tensor-core GEMM",
            "tile": _tile(r), "cycles": r.cycles, "dram_cycles": int(r.metrics["dram_busy_cycles"]),
            "ctas": ctas, "in_flight_per_sm": per_cta, "busy_sms": last_wave,
            "covers_latency": last_wave * per_cta / arch.tensor_core.dram_bandwidth}


def _simt_row(kernel: str, n: int, k: int, label: str) -> dict:
    arch = load_arch(SIMT_ARCH, {"simt.kernel": kernel, "word_bits": FP16_BITS})
    r = simulate_layer(arch, _layer(n, k, kernel == "nm_tensor_core")).result
    row = {"family": "simt", "kernel": label, "tile": "", "cycles": r.cycles,
           "dram_cycles": int(r.metrics["dram_cycles"]), "ctas": int(r.metrics["ctas"]), "in_flight_per_sm": float("nan"), "busy_sms": float("nan"),
           "covers_latency": float("nan")}
    if "in_flight_bytes_per_sm" in r.metrics:     # dense_gemv: one 16-byte load per lane of every resident warp
        per_sm, sms = int(r.metrics["in_flight_bytes_per_sm"]), arch.tensor_core.sms
        row.update(in_flight_per_sm=per_sm, busy_sms=sms, covers_latency=sms * per_sm / arch.tensor_core.dram_bandwidth)
    return row


def batch1_gemv(arch_name: str, n: int, k: int) -> pd.DataFrame:
    """The batch-1 GEMV (1 x k @ k x n weights) on every kernel of both families, with its bytes in flight."""
    rows = [_tensor_core_row(arch_name, n, k, sparse, ring) for ring in LOADS_IN_FLIGHT for sparse in (False, True)]
    rows += [_simt_row(kernel, n, k, label) for kernel, label in (
        ("dense_gemv", "dense CUDA-core GEMV (a warp per row)"), ("dense_tensor_core", "dense tensor-core GEMM"),
        ("nm_tensor_core", "2:4 tensor-core GEMM"))]
    return pd.DataFrame(rows, columns=COLUMNS)
