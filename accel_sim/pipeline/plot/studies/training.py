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
    """Speed-up over one device vs devices, one line per set of techniques, one panel per network (per
    network and cluster where the frame has a ``cluster`` column)."""
    panel = frame["network"] if "cluster" not in frame else frame["network"] + " on " + frame["cluster"]
    networks = list(dict.fromkeys(panel))
    fig, axes = plt.subplots(1, len(networks), figsize=(6.5 * len(networks), 4.5), squeeze=False)
    for ax, network in zip(axes[0], networks):
        part = frame[panel == network]
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


def ratio_vs_scaling(frame: pd.DataFrame, published_speedup: float, published_ratio: float) -> Figure:
    """Each setting of ``frame`` as a point: speed-up over one device with the techniques (x) against the
    techniques' speed-up over none (y), at 64 devices, one marker per topology; the published pair and a
    +-20 % box around it."""
    fig, ax = plt.subplots(figsize=(7, 5))
    for (topology, rows), marker in zip(frame.groupby("topology", sort=False), "osD^v"):
        ax.scatter(rows["speedup_all_64"], rows["all_vs_none_64"], marker=marker, label=topology, alpha=0.7)
    ax.add_patch(plt.Rectangle((0.8 * published_speedup, 0.8 * published_ratio), 0.4 * published_speedup,
                               0.4 * published_ratio, fill=False, linestyle="--", color="grey",
                               label="published +-20 %"))
    ax.plot([published_speedup], [published_ratio], marker="*", color="black", markersize=12, linestyle="",
            label="published")
    ax.set_xlabel("speed-up over one device at 64 devices, all techniques")
    ax.set_ylabel("all techniques vs none at 64 devices")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
