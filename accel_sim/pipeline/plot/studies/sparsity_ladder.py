"""Figure of the ``sparsity-ladder`` study: cycles, energy and DRAM bytes per support level."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def ladder_figure(frame: pd.DataFrame, title: str) -> Figure:
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    unstructured = frame[frame.pattern == "unstructured"]
    for ax, column, label in zip(axes.flat[:3], ("cycles", "energy_pj", "dram_read_bytes"),
                                 ("cycles", "energy (pJ)", "DRAM read bytes")):
        for level, part in unstructured.groupby("support", sort=False):
            ax.plot(part.density, part[column], "o-", label=level)
        ax.set_xlabel("weight density (unstructured)")
        ax.set_ylabel(label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.invert_xaxis()
        ax.grid(True, which="both", alpha=0.3)
    axes.flat[0].legend(title="sparsity support")
    ax = axes.flat[3]
    half = frame[frame.density == 0.5]
    patterns = list(dict.fromkeys(half.pattern))
    levels = list(dict.fromkeys(half.support))
    width = 0.8 / max(len(levels), 1)
    for i, level in enumerate(levels):
        part = half[half.support == level].set_index("pattern").reindex(patterns)
        ax.bar([p + i * width for p in range(len(patterns))], part.cycles, width, label=level)
    ax.set_xticks([p + 0.4 - width / 2 for p in range(len(patterns))], patterns)
    ax.set_ylabel("cycles at weight density 0.5")
    ax.set_title("granularity")
    fig.suptitle(title)
    fig.tight_layout()
    return fig
