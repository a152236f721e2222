"""Speed-up of 2:4 sparse over dense tensor cores vs GEMM shape, and what limits it.

Each GEMM (output m x n = input m x k @ weights k x n; the weights are the 2:4 operand)
runs on ``ampere_a100`` twice: dense and with 2:4 weights, each with its fastest kernel, as a
:class:`~accel_sim.workload.GemmLayer` counted through the family's hooks (plan and fast path:
a shape study needs no operand tensors). ``bound`` names the path that limits the 2:4 run
(:attr:`accel_sim.tensor_core.counters.TensorCoreCounters.bound`).
"""
from __future__ import annotations

import itertools

import pandas as pd

from accel_sim.arch.spec import ArchSpec
from accel_sim.config.loader import load_arch
from accel_sim.plot.studies.ampere_2to4 import speedup_and_limiters
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.tensor_core.counters import TensorCoreCounters
from accel_sim.tensor_core.family import FAMILY
from accel_sim.workload import GemmLayer, NMSparsity

ARCH = "ampere_a100"
SIZES = (1, 16, 256, 1024, 4096, 16384)   # m (batch x tokens), n and k: 1 .. 16k, batch 1 .. 256 included
COLUMNS = ["m", "n", "k", "dense_cycles", "sparse_cycles", "speedup", "bound"]
BRIEF = "brief ampere_cnvlutin_tools.md"
LARGE = 4096  # "large GEMM": every dimension at least this
PUBLISHED_LARGE_GEMM_SPEEDUP = (1.3, 1.4)  # measured 2:4 speed-up of large FP16 GEMMs (brief)
BAND_TOLERANCE = 0.05 / 1.35               # within the published band: +-0.05 around its middle
TWO_FOUR = NMSparsity(2, 4)   # the FP16 hardware pattern

# One BERT-base encoder layer at sequence length 128, batch 1 (workloads/bert_base_seq128.yaml):
# (m, k, n, count, weights?) - the attention GEMMs multiply two activations: they stay dense.
BERT_LAYER = ((128, 768, 768, 4, True), (128, 768, 3072, 1, True), (128, 3072, 768, 1, True),
              (128, 64, 128, 12, False), (128, 128, 64, 12, False))


def gemm_counters(arch: ArchSpec, m: int, n: int, k: int, sparse: bool) -> TensorCoreCounters:
    """One GEMM (output m x n = input m x k @ weights k x n), the weights 2:4 when ``sparse`` (and the
    arch has the sparse path), on its fastest kernel."""
    layer = GemmLayer("gemm", m=m, k=k, n=n, weight_sparsity=TWO_FOUR if sparse else None)
    return FAMILY.counters(arch, layer)[1]


def speedup_table(arch_name: str = ARCH, sizes: tuple[int, ...] = SIZES) -> pd.DataFrame:
    arch = load_arch(arch_name)
    rows = []
    for m, n, k in itertools.product(sizes, repeat=3):
        dense, sparse = gemm_counters(arch, m, n, k, sparse=False), gemm_counters(arch, m, n, k, sparse=True)
        rows.append({"m": m, "n": n, "k": k, "dense_cycles": dense.cycles, "sparse_cycles": sparse.cycles,
                     "speedup": dense.cycles / sparse.cycles, "bound": sparse.bound})
    return pd.DataFrame(rows, columns=COLUMNS)


def bert_layer_speedup(arch_name: str = ARCH) -> float:
    """GEMM-only speed-up of one BERT-base encoder layer with 2:4 weight GEMMs."""
    arch = load_arch(arch_name)
    dense = sparse = 0
    for m, k, n, count, weights in BERT_LAYER:
        d = gemm_counters(arch, m, n, k, sparse=False).cycles
        dense += count * d
        sparse += count * (gemm_counters(arch, m, n, k, sparse=True).cycles if weights else d)
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
        arch = load_arch(arch_name, {"tensor_core.kernels": [kernel]})
        runs = [(gemm_counters(arch, s, s, s, sparse=False), gemm_counters(arch, s, s, s, sparse=True)) for s in sizes]
        out[(warp_m, warp_n)] = pd.DataFrame([{"size": s, "speedup": d.cycles / sp.cycles, "dense_bound": d.bound,
                                               "sparse_bound": sp.bound} for s, (d, sp) in zip(sizes, runs)])
    return out


def _range(values: pd.Series) -> str:
    if not len(values):
        return "n/a"
    low, high = f"{values.min():.2f}", f"{values.max():.2f}"
    return f"{low}x" if low == high else f"{low}-{high}x"


@study("ampere-2to4", "2:4 sparse tensor core: speed-up over dense vs GEMM shape, and its limiter")
def ampere_2to4(sizes: tuple[int, ...] = SIZES, arch_name: str = ARCH) -> StudyOutput:
    frame = speedup_table(arch_name, sizes)
    arch = load_arch(arch_name)
    large = frame[(frame.m >= LARGE) & (frame.n >= LARGE) & (frame.k >= LARGE)]
    big = max(sizes)
    compute = gemm_counters(arch, big, big, big, sparse=False), gemm_counters(arch, big, big, big, sparse=True)
    batch1 = frame[(frame.m == 1) & (frame.n == big) & (frame.k == big)]
    one_feature = frame[(frame.n == 1) & (frame.m == big) & (frame.k == big)]
    bert = bert_layer_speedup(arch_name)
    large_bounds = ", ".join(sorted(set(large.bound))) or "n/a"
    sensitivity = warp_tile_sensitivity(arch_name)
    band = PUBLISHED_LARGE_GEMM_SPEEDUP
    middle = sum(band) / 2
    large_note = f"(published: measured {band[0]}-{band[1]}x, middle shown; limited here by {large_bounds})"
    warp_rows = tuple(
        Comparison(f"2:4 speed-up, square GEMMs {' and '.join(map(str, SENSITIVITY_SIZES))}, one 128x128x64 kernel "
                   f"with {wm}x{wn} warp tiles, mean {large_note}", "x", middle, float(part.speedup.mean()), BRIEF,
                   tolerance=BAND_TOLERANCE)
        for (wm, wn), part in sensitivity.items())
    comparisons = (
        Comparison(f"2:4 speed-up, large FP16 GEMMs (m, n, k >= {LARGE}), mean {large_note}", "x", middle,
                   float(large.speedup.mean()), BRIEF, tolerance=BAND_TOLERANCE),
    ) + warp_rows + (
        Comparison(f"math speed-up, {big}^3 GEMM (tensor-core busy cycles; 624 vs 312 TFLOPS peak)", "x", 2.0,
                   compute[0].math_busy_cycles / compute[1].math_busy_cycles, BRIEF),
        Comparison(f"GEMV, one output feature (m = {big}, n = 1, k = {big}), the dense operand is the matrix "
                   "(published: none or a slow-down)", "x", 1.0, float(one_feature.speedup.max()), BRIEF),
        Comparison(f"GEMV, batch 1 (m = 1, n = k = {big}), the 2:4 weights are the matrix (published: none or a "
                   "slow-down; GAP: the model streams 36/64 of the dense weight bits)", "x", 1.0,
                   float(batch1.speedup.max()), BRIEF),
        Comparison("BERT-base end to end (published 1.1-1.3x, middle shown; here: encoder GEMMs only, seq 128, "
                   "batch 1)", "x", 1.2, bert, BRIEF),
    )
    readme = f"""\
Every GEMM of the grid m, n, k in {{{', '.join(map(str, sizes))}}} (output m x n = input m x k @ weights
k x n; m is batch x tokens, so batch 1 .. 256 is inside the grid) runs on `{arch_name}` twice: dense, and
with 2:4 weights on the sparse tensor-core path. Each run takes the fastest of the config's kernels (tile
shapes), as cuBLAS / cuSPARSELt heuristics do. `bound` names the path limiting the 2:4 run: `math` (tensor
cores), `register_file`, `shared_memory` (cp.async fills + warps' ldmatrix reads), `l2`, `dram`, or `latency`
(pipeline fill, memory latency and epilogue take more than the slowest path).

Why the speed-up is below 2x in this model: the math per stage halves, but only the weights shrink (FP16
2:4 with metadata: 36 of 64 bits); the dense operand, the warps' shared-memory reads of it and the output do
not. A stage that is math-bound dense becomes shared-memory-bound sparse (large GEMMs); a GEMM whose
traffic is the dense operand (n small: few weights, many activations) gains nothing; tiny GEMMs are
latency-bound either way.

Tile shape: the rows "one 128x128x64 kernel with WxW warp tiles" run the same square GEMMs with a single
kernel whose warp tile is given: a warp holding fewer A rows re-reads its B slice from shared memory more
often per MAC, so the 2:4 run is shared-memory-bound sooner. With 64x32 warps (dense exactly math-bound)
the model lands in the published 1.3-1.4x; which tiles cuSPARSELt really uses is not in the brief.

Gaps, stated: (1) on large GEMMs the model gives {_range(large.speedup)}, above the measured 1.3-1.4x: it
treats both kernels as ideal pipelines (no instruction-issue limits, bank conflicts, power-limited clocks,
imperfect overlap), so it is an upper bound; a kernel with smaller warp tiles reads the dense operand more
often from shared memory and lands lower (the warp tile is a config field). (2) For a batch-1 GEMV whose
matrix is the 2:4 weights the model predicts up to the footprint ratio 64/36 = 1.78x from DRAM traffic
({_range(batch1.speedup)} here), where the brief reports no speed-up: the model has no explanation for that
from bandwidth or tile shape; it likely comes from the library (dense GEMV kernels vs tensor-core sparse
kernels at batch 1), not from the hardware paths modelled here. The register-file bandwidth, the per-SM L2
port and the memory latency are estimates (see `docs/config_reference.md`).
"""
    return StudyOutput(frame, speedup_and_limiters(frame, PUBLISHED_LARGE_GEMM_SPEEDUP), readme, comparisons)
