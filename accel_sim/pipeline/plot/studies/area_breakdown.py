"""Figure of the ``area-breakdown`` study: per-component area, simulated vs published, per chip."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def breakdown_bars(frame: pd.DataFrame) -> Figure:
    """``frame``: one row per (chip, module) with ``published_mm2`` and ``simulated_mm2`` (per PE)."""
    chips = list(dict.fromkeys(frame["chip"]))
    fig, axes = plt.subplots(1, len(chips), figsize=(6 * len(chips), 4.2))
    for ax, chip in zip(np.atleast_1d(axes), chips):
        rows = frame[frame["chip"] == chip]
        x = np.arange(len(rows))
        ax.bar(x - 0.2, rows["published_mm2"].fillna(0), 0.4, label="published")
        ax.bar(x + 0.2, rows["simulated_mm2"].fillna(0), 0.4, label="area table")
        ax.set_xticks(x, rows["module"], rotation=30, ha="right")
        ax.set_ylabel("area per PE (mm2)")
        ax.set_title(chip)
        ax.legend()
    fig.tight_layout()
    return fig
