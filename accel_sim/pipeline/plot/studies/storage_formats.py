"""Figure of the ``storage-formats`` study: bits per element of every format against density."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


def bits_per_element(frame: pd.DataFrame) -> plt.Figure:
    """Top row: stored bits per dense element; bottom row: per non-zero (log scale), one column per width."""
    widths = sorted(frame.value_bits.unique())
    fig, axes = plt.subplots(2, len(widths), figsize=(5 * len(widths), 8.5), squeeze=False)
    for column, bits in enumerate(widths):
        part = frame[frame.value_bits == bits]
        labels = list(part.format.unique())
        colours = plt.cm.tab20(np.linspace(0, 1, max(len(labels), 2)))
        for row, (metric, ylabel) in enumerate((("bits_per_element", "stored bits per dense element"),
                                                ("bits_per_nonzero", "stored bits per non-zero"))):
            ax = axes[row][column]
            for colour, (label, line) in zip(colours, part.groupby("format", sort=False)):
                ax.plot(line.density, line[metric], marker=".", label=label,
                        lw=2.2 if label == "dense" else 1.0, color="k" if label == "dense" else colour,
                        ls="--" if "8-bit index" in label else "-")
            ax.set_xlabel("weight density")
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
            if row == 0:
                ax.set_title(f"{bits}-bit values")
                ax.set_ylim(0, 2.2 * bits)
            else:
                ax.set_yscale("log")
    axes[0][-1].legend(fontsize=7, loc="upper left")
    network, layer = frame.network.iloc[0], frame.layer.iloc[0]
    fig.suptitle(f"Storage of {network} {layer} weights in every format (unstructured magnitude pruning)")
    fig.tight_layout()
    return fig
