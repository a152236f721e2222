"""Speed-up of 2:4 sparse over dense tensor cores vs GEMM shape, and what limits it.

Each GEMM (output m x n = input m x k @ weights k x n; the weights are the 2:4 operand)
runs on ``ampere_a100`` twice: dense and with 2:4 weights, each with its fastest kernel, as a
:class:`~accel_sim.foundations.workload.GemmLayer` counted through the family's hooks (plan and fast path:
a shape study needs no operand tensors). ``bound`` names the path that limits the 2:4 run
(the run's one-hot ``bound_*`` metrics). The batch-1 GEMV regime is examined on
both GPU families (:mod:`accel_sim.studies.ampere_2to4_gemv`: table ``gemv_batch1``).
"""
from __future__ import annotations

import itertools

import pandas as pd

from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.foundations.workload import GemmLayer
from accel_sim.pipeline.catalog import ArchSpec, load_arch
from accel_sim.pipeline.plot.studies.ampere_2to4 import speedup_and_limiters
from accel_sim.pipeline.simulate import simulate_layer
from accel_sim.studies.ampere_2to4_gemv import TWO_FOUR, batch1_gemv
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme

ARCH = "ampere_a100"
SIZES = (1, 16, 256, 1024, 4096, 16384)   # m (batch x tokens), n and k: 1 .. 16k, batch 1 .. 256 included
COLUMNS = ["m", "n", "k", "dense_cycles", "sparse_cycles", "speedup", "bound"]
MEASURED = ("estimate: measured A100 2:4 speed-ups (large FP16 GEMMs, BERT-base end to end) known here at second "
            "hand; the primary measurement is not identified")
WHITEPAPER = "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): FP16 312 TFLOPS dense, 624 TFLOPS 2:4"
LARGE = 4096  # "large GEMM": every dimension at least this
PUBLISHED_LARGE_GEMM_SPEEDUP = (1.3, 1.4)  # measured 2:4 speed-up of large FP16 GEMMs (brief)
BAND_TOLERANCE = 0.05 / 1.35               # within the published band: +-0.05 around its middle
FOOTPRINT_RATIO = 64 / 36     # FP16 2:4 with metadata: 36 bits per 4 values vs 64 (brief)
# Where batch-1 2:4 GEMV is measured at none or a slow-down, and what a GEMV-specialised 2:4 kernel reaches
# (the README's prose quotes each one's figures; these are the locators)
GEMV_SOURCES = (
    "pytorch/pytorch#111339 (cuSPARSELt through torch.sparse; GPU not stated)",
    "pytorch/pytorch#110583 (the padding of the dense operand to a supported shape)",
    "NVIDIA/CUDALibrarySamples#276",
    "pytorch/ao#1460 (maintainer: minimum shapes force padding, a slow-down at batch 1 is expected)",
    "IST-DASLab/Sparse-Marlin README (RTX 3090, Ampere sparse tensor cores)",
    "CUTLASS include/cutlass/gemm/device/gemm_sparse.h (2.3) and gemm_sparse_universal.h (3.5.1); github.com/NVIDIA/cutlass",
)
GEMV_MEASURED = "; ".join(GEMV_SOURCES[:4])   # the four that measure batch-1 2:4 GEMV

# One BERT-base encoder layer at sequence length 128, batch 1 (workloads/bert_base_seq128.yaml):
# (m, k, n, count, weights?) - the attention GEMMs multiply two activations: they stay dense.
BERT_LAYER = ((128, 768, 768, 4, True), (128, 768, 3072, 1, True), (128, 3072, 768, 1, True),
              (128, 64, 128, 12, False), (128, 128, 64, 12, False))


def gemm_run(arch: ArchSpec, m: int, n: int, k: int, sparse: bool) -> LayerResult:
    """One GEMM (output m x n = input m x k @ weights k x n), the weights 2:4 when ``sparse`` (and the
    arch has the sparse path), on its fastest kernel."""
    layer = GemmLayer("gemm", m=m, k=k, n=n, weight_sparsity=TWO_FOUR if sparse else None)
    return simulate_layer(arch, layer).result


def bound(result: LayerResult) -> str:
    """The path that limits a tensor-core run (its ``bound_<path>`` metric that is 1)."""
    return next(name.removeprefix("bound_") for name, value in result.metrics.items()
                if name.startswith("bound_") and value)


def speedup_table(arch_name: str = ARCH, sizes: tuple[int, ...] = SIZES) -> pd.DataFrame:
    arch = load_arch(arch_name)
    rows = []
    for m, n, k in itertools.product(sizes, repeat=3):
        dense, sparse = gemm_run(arch, m, n, k, sparse=False), gemm_run(arch, m, n, k, sparse=True)
        rows.append({"m": m, "n": n, "k": k, "dense_cycles": dense.cycles, "sparse_cycles": sparse.cycles,
                     "speedup": dense.cycles / sparse.cycles, "bound": bound(sparse)})
    return pd.DataFrame(rows, columns=COLUMNS)


def bert_layer_speedup(arch_name: str = ARCH) -> float:
    """GEMM-only speed-up of one BERT-base encoder layer with 2:4 weight GEMMs."""
    arch = load_arch(arch_name)
    dense = sparse = 0
    for m, k, n, count, weights in BERT_LAYER:
        d = gemm_run(arch, m, n, k, sparse=False).cycles
        dense += count * d
        sparse += count * (gemm_run(arch, m, n, k, sparse=True).cycles if weights else d)
    return dense / sparse


# Kernels of one CTA tile (128 x 128 x 64) with different warp tiles: a warp of warp_m A rows
# re-reads its B slice from shared memory; fewer A rows per warp = more B reads per MAC.
WARP_TILES = ((64, 64), (64, 32), (32, 64))
SENSITIVITY_SIZES = (4096, 8192)


def warp_tile_sensitivity(arch_name: str = ARCH, sizes: tuple[int, ...] = SENSITIVITY_SIZES) -> dict:
    """Speed-ups on square GEMMs when the library has only one 128x128x64 kernel of each warp tile."""
    out = {}
    for warp_m, warp_n in WARP_TILES:
        kernel = {"m": 128, "n": 128, "k": 64, "warp_m": warp_m, "warp_n": warp_n}
        arch = load_arch(arch_name, {"tensor_core.kernels": [kernel], "tensor_core.sparse_kernels": [kernel]})
        runs = [(gemm_run(arch, s, s, s, sparse=False), gemm_run(arch, s, s, s, sparse=True)) for s in sizes]
        out[(warp_m, warp_n)] = pd.DataFrame([{"size": s, "speedup": d.cycles / sp.cycles, "dense_bound": bound(d),
                                               "sparse_bound": bound(sp)} for s, (d, sp) in zip(sizes, runs)])
    return out


# What the measured band would take: the sustained bandwidth of one path as a fraction of its cited
# figure (shared memory: the 128 B/clk per SM peak; L2: the measured sustained 3837.5 B/clk), everything
# else as shipped. A diagnostic of the missing mechanism, never shipped: the config keeps the cited figures.
SUSTAINED_FRACTIONS = (1.0, 0.8, 0.7, 0.6)
SUSTAINED_PATHS = ("shared_memory_bandwidth", "l2_bandwidth")


def sustained_bandwidth_sensitivity(arch_name: str = ARCH, sizes: tuple[int, ...] = SENSITIVITY_SIZES) -> pd.DataFrame:
    """Mean speed-up on square GEMMs when one path sustains only a fraction of its cited peak."""
    base = load_arch(arch_name).tensor_core
    rows = []
    for path in SUSTAINED_PATHS:
        for fraction in SUSTAINED_FRACTIONS:
            arch = load_arch(arch_name, {f"tensor_core.{path}": getattr(base, path) * fraction})
            runs = [(gemm_run(arch, s, s, s, sparse=False), gemm_run(arch, s, s, s, sparse=True))
                    for s in sizes]
            rows.append({"path": path, "fraction": fraction,
                         "speedup": sum(d.cycles / sp.cycles for d, sp in runs) / len(runs),
                         "dense_bound": "/".join(sorted({bound(d) for d, _ in runs})),
                         "sparse_bound": "/".join(sorted({bound(sp) for _, sp in runs}))})
    return pd.DataFrame(rows)


def _range(values: pd.Series) -> str:
    if not len(values):
        return "n/a"
    low, high = f"{values.min():.2f}", f"{values.max():.2f}"
    return f"{low}x" if low == high else f"{low}-{high}x"


def _gemv_kernels(gemv: pd.DataFrame) -> dict[str, pd.Series]:
    """The batch-1 GEMV table's rows by role (``simt``: every simt kernel's cycles by kernel name)."""
    tc = gemv[gemv.family == "tensor_core"].set_index("kernel")
    ring = gemv[gemv.family == "tensor_core, loads_in_flight: stages"].set_index("kernel")
    return {"simt": gemv[gemv.family == "simt"].set_index("kernel").cycles,
            "sparse": tc.loc["2:4 tensor-core GEMM"], "dense": tc.loc["dense tensor-core GEMM"],
            "cuda": gemv.set_index("kernel").loc["dense CUDA-core GEMV (a warp per row)"],
            "ring_dense": ring.loc["dense tensor-core GEMM"], "ring_sparse": ring.loc["2:4 tensor-core GEMM"]}


def _large(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[(frame.m >= LARGE) & (frame.n >= LARGE) & (frame.k >= LARGE)]


def _band_comparisons(frame: pd.DataFrame, warp_tiles: dict, sustained: pd.DataFrame) -> tuple[Comparison, ...]:
    """The large-GEMM rows against the published band: the grid, one warp tile at a time, the DIAGNOSTIC
    sustained-bandwidth fractions."""
    large = _large(frame)
    band, middle = PUBLISHED_LARGE_GEMM_SPEEDUP, sum(PUBLISHED_LARGE_GEMM_SPEEDUP) / 2
    note = (f"(published: measured {band[0]}-{band[1]}x, middle shown; limited here by "
            f"{', '.join(sorted(set(large.bound))) or 'n/a'})")
    squares = " and ".join(map(str, SENSITIVITY_SIZES))
    warp_rows = tuple(
        Comparison(f"2:4 speed-up, square GEMMs {squares}, one 128x128x64 kernel with {wm}x{wn} warp tiles, mean "
                   f"{note}", "x", middle, float(part.speedup.mean()), MEASURED, tolerance=BAND_TOLERANCE)
        for (wm, wn), part in warp_tiles.items())
    sustained_rows = tuple(
        Comparison(f"2:4 speed-up, square GEMMs {squares}, DIAGNOSTIC: {r.path} sustaining {r.fraction:.0%} of its "
                   f"cited peak (dense {r.dense_bound}-, 2:4 {r.sparse_bound}-bound), mean {note}", "x", middle,
                   float(r.speedup), MEASURED, tolerance=BAND_TOLERANCE)
        for r in sustained.itertuples() if r.fraction < 1.0)
    grid_row = Comparison(f"2:4 speed-up, large FP16 GEMMs (m, n, k >= {LARGE}), mean {note}", "x", middle,
                          float(large.speedup.mean()), MEASURED, tolerance=BAND_TOLERANCE)
    return (grid_row,) + warp_rows + sustained_rows


def _gemv_comparisons(frame: pd.DataFrame, big: int, compute: tuple[LayerResult, LayerResult],
                      gemv: dict[str, pd.Series], bert: float) -> tuple[Comparison, ...]:
    """The math rate, the two GEMV regimes on both GPU families, BERT-base end to end."""
    batch1 = frame[(frame.m == 1) & (frame.n == big) & (frame.k == big)]
    one_feature = frame[(frame.n == 1) & (frame.m == big) & (frame.k == big)]
    simt = gemv["simt"]
    gemv_b1 = f"GEMV, batch 1 (m = 1, n = k = {big})"
    return (
        Comparison(f"math speed-up, {big}^3 GEMM (tensor-core busy cycles; 624 vs 312 TFLOPS peak)", "x", 2.0,
                   compute[0].metrics["math_busy_cycles"] / compute[1].metrics["math_busy_cycles"], WHITEPAPER),
        Comparison(f"GEMV, one output feature (m = {big}, n = 1, k = {big}), the dense operand is the matrix "
                   "(published: none or a slow-down)", "x", 1.0, float(one_feature.speedup.max()), GEMV_MEASURED),
        Comparison(f"{gemv_b1}, the 2:4 weights are the matrix (published: none or a "
                   "slow-down; GAP: DRAM-bound both ways, the model gives the weights' footprint ratio 64/36; "
                   "see README)", "x", 1.0, float(batch1.speedup.max()), GEMV_MEASURED),
        Comparison(f"{gemv_b1}, simt family: 2:4 tensor-core GEMM (split-K, occupancy) over "
                   "the dense CUDA-core GEMV (dense_gemv, a warp per row: the dense libraries' batch-1 kernel) "
                   "(published: none or a slow-down; GAP, see README)", "x", 1.0,
                   simt.loc["dense CUDA-core GEMV (a warp per row)"] / simt.loc["2:4 tensor-core GEMM"], GEMV_MEASURED),
        Comparison(f"{gemv_b1}, simt family: 2:4 over the dense tensor-core GEMM "
                   "(published: none or a slow-down; GAP, see README)", "x", 1.0,
                   simt.loc["dense tensor-core GEMM"] / simt.loc["2:4 tensor-core GEMM"], GEMV_MEASURED),
        Comparison(f"{gemv_b1}, DIAGNOSTIC: loads_in_flight: stages (CUTLASS's buffer ring, "
                   "at most stages - 1 loads ahead of the tensor cores; the shipped config: unbounded) (published: none "
                   "or a slow-down; GAP, see README)", "x", 1.0,
                   gemv["ring_dense"].cycles / gemv["ring_sparse"].cycles, GEMV_MEASURED),
        Comparison("BERT-base end to end (published 1.1-1.3x, middle shown; here: encoder GEMMs only, seq 128, "
                   "batch 1)", "x", 1.2, bert, MEASURED),
    )


def _readme(sizes: tuple[int, ...], arch: ArchSpec, frame: pd.DataFrame, sparse_big: LayerResult,
            gemv: dict[str, pd.Series], sustained: pd.DataFrame) -> str:
    big = max(sizes)
    simt, sparse, cuda, dense = gemv["simt"], gemv["sparse"], gemv["cuda"], gemv["dense"]
    ring_dense, ring_sparse = gemv["ring_dense"], gemv["ring_sparse"]
    smem_need = (arch.tensor_core.shared_memory_bandwidth * sparse_big.metrics["shared_memory_busy_cycles"]
                 / sparse_big.metrics["math_busy_cycles"])
    batch1 = frame[(frame.m == 1) & (frame.n == big) & (frame.k == big)]
    return readme(
        __name__, sizes=", ".join(map(str, sizes)), arch_name=arch.name, big=big, smem_need=f"{smem_need:.0f}",
        large_range=_range(_large(frame).speedup), batch1_range=_range(batch1.speedup),
        sustained_text="; ".join(f"{r.path} at {r.fraction:.0%} gives {r.speedup:.2f}x"
                                 for r in sustained.itertuples() if r.fraction < 1.0),
        footprint_ratio=f"{FOOTPRINT_RATIO:.2f}", memory_latency=arch.tensor_core.memory_latency,
        cuda_cycles=f"{cuda.cycles:.0f}", dense_cycles=f"{dense.cycles:.0f}",
        simt_dense_cycles=f"{simt.loc['dense tensor-core GEMM']:.0f}",
        simt_ratio=f"{simt.loc['dense tensor-core GEMM'] / simt.loc['2:4 tensor-core GEMM']:.2f}",
        sparse_tile=sparse.tile, sparse_in_flight_kb=f"{sparse.in_flight_per_sm / 1024:.0f}",
        sparse_busy_sms=f"{sparse.busy_sms:.0f}", sparse_covers=f"{sparse.covers_latency:.0f}",
        cuda_in_flight_kb=f"{cuda.in_flight_per_sm / 1024:.0f}", cuda_covers=f"{cuda.covers_latency:.0f}",
        dense_covers=f"{dense.covers_latency:.0f}", ring_sparse_cycles=f"{ring_sparse.cycles:.0f}",
        ring_dense_tile=ring_dense.tile, ring_dense_cycles=f"{ring_dense.cycles:.0f}",
        ring_ratio=f"{ring_dense.cycles / ring_sparse.cycles:.2f}", sources="; ".join(GEMV_SOURCES))


@study("ampere-2to4", "2:4 sparse tensor core: speed-up over dense vs GEMM shape, and its limiter", cpu_s=4.6)
def ampere_2to4(sizes: tuple[int, ...] = SIZES, arch_name: str = ARCH) -> StudyOutput:
    frame = speedup_table(arch_name, sizes)
    arch = load_arch(arch_name)
    big = max(sizes)
    compute = gemm_run(arch, big, big, big, sparse=False), gemm_run(arch, big, big, big, sparse=True)
    table = batch1_gemv(arch_name, big, big)
    gemv = _gemv_kernels(table)
    sustained = sustained_bandwidth_sensitivity(arch_name)
    comparisons = (_band_comparisons(frame, warp_tile_sensitivity(arch_name), sustained)
                   + _gemv_comparisons(frame, big, compute, gemv, bert_layer_speedup(arch_name)))
    text = _readme(sizes, arch, frame, compute[1], gemv, sustained)
    return StudyOutput(frame, speedup_and_limiters(frame, PUBLISHED_LARGE_GEMM_SPEEDUP), text, comparisons,
                       tables={"gemv_batch1": table})
