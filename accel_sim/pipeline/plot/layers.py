"""Figures from result frames. Takes DataFrames, returns matplotlib Figures; never simulates."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # reports are files; no display needed
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure


def layer_overview(layers: pd.DataFrame, title: str = "") -> Figure:
    """Cycles split into compute and stall, and energy by component, per layer."""
    fig, (ax_cycles, ax_energy) = plt.subplots(2, 1, figsize=(max(6.0, 0.35 * len(layers) + 2), 7), sharex=True)
    x = range(len(layers))
    ax_cycles.bar(x, layers["compute_cycles"], label="compute")
    ax_cycles.bar(x, layers["stall_cycles"], bottom=layers["compute_cycles"], label="memory stall")
    ax_cycles.set_ylabel("cycles")
    ax_cycles.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    parts = [c for c in layers.columns if c.startswith("energy_") and c != "energy_pj"]
    bottom = pd.Series(0.0, index=layers.index)
    for column in parts:
        ax_energy.bar(x, layers[column] / 1e6, bottom=bottom / 1e6, label=column[len("energy_"):-len("_pj")])
        bottom = bottom + layers[column]
    ax_energy.set_ylabel("energy (uJ)")
    ax_energy.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    ax_energy.set_xticks(list(x), layers["layer"], rotation=90, fontsize="small")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
