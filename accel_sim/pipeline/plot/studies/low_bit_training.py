"""Figure of the ``low-bit-training`` study: digits test accuracy per method and network."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def accuracy_per_method(frame: pd.DataFrame) -> Figure:
    """Grouped bars: one group per method, one bar per (network, full-precision ends) variant."""
    variants = list(dict.fromkeys(zip(frame["network"], frame["full_precision_ends"])))
    labels = list(dict.fromkeys(frame["label"]))
    fig, ax = plt.subplots(figsize=(13, 4.5))
    width = 0.8 / len(variants)
    for i, (network, ends) in enumerate(variants):
        part = frame[(frame["network"] == network) & (frame["full_precision_ends"] == ends)].set_index("label")
        heights = [100 * part["test_accuracy"].get(label, np.nan) for label in labels]
        ax.bar(np.arange(len(labels)) + (i - (len(variants) - 1) / 2) * width, heights, width,
               label=f"{network}, {'float32' if ends else 'quantized'} first/last layers")
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("digits test accuracy (%)")
    ax.set_ylim(min(80.0, 10 * np.floor(10 * frame["test_accuracy"].min())), 100)
    ax.axhline(90, color="grey", lw=0.8, ls="--")
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title("low-bit training on scikit-learn's digits (same schedule and seed for every bar)")
    fig.tight_layout()
    return fig
