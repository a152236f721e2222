"""Figures of the ``training-memory`` and ``distributed-training`` studies."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def memory_by_schedule(frame: pd.DataFrame) -> Figure:
    """Peak memory per network and schedule (bars), at the study's batch."""
    networks = list(dict.fromkeys(frame["network"]))
    schedules = list(dict.fromkeys(frame["schedule"]))
    fig, ax = plt.subplots(figsize=(8, 4.2))
    width = 0.8 / len(schedules)
    for j, schedule in enumerate(schedules):
        rows = frame[frame["schedule"] == schedule].set_index("network").loc[networks]
        ax.bar([i + (j - (len(schedules) - 1) / 2) * width for i in range(len(networks))], rows["peak_gib"], width,
               label=schedule)
    ax.set_xticks(range(len(networks)), networks)
    ax.set_ylabel("peak training memory (GiB)")
    ax.legend()
    fig.tight_layout()
    return fig


def speedup_by_technique(frame: pd.DataFrame) -> Figure:
    """Speed-up over one device vs devices, one line per set of techniques, one panel per network."""
    networks = list(dict.fromkeys(frame["network"]))
    fig, axes = plt.subplots(1, len(networks), figsize=(6.5 * len(networks), 4.5), squeeze=False)
    for ax, network in zip(axes[0], networks):
        part = frame[frame["network"] == network]
        for label, rows in part.groupby("techniques", sort=False):
            ax.plot(rows["devices"], rows["speedup"], marker="o", label=label)
        top = part["devices"].max()
        ax.plot([1, top], [1, top], color="grey", linestyle=":", label="linear")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xlabel("devices")
        ax.set_ylabel("speed-up over one device")
        ax.set_title(network)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
