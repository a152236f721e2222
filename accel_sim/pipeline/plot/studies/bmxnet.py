"""Figure of the ``bmxnet`` study: GEMM speed-up per CPU model and CIFAR-10 ResNet-18 size per precision plan."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def speedup_and_size(speed: pd.DataFrame, size: pd.DataFrame) -> Figure:
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    labels = [f"{c}\n{'+ binarize' if b else 'GEMM only'}" for c, b in zip(speed["cpu"], speed["with_binarize"])]
    axes[0].bar(range(len(speed)), speed["speedup"], color="tab:blue")
    axes[0].axhline(13, color="tab:red", linestyle="--", label="BMXNet ~13x (GEMM + binarize)")
    axes[0].axhline(32, color="grey", linestyle=":", label="32 (bits per fp32 word)")
    axes[0].set_xticks(range(len(speed)), labels, fontsize=8)
    axes[0].set_ylabel("binary / fp32 GEMM speed-up (M=64, N=12800, K=6400)")
    axes[0].legend()
    axes[1].bar(range(len(size)), size["mb"], color="tab:green")
    axes[1].set_xticks(range(len(size)), list(size["plan"]), fontsize=8)
    axes[1].set_yscale("log")
    axes[1].set_ylabel("ResNet-18 (CIFAR-10) weights (MB)")
    fig.tight_layout()
    return fig
