"""Figure of the ``precision-energy`` study: energy per MAC, MACs per cycle and step energy per format."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def energy_and_throughput(frame: pd.DataFrame) -> Figure:
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    x = range(len(frame))
    width = 0.4
    axes[0].bar([i - width / 2 for i in x], frame["compute_pj_per_mac"], width, label="compute only")
    axes[0].bar([i + width / 2 for i in x], frame["total_pj_per_mac"], width, label="compute + memory")
    axes[0].set_yscale("log")
    axes[0].set_ylabel("pJ per MAC (1024x1024x256 GEMM)")
    axes[1].bar(x, frame["macs_per_cycle"], color="tab:green")
    axes[1].set_yscale("log")
    axes[1].set_ylabel("MACs per cycle achieved (same area)")
    axes[2].bar([i - width / 2 for i in x], frame["step_compute_energy_pj"] / 1e6, width, label="compute only")
    axes[2].bar([i + width / 2 for i in x], frame["step_total_energy_pj"] / 1e6, width, label="compute + memory")
    axes[2].set_yscale("log")
    axes[2].set_ylabel("uJ per training step (digits MLP, batch 64)")
    for ax in axes:
        ax.set_xticks(list(x), list(frame["format"]))
    axes[0].legend()
    axes[2].legend()
    fig.tight_layout()
    return fig
