"""Figure of the ``ampere-2to4`` study: 2:4 speed-up against GEMM shape, and its limiters."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def speedup_and_limiters(frame: pd.DataFrame, published_band: tuple[float, float]) -> Figure:
    """2:4 speed-up against m for square n = k, and which path limits the 2:4 runs."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")
    square = frame[frame.n == frame.k]
    for size, part in square.groupby("n"):
        axes[0].semilogx(part.m, part.speedup, "o-", label=f"n = k = {size}")
    axes[0].axhline(2.0, color="k", ls=":", lw=0.8, label="math peak (2x)")
    axes[0].axhspan(*published_band, color="tab:gray", alpha=0.25, label="published, large GEMMs")
    axes[0].set_xlabel("m (batch x tokens: the dense operand's side)")
    axes[0].set_ylabel("2:4 speed-up over dense (cycles)")
    axes[0].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    counts = frame.groupby("bound").size().sort_values()
    axes[1].barh(counts.index, counts.values, color="tab:blue")
    axes[1].set_xlabel("GEMM shapes (of the grid) limited by")
    axes[1].set_title("what limits the 2:4 run", fontsize=9)
    return fig
