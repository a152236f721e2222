"""Figure of the ``dfp-training`` study: accuracy per format, statistics histogram, point over training."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def training_formats(frame: pd.DataFrame, runs: dict, watched_tensor: str) -> Figure:
    """Accuracy per row; the statistics histogram and the point of ``watched_tensor`` in the 8-bit
    overflow-rule run (``runs["dfp8/overflow"]``)."""
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    labels = [f"{f}\n{r}" for f, r in zip(frame["format"], frame["rule"])]
    axes[0].bar(range(len(frame)), 100 * frame["test_accuracy"], color="tab:blue")
    axes[0].set_xticks(range(len(frame)), labels, fontsize=7)
    axes[0].set_ylabel("test accuracy (%)")
    axes[0].set_ylim(0, 100)
    axes[0].set_title("accuracy after the same schedule")
    watched = runs["dfp8/overflow"].unit
    snapshots = watched.snapshots[watched_tensor]
    picks = np.unique(np.linspace(0, len(snapshots) - 1, 4).astype(int))
    for index in picks:
        step, point, histogram = snapshots[index]
        positions = np.arange(histogram.size) - 1 - point       # bit position -> power of two of the value
        axes[1].step(positions, histogram / histogram.sum(), where="mid", label=f"step {step} (f={point})")
    bits = watched.bits
    axes[1].set_xlabel(f"leading-bit position as a power of two ({watched_tensor}, 8-bit DFP)")
    axes[1].set_ylabel("fraction of results")
    axes[1].set_xlim(-30, 5)
    axes[1].legend(fontsize=7)
    axes[1].set_title(f"statistics histogram of {watched_tensor}; top of the word = {bits - 2} - f")
    points = watched.tensors[watched_tensor].points
    axes[2].plot(points, lw=1)
    axes[2].set_xlabel("training step")
    axes[2].set_ylabel("fraction bits f (point position)")
    axes[2].set_title(f"point of {watched_tensor} chosen by the statistics hardware")
    fig.tight_layout()
    return fig
