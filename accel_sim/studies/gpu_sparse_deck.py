"""The sparse-GPU kernels a lecture on sparse GPU kernels names beyond the CSR / Sputnik / merge / SparseRT-1x1
rows of ``gpu-sparse-kernels``, each run as a warp schedule of its real operand and compared with its own
baseline under a named condition: SparseRT on 3 x 3 convolutions (``sparsert_conv``, on the V100 of its paper),
CSB SpMM with load balancing over block rows (``csb_spmm``), Sputnik's reverse-offset memory alignment, and
merge-based SpMV against a warp-per-row CSR SpMV (Merrill and Garland's baseline, cuSPARSE csrmv)."""
from __future__ import annotations

import pandas as pd

from accel_sim.foundations.workload import ConvLayer, GemmLayer
from accel_sim.studies.gpu_sparse_common import ARCH, geomean, heavy_tailed_layer, kernel_arch, run
from accel_sim.studies.registry import Comparison

V100 = "volta_v100_simt"
# ResNet-50's 3 x 3 convolutions at batch 1 (He et al. 2016: the middle convolution of each stage's bottleneck,
# stride 1, padding 1): (name, channels, spatial side)
CONV_SHAPES = (("res2_3x3", 64, 56), ("res3_3x3", 128, 28), ("res4_3x3", 256, 14), ("res5_3x3", 512, 7))
DECK_SPARSITY = 0.9        # assumption: SparseRT's abstract states no sparsity for its 3 x 3 figure
SPARSERT = "Wang, 'SparseRT: Accelerating Unstructured Sparsity on GPUs for Deep Learning Inference' (PACT 2020), abstract"
BULUC = "Buluc et al., 'Parallel sparse matrix-vector and matrix-transpose-vector multiplication using compressed sparse blocks' (SPAA 2009)"
MERRILL = "Merrill, Garland, 'Merge-Based Parallel Sparse Matrix-Vector Multiplication' (SC 2016)"
SPUTNIK = "Gale, Zaharia, Young, Elsen, 'Sparse GPU Kernels for Deep Learning' (SC 2020)"


def conv3x3(name: str, channels: int, side: int, density: float = 1.0) -> ConvLayer:
    return ConvLayer(name, in_h=side, in_w=side, in_channels=channels, out_channels=channels, kernel_h=3, kernel_w=3,
                     pad_top=1, pad_bottom=1, pad_left=1, pad_right=1, weight_density=density)


def sparsert_3x3_rows(conv_shapes=CONV_SHAPES) -> list[dict]:
    """Per ResNet-50 3 x 3 conv: SGEMM (implicit GEMM), SparseRT on im2col and without it, on the V100, warm L2."""
    dense, im2col, direct = (kernel_arch(k, V100, warm_l2=True) for k in ("dense_simt", "sparsert", "sparsert_conv"))
    rows = []
    for name, channels, side in conv_shapes:
        sparse = conv3x3(name, channels, side, round(1 - DECK_SPARSITY, 6))
        base = run(dense, conv3x3(name, channels, side)).cycles
        rows.append({"study": "sparsert_3x3", "matrix": name, "baseline_cycles": base,
                     "im2col_speedup": base / run(im2col, sparse).cycles,
                     "speedup": base / run(direct, sparse).cycles})
    return rows


def balance_rows(layers) -> list[dict]:
    """CSB SpMM balanced over block rows against one CTA per block row and against Sputnik-style, on the A100."""
    rows = []
    for layer in layers:
        balanced = run(kernel_arch("csb_spmm"), layer).cycles
        whole = run(kernel_arch("csb_spmm", csb_balance=False), layer).cycles
        rows.append({"study": "csb_balance", "matrix": layer.name, "baseline_cycles": whole, "speedup": whole / balanced,
                     "sputnik_over_csb": run(kernel_arch("sputnik"), layer).cycles / balanced})
    return rows


def spmv_rows(layers) -> list[dict]:
    """Merge-based SpMV against a warp per row (cuSPARSE csrmv's scheme), batch 1, on the A100."""
    return [{"study": "merge_spmv", "matrix": layer.name, "baseline_cycles": run(kernel_arch("csr_vector"), layer).cycles,
             "speedup": run(kernel_arch("csr_vector"), layer).cycles / run(kernel_arch("merge_spmv"), layer).cycles}
            for layer in layers]


def roma_rows(layers) -> list[dict]:
    """Sputnik-style SpMM with and without reverse-offset memory alignment on the V100 (volta_v100_simt: on)."""
    return [{"study": "roma", "matrix": layer.name, "baseline_cycles": run(kernel_arch(
        "sputnik", V100, reverse_offset_alignment=False), layer).cycles,
        "speedup": run(kernel_arch("sputnik", V100, reverse_offset_alignment=False), layer).cycles
        / run(kernel_arch("sputnik", V100), layer).cycles} for layer in layers]


def deck_table(folder, one_by_one, conv_shapes=CONV_SHAPES) -> pd.DataFrame:
    """Every row: ``one_by_one`` are the study's 1 x 1 / FC layers at 90 %; ``folder`` holds the power-law matrix."""
    heavy = heavy_tailed_layer(folder)
    spmv = (GemmLayer("fc_uniform_b1", m=1, k=4096, n=4096, weight_density=0.05), heavy_tailed_layer(folder, batch=1),
            GemmLayer("bert_ffn1_b1", m=1, k=768, n=3072, weight_density=0.1))
    rows = sparsert_3x3_rows(conv_shapes) + balance_rows([*one_by_one, heavy]) + spmv_rows(spmv) + roma_rows(one_by_one)
    return pd.DataFrame(rows)


def deck_comparisons(deck: pd.DataFrame) -> list[Comparison]:
    def part(study: str, heavy: bool | None = None) -> pd.DataFrame:
        rows = deck[deck.study == study]
        return rows if heavy is None else rows[rows.matrix.str.startswith("heavy") == heavy]

    conv = part("sparsert_3x3")
    cond = (f"ResNet-50 3x3 convs, batch 1, {DECK_SPARSITY:.0%} sparsity (assumption: none stated), volta_v100_simt, "
            "warm L2, over dense SGEMM on the conv's GEMM view")
    out = [Comparison(f"SparseRT 3x3 (the sparsert_conv kernel, no im2col) best speed-up, {cond} (published: over 5x on "
                      "ResNet-50 cases, a lower bound)", "x", 5.0, float(conv.speedup.max()), SPARSERT, tolerance=0.25),
           Comparison(f"SparseRT 3x3 (sparsert_conv) geometric-mean speed-up, {cond}", "x", None,
                      geomean(conv.speedup), "this model"),
           Comparison(f"SparseRT on the im2col matrix (the sparsert kernel) geometric-mean speed-up, {cond}", "x", None,
                      geomean(conv.im2col_speedup), "this model")]
    out += [Comparison(f"CSB SpMM balanced over block rows (csb_spmm, csb_balance) over one CTA per block row, {what}, "
                       f"{ARCH}, cold L2", "x", None, geomean(part("csb_balance", heavy).speedup), BULUC)
            for what, heavy in (("geometric mean over ResNet-50 1x1 convs and a BERT FFN at 90 %", False),
                                ("power-law rows (Pareto 1.1), batch 64", True))]
    out += [Comparison(f"balanced CSB SpMM (csb_spmm) speed-up over Sputnik-style SpMM (below 1: CSB slower), {what}, "
                       f"{ARCH}, cold L2", "x", None, geomean(part("csb_balance", heavy).sputnik_over_csb), SPUTNIK)
            for what, heavy in (("geometric mean over the 1x1 / FC layers at 90 %", False), ("power-law rows", True))]
    out += [Comparison(f"merge-based SpMV (merge_spmv) over CSR warp-per-row SpMV (csr_vector, cuSPARSE csrmv's scheme), "
                       f"{r.matrix}, batch 1, {ARCH}, cold L2", "x", None, float(r.speedup), MERRILL)
            for r in part("merge_spmv").itertuples()]
    out.append(Comparison("Sputnik-style SpMM with reverse-offset memory alignment over without, geometric mean over "
                          "the 1x1 / FC layers at 90 %, volta_v100_simt, cold L2", "x", None,
                          geomean(part("roma").speedup), SPUTNIK))
    return out
