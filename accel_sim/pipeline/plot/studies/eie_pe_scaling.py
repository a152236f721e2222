"""Figure of the ``eie-pe-scaling`` study: speed-up, padding fraction and load-balance efficiency vs PEs."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def scaling(frame: pd.DataFrame) -> Figure:
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    for name, part in frame.groupby("layer", sort=False):
        axes[0].plot(part["n_pes"], part["speedup"], "o-", label=name)
        axes[1].plot(part["n_pes"], part["padding_fraction"], "o-", label=name)
        axes[2].plot(part["n_pes"], part["load_efficiency"], "o-", label=name)
    lo, hi = frame["n_pes"].min(), frame["n_pes"].max()
    axes[0].plot([lo, hi], [1, hi / lo], "k--", lw=0.8, label="linear")
    for ax, label in zip(axes, ("speed-up", "padding fraction", "load-balance efficiency")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("PEs")
        ax.set_ylabel(label)
    axes[0].set_yscale("log", base=2)
    axes[0].legend(fontsize=6, ncol=2)
    fig.tight_layout()
    return fig
