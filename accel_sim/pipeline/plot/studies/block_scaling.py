"""Figure of the ``block-scaling`` study: error vs bits per value, and FFN GEMM speed-up over FP16."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def error_bits_cycles(frame: pd.DataFrame) -> Figure:
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
    axes[0].scatter(frame["bits_per_value"], frame["ffn_output_error"])
    for _, row in frame.iterrows():
        axes[0].annotate(row["format"], (row["bits_per_value"], row["ffn_output_error"]), fontsize=7)
    axes[0].set_xlabel("bits per value, scales included")
    axes[0].set_ylabel("relative error of the FFN GEMM output")
    axes[0].set_yscale("log")
    x = range(len(frame))
    axes[1].bar(x, frame["ffn_speedup_vs_fp16"], color="tab:green")
    axes[1].set_xticks(list(x), list(frame["format"]), rotation=45, ha="right", fontsize=8)
    axes[1].set_ylabel("FFN GEMM speed-up over FP16 (Blackwell-class tensor core)")
    fig.tight_layout()
    return fig
