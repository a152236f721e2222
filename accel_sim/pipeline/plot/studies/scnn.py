"""Figures of the SCNN studies (``scnn-networks``, ``scnn-density-sweep``, ``scnn-utilization``,
``scnn-pe-granularity``)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402



def gains_over_dcnn(gains: pd.DataFrame, designs: tuple[str, ...], labels: dict[str, str]) -> Figure:
    """Speed-up and energy reduction of each design over DCNN, per network (``scnn-networks``)."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    x = np.arange(len(gains.index))
    width = 0.8 / len(designs)
    for i, design in enumerate(designs):
        axes[0].bar(x + i * width, gains[f"speedup_{design}"], width, label=labels[design])
        axes[1].bar(x + i * width, gains[f"energy_gain_{design}"], width, label=labels[design])
    for ax, title in zip(axes, ("speed-up over DCNN", "energy reduction over DCNN")):
        ax.set_xticks(x + width * (len(designs) - 1) / 2, gains.index)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_title(title)
        ax.legend()
    fig.tight_layout()
    return fig


def density_sweep(pivot_c: pd.DataFrame, pivot_e: pd.DataFrame, designs: tuple[str, ...],
                  labels: dict[str, str]) -> Figure:
    """Speed-up and energy relative to DCNN against density (``scnn-density-sweep``)."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for design in designs:
        axes[0].plot(pivot_c.index, pivot_c["dcnn"] / pivot_c[design], "o-", label=labels[design])
        axes[1].plot(pivot_e.index, pivot_e[design] / pivot_e["dcnn"], "o-", label=labels[design])
    axes[0].set_ylabel("speed-up over DCNN")
    axes[1].set_ylabel("energy relative to DCNN")
    for ax in axes:
        ax.set_xlabel("weight = activation density")
        ax.invert_xaxis()
        ax.set_yscale("log")
        ax.legend()
    fig.tight_layout()
    return fig


def utilization_per_layer(frame: pd.DataFrame, networks: tuple[str, ...]) -> Figure:
    """Multiplier utilisation and barrier idle time per layer (``scnn-utilization``)."""
    fig, axes = plt.subplots(len(networks), 1, figsize=(11, 3 * len(networks)), squeeze=False)
    for ax, name in zip(axes[:, 0], networks):
        part = frame[frame.network == name]
        x = np.arange(len(part))
        ax.bar(x - 0.2, part["multiplier_utilization"], 0.4, label="multiplier utilisation")
        ax.bar(x + 0.2, part["barrier_idle_fraction"], 0.4, label="idle at barriers (fraction of PE-cycles)")
        ax.set_xticks(x, part["layer"], rotation=90, fontsize=6)
        ax.set_ylim(0, 1)
        ax.set_title(name)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def granularity(result: pd.DataFrame) -> Figure:
    """Cycles and utilisation per PE granularity (``scnn-pe-granularity``)."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    labels = [f"{r.pes} x {r.multipliers_per_pe}" for r in result.itertuples()]
    axes[0].bar(labels, result.cycles / result.cycles.iloc[0])
    axes[0].set_ylabel("cycles relative to 64 x 16")
    axes[1].bar(labels, result.intra_pe_utilization, label="intra-PE utilisation")
    axes[1].bar(labels, result.barrier_idle_fraction, alpha=0.6, label="idle at barriers")
    axes[1].legend()
    fig.tight_layout()
    return fig


def scatter_sweep(table: pd.DataFrame, paper_dense: float, paper_crossover: float) -> Figure:
    """SCNN's speed-up over DCNN against density, one line per scatter-network choice (``scnn-scatter``),
    with the paper's point at density 1.0 and its crossover density."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for choice, part in table.groupby("choice", sort=False):
        ax.plot(part.density, part.speedup, "o-", label=choice)
    ax.plot([1.0], [paper_dense], "k*", markersize=10, label="paper, density 1.0")
    ax.axvline(paper_crossover, color="k", linestyle=":", label="paper's crossover")
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xlabel("weight = activation density")
    ax.set_ylabel("SCNN speed-up over DCNN")
    ax.invert_xaxis()
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
