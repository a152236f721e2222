"""Figure of the ``deep-compression`` study: compression ratio per layer after each stage."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


def ratios_per_layer(frame: pd.DataFrame, published: dict) -> plt.Figure:
    networks = list(frame.network.unique())
    fig, axes = plt.subplots(1, len(networks), figsize=(4.2 * len(networks), 4.2), squeeze=False)
    for ax, name in zip(axes[0], networks):
        part = frame[frame.network == name]
        x = np.arange(len(part))
        ax.bar(x - 0.27, part.pruned_ratio, 0.27, label="pruned (32-bit values)")
        ax.bar(x, part.pruned_quantized_ratio, 0.27, label="+ weight sharing")
        ax.bar(x + 0.27, part.huffman_ratio, 0.27, label="+ Huffman")
        if name in published:
            ax.axhline(published[name]["huffman"], color="k", ls="--", lw=1, label="published total (P+Q+H)")
            ax.axhline(published[name]["pruned_quantized"], color="grey", ls=":", lw=1, label="published total (P+Q)")
        ax.set_xticks(x, part.layer, rotation=60, fontsize=7)
        ax.set_yscale("log")
        ax.set_title(name)
        ax.set_ylabel("compression ratio vs 32-bit dense")
        ax.grid(alpha=0.3, axis="y")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Deep Compression per layer: pruning -> weight sharing -> Huffman")
    fig.tight_layout()
    return fig
