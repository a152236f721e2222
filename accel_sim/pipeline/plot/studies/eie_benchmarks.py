"""Figure of the ``eie-benchmarks`` study: time vs ideal time per layer, and each layer's PE
energy split by module."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def time_and_energy_split(frame: pd.DataFrame, energy: pd.DataFrame, modules: list[str]) -> Figure:
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    x = np.arange(len(frame))
    ax.bar(x - 0.2, frame["time_us"], 0.4, label="simulated")
    ax.bar(x + 0.2, frame["ideal_time_us"], 0.4, label="ideal (perfect balance, no padding)")
    ax.set_xticks(x, frame["layer"], rotation=45, ha="right")
    ax.set_ylabel("time per input vector (us)")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    shares = energy[modules].div(energy[modules].sum(axis=1), axis=0)
    bottom = np.zeros(len(frame))
    for module in modules:
        ax2.bar(x, shares[module], bottom=bottom, label=module)
        bottom += shares[module].to_numpy()
    ax2.set_xticks(x, frame["layer"], rotation=45, ha="right")
    ax2.set_ylabel("share of PE energy")
    ax2.legend(fontsize=7)
    fig.tight_layout()
    return fig
