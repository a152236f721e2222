"""Figures of the SIMT GPU studies: speed-up over dense against sparsity per kernel, and A x vs A^T x."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def speedup_vs_sparsity(summary: pd.DataFrame) -> Figure:
    """Geometric-mean speed-up (over shapes) against sparsity, one line per kernel: left over the kernel's
    own-precision dense GEMM, right over the dense tensor-core GEMM."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained", sharey=True)
    for ax, column, title in ((axes[0], "speedup_own", "over the same-unit dense GEMM"),
                              (axes[1], "speedup_tc", "over dense FP16 tensor-core GEMM")):
        for kernel, part in summary.groupby("kernel", sort=False):
            ax.semilogy(100 * part.sparsity, part[column], "o-", label=kernel)
        ax.axhline(1.0, color="k", lw=0.8, ls=":")
        ax.set_xlabel("weight sparsity (%)")
        ax.set_title(title, fontsize=9)
    axes[0].set_ylabel("speed-up (geometric mean over layer shapes)")
    axes[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def transpose_bars(frame: pd.DataFrame) -> Figure:
    """Cycles of A x and A^T x per kernel and matrix."""
    fig, ax = plt.subplots(figsize=(8, 4), layout="constrained")
    labels = [f"{r.matrix}\n{r.kernel}" for r in frame.itertuples()]
    x = range(len(frame))
    ax.bar([i - 0.2 for i in x], frame.ax_cycles, width=0.4, label="A x")
    ax.bar([i + 0.2 for i in x], frame.atx_cycles, width=0.4, label="A^T x")
    ax.set_xticks(list(x), labels, fontsize=7)
    ax.set_ylabel("cycles")
    ax.legend()
    return fig
