"""Figure of the ``cnvlutin`` study: speed-up per conv layer against the published mean and range."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def speedup_per_layer(frame: pd.DataFrame, published_mean: float, published_range: tuple[float, float]) -> Figure:
    layers = frame[frame.layer != "all conv"]
    totals = frame[frame.layer == "all conv"].set_index("network")
    fig, ax = plt.subplots(figsize=(11, 4.5))
    labels = [f"{net}\n{name}" for net, name in zip(layers.network, layers.layer)]
    networks = list(dict.fromkeys(layers.network))
    ax.bar(range(len(layers)), layers.speedup, color=[f"C{networks.index(n)}" for n in layers.network])
    ax.axhline(published_mean, color="k", ls="--", lw=1, label=f"published mean {published_mean}x")
    ax.axhspan(*published_range, color="grey", alpha=0.2, label="published range")
    ax.axhline(1.0, color="k", lw=0.5)
    ax.set_xticks(range(len(layers)), labels, fontsize=7, rotation=90)
    ax.set_ylabel("speed-up over DaDianNao-like baseline")
    ax.set_title("Cnvlutin per conv layer; all conv layers: "
                 + ", ".join(f"{net} {totals.speedup[net]:.2f}x" for net in totals.index))
    ax.legend()
    fig.tight_layout()
    return fig
