"""Figure of the ``scalesim-validation`` study: our cycles against SCALE-Sim's, every layer."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def cycles_against_scalesim(frame: pd.DataFrame) -> Figure:
    fig, ax = plt.subplots(figsize=(6, 5))
    for mode, label in (("calc", "CALC (ideal DRAM)"), ("user", "USER (fixed DRAM bandwidth)")):
        part = frame[frame.bandwidth_mode == mode]
        ax.loglog(part["scalesim_cycles"], part["cycles"], "o", label=label, alpha=0.7)
    lo, hi = frame["scalesim_cycles"].min(), frame["scalesim_cycles"].max()
    ax.plot([lo, hi], [lo, hi], "k--", lw=0.8, label="equal")
    ax.set_xlabel("SCALE-Sim total cycles")
    ax.set_ylabel("accel_sim cycles")
    ax.legend()
    fig.tight_layout()
    return fig
