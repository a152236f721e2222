"""When does unstructured sparsity pay on a GPU? Sparse kernels against dense GEMMs on an A100-like
SIMT model (``ampere_a100_simt``), and A x against A^T x for CSR and CSB.

``gpu-sparse-kernels``: ResNet-50's 1 x 1 bottleneck convolutions (batch 1) and a BERT-base FFN
layer (128 tokens), pruned to 50-98 % sparsity, each run by every kernel as a warp schedule of its
real operand: CSR row per warp (one column of B at a time, cuSPARSE-SpMV-like), Sputnik-style,
merge-based, SparseRT's generated code (values and indices as immediates, autotuned per layer), BSR 8 x 8 and 16 x 16 on tensor cores (weights block-pruned), 2:4 on tensor cores (50 %
only). Speed-ups are over the dense GEMM of the same unit (FP32 SGEMM for the CUDA-core kernels, FP16
tensor-core GEMM for the tensor-core ones), each with its fastest tile and split-K, and over the
dense tensor-core GEMM for everyone.

``csb-transpose``: SpMV with A and with A^T, CSR (scalar and vector: A^T x scatters with atomics)
against CSB (the same blocks serve both), on a DL-shaped matrix, a power-law one and its transpose.
"""
from __future__ import annotations

import math

import pandas as pd

from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.foundations.workload import ConvLayer, GemmLayer, NMSparsity
from accel_sim.foundations.workload.layer import OperandSource
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.plot.studies.gpu_sparse_kernels import speedup_vs_sparsity, transpose_bars
from accel_sim.studies.gpu_sparse_deck import CONV_SHAPES, deck_comparisons, deck_table
from accel_sim.studies.gpu_sparse_common import (ARCH, count, geomean, heavy_columns_layer, heavy_tailed_layer,
                                                 kernel_arch, lognormal_layer, longest_warp_cycles, run,
                                                 temporary_folder)
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme

# (name, output channels / features M, reduction K, spatial side or tokens): ResNet-50 1 x 1 convs at
# batch 1 (He et al. 2016: bottleneck reduce / expand of each stage), BERT-base FFN (768 -> 3072, 128 tokens)
SHAPES = (("res2_reduce", 64, 256, 56), ("res2_expand", 256, 64, 56), ("res3_reduce", 128, 512, 28),
          ("res3_expand", 512, 128, 28), ("res4_reduce", 256, 1024, 14), ("res4_expand", 1024, 256, 14),
          ("res5_reduce", 512, 2048, 7), ("res5_expand", 2048, 512, 7), ("bert_ffn", 3072, 768, None))
BERT_TOKENS = 128
SPARSITIES = (0.5, 0.7, 0.8, 0.9, 0.95, 0.98)
CUDA_CORE = ("csr_vector", "sputnik", "merge", "sparsert")
BLOCKS = (8, 16)
SPARSERT = "Wang, 'SparseRT: Accelerating Unstructured Sparsity on GPUs for Deep Learning Inference' (PACT 2020)"
MERGE_SOURCE = "Yang, Buluc, Owens, 'Design Principles for Sparse Matrix Multiplication on the GPU' (Euro-Par 2018)"
SPARSERT_TOLERANCE = 0.25            # the bar: within 25 % of the published geometric means
BALANCE_BAR = 1.3                    # the bar: balanced kernels this much faster on a power-law matrix
ROW_SPLIT = {"kernel": "sputnik", "row_swizzle": False, "tile_n": 32, "vector_width": 1}   # a row per warp
BALANCE_BAR_SOURCE = (f"accel_sim acceptance bar: a load-balanced kernel (merge or row swizzle) at least {BALANCE_BAR}x "
                      "faster than a row per warp on skewed rows")
TRANSPOSE_BAR_SOURCE = "accel_sim acceptance bar: CSR A^T x (scatter with atomics) at least 2x slower than A x"
SWIZZLE = {"kernel": "sputnik", "row_swizzle": True, "tile_n": 32, "vector_width": 1}


def shape_layer(name: str, m: int, k: int, side: int | None, density: float = 1.0, block: int | None = None,
                nm: NMSparsity | None = None):
    """The layer of one shape: a 1 x 1 conv (``side`` x ``side`` output) or an FC layer of BERT_TOKENS rows."""
    operands = OperandSource(weight_pattern="block", block=block) if block else OperandSource()
    if side is None:
        return GemmLayer(name, m=BERT_TOKENS, k=k, n=m, weight_density=density, weight_sparsity=nm, operands=operands)
    return ConvLayer(name, in_h=side, in_w=side, in_channels=k, out_channels=m, kernel_h=1, kernel_w=1,
                     weight_density=density, weight_sparsity=nm, operands=operands)


def _row(shape: str, m: int, k: int, own: dict, kernel: str, sparsity: float, result: LayerResult,
         baseline: str) -> dict:
    return {"shape": shape, "m": m, "k": k, "sparsity": sparsity, "kernel": kernel, "cycles": result.cycles,
            "dense_own_cycles": own[baseline], "dense_tc_cycles": own["tc"],
            "speedup_own": own[baseline] / result.cycles, "speedup_tc": own["tc"] / result.cycles,
            "ctas": count(result, "ctas"), "latency_cycles": count(result, "latency_bound_cycles"),
            "issue_cycles": count(result, "issue_bound_cycles"), "l1_cycles": count(result, "l1_bound_cycles"),
            "l2_port_cycles": count(result, "l2_port_bound_cycles"), "dram_cycles": count(result, "dram_cycles")}


def kernel_table(shapes=SHAPES, sparsities=SPARSITIES) -> pd.DataFrame:
    dense_simt, dense_tc = kernel_arch("dense_simt"), kernel_arch("dense_tensor_core")
    rows = []
    for name, m, k, side in shapes:
        own = {"simt": run(dense_simt, shape_layer(name, m, k, side)).cycles}
        _warm_twin("dense_simt", shape_layer(name, m, k, side))
        own["tc"] = run(dense_tc, shape_layer(name, m, k, side)).cycles
        for sparsity in sparsities:
            density = round(1.0 - sparsity, 6)
            for kernel in CUDA_CORE:
                result = run(kernel_arch(kernel), shape_layer(name, m, k, side, density))
                rows.append(_row(name, m, k, own, kernel, sparsity, result, "simt"))
                if kernel == WARM_KERNEL and sparsity in WARM_SPARSITIES:
                    _warm_twin(kernel, shape_layer(name, m, k, side, density))
            for b in BLOCKS:
                result = run(kernel_arch("bsr", block=b), shape_layer(name, m, k, side, density, b))
                rows.append(_row(name, m, k, own, f"bsr_{b}x{b}", sparsity, result, "tc"))
        result = run(kernel_arch("nm_tensor_core"), shape_layer(name, m, k, side, nm=NMSparsity(2, 4)))
        rows.append(_row(name, m, k, own, "2:4_tensor_core", 0.5, result, "tc"))
    return pd.DataFrame(rows)


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    rows = [{"kernel": kernel, "sparsity": sparsity, "speedup_own": geomean(part.speedup_own),
             "speedup_tc": geomean(part.speedup_tc)}
            for (kernel, sparsity), part in frame.groupby(["kernel", "sparsity"], sort=False)]
    return pd.DataFrame(rows)


def crossover(summary: pd.DataFrame, kernel: str, column: str) -> float:
    """The lowest sparsity of the grid at which the kernel's geometric-mean speed-up reaches 1 (NaN: never)."""
    part = summary[(summary.kernel == kernel) & (summary[column] >= 1.0)]
    return float(part.sparsity.min()) if len(part) else math.nan


WARM_KERNEL, WARM_SPARSITIES = "sparsert", (0.9, 0.95)   # warm_speedups' rows


def _warm_twin(kernel: str, layer) -> None:
    """Runs the layer's warm-L2 twin (a row of :func:`warm_speedups`, remembered by ``run``) right after its cold run,
    while the model still keeps the kernel's schedules (warm L2 changes only the DRAM traffic): the same results."""
    run(kernel_arch(kernel, warm_l2=True), layer)


def warm_speedups(shapes=SHAPES, sparsities=WARM_SPARSITIES, kernel: str = WARM_KERNEL) -> dict[float, float]:
    """``kernel`` over SGEMM, geometric mean over the shapes, with the activations L2-resident (warm L2:
    the condition of a benchmark loop or a chain of layers, SparseRT's measurement) for both."""
    dense, sparse = kernel_arch("dense_simt", warm_l2=True), kernel_arch(kernel, warm_l2=True)
    out = {}
    for sparsity in sparsities:
        out[sparsity] = geomean(run(dense, shape_layer(name, m, k, side)).cycles
                                / run(sparse, shape_layer(name, m, k, side, round(1 - sparsity, 6))).cycles
                                for name, m, k, side in shapes)
    return out


def balance_table(folder) -> pd.DataFrame:
    """Row per warp against the balanced kernels, on the DL shapes at 90 %, a power-law matrix and a log-normal one."""
    layers = [shape_layer(name, m, k, side, 0.1) for name, m, k, side in SHAPES]
    layers += [heavy_tailed_layer(folder), lognormal_layer(folder)]
    rows = []
    for layer in layers:
        base = run(kernel_arch(**ROW_SPLIT), layer).cycles
        longest = longest_warp_cycles(kernel_arch(**SWIZZLE), layer)       # the longest row's warp, in any order
        rows.append({"matrix": layer.name, "row_per_warp_cycles": base,
                     "swizzle_speedup": base / run(kernel_arch(**SWIZZLE), layer).cycles,
                     "merge_speedup": base / run(kernel_arch("merge"), layer).cycles,
                     "longest_warp_cycles": longest, "reorder_bound": base / longest})
    return pd.DataFrame(rows)


def dl_merge_speedup(balance: pd.DataFrame) -> float:
    """Merge over a row per warp, geometric mean over the DL shapes."""
    return geomean(balance[~balance.matrix.isin(("heavy_tailed", "lognormal_rows"))].merge_speedup)


def balance_comparisons(balance: pd.DataFrame) -> list[Comparison]:
    """The merge and row-swizzle rows: over a row per warp, on the DL shapes, the power-law and the log-normal matrix."""
    comparisons = []
    heavy = balance[balance.matrix == "heavy_tailed"].iloc[0]
    lognormal = balance[balance.matrix == "lognormal_rows"].iloc[0]
    merge_rows = balance[balance.matrix != "lognormal_rows"]             # the DL shapes and the power-law matrix
    comparisons += [
        Comparison("merge SpMM speed-up over row-split (a row per warp), peak over DL shapes at 90 % and a power-law "
                   "matrix (published: over cuSPARSE csrmm2 on SuiteSparse)", "x", 4.1, float(merge_rows.merge_speedup.max()),
                   MERGE_SOURCE),
        Comparison("merge SpMM speed-up over row-split, geometric mean over the same matrices (published: +31.7 % over "
                   "cuSPARSE csrmm2 on SuiteSparse)", "x", 1.317, geomean(merge_rows.merge_speedup), MERGE_SOURCE),
        Comparison(f"power-law rows: merge speed-up over a row per warp (accel_sim acceptance bar >= {BALANCE_BAR})", "x", None,
                   float(heavy.merge_speedup), BALANCE_BAR_SOURCE),
        Comparison(f"power-law rows: row swizzle speed-up over a row per warp (accel_sim acceptance bar >= {BALANCE_BAR})", "x", None,
                   float(heavy.swizzle_speedup), BALANCE_BAR_SOURCE),
        Comparison(f"extra matrix, log-normal rows (assumption: median 32, sigma 1, no row longer than about 830): merge "
                   f"speed-up over a row per warp (accel_sim acceptance bar >= {BALANCE_BAR})", "x", None,
                   float(lognormal.merge_speedup), BALANCE_BAR_SOURCE),
        Comparison(f"extra matrix, log-normal rows (same): row swizzle speed-up over a row per warp (accel_sim acceptance bar >= "
                   f"{BALANCE_BAR})", "x", None, float(lognormal.swizzle_speedup), BALANCE_BAR_SOURCE),
    ]
    comparisons += [
        Comparison(f"{label}: most any reordering of whole rows can give over a row per warp (its time over the longest "
                   "row's warp chain)", "x", None, float(row.reorder_bound), "this model")
        for label, row in (("power-law rows", heavy), ("extra matrix, log-normal rows", lognormal))]
    return comparisons


@study("gpu-sparse-kernels", "Sparse kernels on an A100-like SIMT GPU: speed-up over dense vs sparsity, crossovers", cpu_s=14.6)
def gpu_sparse_kernels(shapes=SHAPES, sparsities=SPARSITIES, conv_shapes=CONV_SHAPES) -> StudyOutput:
    frame = kernel_table(shapes, sparsities)
    summary = summary_table(frame)
    with temporary_folder() as folder:
        balance = balance_table(folder)
        deck = deck_table(folder, [shape_layer(name, m, k, side, 0.1) for name, m, k, side in shapes], conv_shapes)
    def at(kernel: str, s: float) -> float:
        part = summary[(summary.kernel == kernel) & (summary.sparsity == s)]
        return float(part.speedup_own.iloc[0]) if len(part) else math.nan

    # SparseRT's figures were measured in its harness's condition, a warm L2 (the README says why): the published
    # values sit on the warm rows; the cold rows (an isolated kernel) have no published counterpart.
    comparisons = [
        Comparison(f"SparseRT generated SpMM (kernel sparsert) speed-up over dense SGEMM at {s:.0%} sparsity, geometric "
                   "mean over ResNet-50 1x1 convs and a BERT FFN layer, cold L2 (an isolated kernel: not SparseRT's "
                   "measurement condition)", "x", None, at("sparsert", s), "this model")
        for s in (0.9, 0.95)]
    comparisons += [
        Comparison(f"Sputnik-style SpMM speed-up over dense SGEMM at {s:.0%} sparsity, same shapes (for comparison "
                   "with the sparsert rows: values and indices loaded and staged)", "x", None, at("sputnik", s),
                   "this model")
        for s in (0.9, 0.95)]
    warm = warm_speedups(shapes)
    comparisons += [
        Comparison(f"SparseRT generated SpMM (kernel sparsert) speed-up over dense SGEMM at {s:.0%} sparsity, same "
                   "shapes, warm L2 (activations resident, outputs kept: simt.warm_l2; SparseRT's measurement "
                   "condition)", "x", published, warm[s], SPARSERT, tolerance=SPARSERT_TOLERANCE)
        for s, published in ((0.9, 3.4), (0.95, 5.4))]
    comparisons += balance_comparisons(balance)
    for kernel in summary.kernel.unique():
        for column, what in (("speedup_own", "its same-unit dense GEMM"), ("speedup_tc", "dense FP16 tensor cores")):
            comparisons.append(Comparison(f"crossover: lowest sparsity of the grid where {kernel} beats {what} "
                                          "(geometric mean; NaN: never up to 98 %)", "fraction", None,
                                          crossover(summary, kernel, column), "this model"))
    comparisons += deck_comparisons(deck)
    text = readme(__name__, shapes=", ".join(s[0] for s in shapes),
                  sparsities=", ".join(f"{s:.0%}" for s in sparsities), dl_merge=f"{dl_merge_speedup(balance):.2f}")
    return StudyOutput(results=frame, figure=speedup_vs_sparsity(summary), readme=text,
                       comparisons=tuple(comparisons), tables={"summary": summary, "balance": balance, "deck": deck})


def bound_of(result: LayerResult) -> str:
    """Which of the kernel's bounds sets its cycles (the first of equals: SMs, L2, DRAM, atomic units)."""
    return next(name for name in ("sm", "l2", "dram", "atomic") if count(result, f"{name}_cycles") == result.cycles)


@study("csb-transpose", "A x vs A^T x on a GPU: CSR scatters with atomics, CSB serves both", cpu_s=3.9)
def csb_transpose(size: int = 4096, sparsity: float = 0.95) -> StudyOutput:
    rows = []
    turn = load_arch(ARCH).simt.l2_atomic_cycles     # the shipped atomic-unit turn per request
    with temporary_folder() as folder:
        matrices = (GemmLayer("fc_uniform", m=1, k=size, n=size, weight_density=round(1 - sparsity, 6)),
                    heavy_tailed_layer(folder, rows=size, columns=size, batch=1),
                    heavy_columns_layer(folder, rows=size, columns=size, batch=1))
        for layer in matrices:
            for kernel in ("csr_scalar", "csr_vector", "csb"):
                ax, atx = run(kernel_arch(kernel), layer), run(kernel_arch(kernel, transpose=True), layer)
                # what-if, not the shipped model: every atomic request holds its slice's unit twice as long
                slow = run(kernel_arch(kernel, transpose=True, l2_atomic_cycles=2 * turn), layer)
                rows.append({"matrix": layer.name, "kernel": kernel, "ax_cycles": ax.cycles, "atx_cycles": atx.cycles,
                             "ratio": atx.cycles / ax.cycles, "atx_atomics": count(atx, "atomics"),
                             "ax_sm_cycles": count(ax, "sm_cycles"), "atx_sm_cycles": count(atx, "sm_cycles"),
                             "ax_dram_cycles": count(ax, "dram_cycles"), "atx_l2_cycles": count(atx, "l2_cycles"),
                             "atx_atomic_cycles": count(atx, "atomic_cycles"), "atx_bound": bound_of(atx),
                             "what_if_two_turns_ratio": slow.cycles / ax.cycles})
    frame = pd.DataFrame(rows)
    comparisons = []
    for r in frame.itertuples():
        if r.kernel == "csb":
            comparisons.append(Comparison(f"{r.matrix}: CSB A^T x over A x (Buluc et al.: equally fast; accel_sim acceptance bar <= 1.2)",
                                          "x", 1.0, float(r.ratio), "Buluc et al., SPAA 2009", tolerance=0.2))
        else:
            comparisons.append(Comparison(f"{r.matrix}: {r.kernel} CSR A^T x over A x (accel_sim acceptance bar >= 2)", "x", None,
                                          float(r.ratio), TRANSPOSE_BAR_SOURCE))
    text = readme("csb_transpose", size=size, sparsity=f"{sparsity:.0%}")
    return StudyOutput(results=frame, figure=transpose_bars(frame), readme=text, comparisons=tuple(comparisons))
