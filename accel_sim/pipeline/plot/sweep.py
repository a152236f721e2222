"""Figures of sweep results: a Pareto plot and per-axis sensitivity. Frames in, Figures out."""
from __future__ import annotations

from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")  # reports are files; no display needed
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from accel_sim.pipeline.sweep.analysis import axis_means, pareto_front, sensitivity

LOG_SCALE_SPAN = 100.0   # use a log axis when max / min of a column exceeds this
MAX_TICK_LABELS = 10     # label every k-th axis value beyond this many


def _maybe_log(ax, which: str, values: pd.Series) -> None:
    positive = values[values > 0]
    if len(positive) and positive.max() / positive.min() > LOG_SCALE_SPAN:
        (ax.set_xscale if which == "x" else ax.set_yscale)("log")


def pareto_plot(frame: pd.DataFrame, x: str = "cycles", y: str = "energy_pj", color_by: str | None = None,
                title: str = "") -> Figure:
    """Every point in the (x, y) plane, coloured by ``color_by`` if given, the Pareto front joined."""
    fig, ax = plt.subplots(figsize=(7, 5))
    if color_by is None:
        ax.scatter(frame[x], frame[y], s=14, color="0.6", label="points")
    else:
        for value, group in frame.groupby(color_by, sort=True, observed=True):
            ax.scatter(group[x], group[y], s=14, label=f"{color_by}={value}")
    front = pareto_front(frame, (x, y))
    ax.step(front[x], front[y], where="post", color="black", linewidth=1.2)
    ax.scatter(front[x], front[y], s=40, facecolors="none", edgecolors="black", label=f"Pareto front ({len(front)})")
    _maybe_log(ax, "x", frame[x])
    _maybe_log(ax, "y", frame[y])
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.legend(fontsize="small")
    ax.set_title(title or f"{frame.attrs.get('name') or 'sweep'}: {y} vs {x}")
    fig.tight_layout()
    return fig


def sensitivity_plot(frame: pd.DataFrame, metric: str, axes: Sequence[str] | None = None,
                     title: str = "") -> Figure:
    """One panel per axis (largest effect first): mean of ``metric`` per axis value, min-max band."""
    table = sensitivity(frame, metric, axes)
    fig, panels = plt.subplots(1, len(table), figsize=(3.2 * len(table) + 1, 3.8), sharey=True, squeeze=False)
    for ax, row in zip(panels[0], table.itertuples()):
        means = axis_means(frame, metric, row.axis)
        positions = range(len(means))
        ax.fill_between(positions, means["min"], means["max"], alpha=0.2)
        ax.plot(positions, means["mean"], marker="o")
        step = -(-len(means) // MAX_TICK_LABELS)
        ax.set_xticks(list(positions)[::step], [str(v) for v in means[row.axis]][::step], rotation=60,
                      fontsize="small")
        ax.set_title(f"{row.axis}\nrange {row.relative_range:.0%} of mean", fontsize="small")
    _maybe_log(panels[0][0], "y", frame[metric])
    panels[0][0].set_ylabel(metric)
    fig.suptitle(title or f"{frame.attrs.get('name') or 'sweep'}: sensitivity of {metric}")
    fig.tight_layout()
    return fig
