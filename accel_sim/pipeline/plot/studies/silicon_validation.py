"""Figure of the ``silicon-validation`` study: simulated against measured, every case that ran, log-log."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

BAND = 0.15   # the shaded band: the most common bar (each case's own tolerance decides 'within')


def predicted_vs_measured(frame: pd.DataFrame) -> Figure:
    """One point per simulated case (``measured``, ``simulated``), coloured by group, filled when within its
    tolerance; y = x and a +-15 % band. Each case is in its own unit (s, x, tokens/s), so the axes are too."""
    fig, ax = plt.subplots(figsize=(7, 6))
    ran = frame.dropna(subset=["simulated"])
    for color, (group, part) in zip(plt.cm.tab10.colors, ran.groupby("group", sort=True)):
        within = part["within"].astype(bool)
        ax.loglog(part.loc[within, "measured"], part.loc[within, "simulated"], "o", color=color,
                  label=f"{group} (within)", alpha=0.85)
        ax.loglog(part.loc[~within, "measured"], part.loc[~within, "simulated"], "o", mfc="none", color=color,
                  label=f"{group} (outside)", alpha=0.85)
    if len(ran):
        values = np.concatenate([ran["measured"].to_numpy(float), ran["simulated"].to_numpy(float)])
        line = np.geomspace(values.min() / 1.5, values.max() * 1.5, 50)
        ax.plot(line, line, "k-", lw=0.8, label="y = x")
        ax.fill_between(line, line * (1 - BAND), line * (1 + BAND), color="0.85", label=f"+-{100 * BAND:.0f} %")
    ax.set_xlabel("measured (case's unit: s, x or tokens/s)")
    ax.set_ylabel("simulated (same unit)")
    ax.set_title("accel_sim against measured hardware (filled: within the case's tolerance)")
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig
