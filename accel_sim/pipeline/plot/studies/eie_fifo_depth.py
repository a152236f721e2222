"""Figure of the ``eie-fifo-depth`` study: load-balance efficiency vs activation FIFO depth per layer."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def efficiency_vs_depth(frame: pd.DataFrame) -> Figure:
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, part in frame.groupby("layer", sort=False):
        ax.plot(part["fifo_depth"], part["load_efficiency"], "o-", label=name)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("activation FIFO depth (entries)")
    ax.set_ylabel("load-balance efficiency")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    return fig
