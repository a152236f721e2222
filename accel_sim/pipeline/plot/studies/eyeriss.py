"""Figure of the ``eyeriss`` study: per AlexNet CONV layer, the chip's measured figure and the model's."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

PANELS = (("time_s", "latency (ms)", 1e3), ("processing_time_s", "processing latency (ms)", 1e3),
          ("dram_bytes", "DRAM traffic (MB)", 1e-6), ("power_w", "chip power (mW)", 1e3))


def measured_vs_simulated(frame: pd.DataFrame) -> Figure:
    """``frame``: one row per (layer, quantity) with columns layer, quantity, measured, simulated."""
    fig, axes = plt.subplots(1, len(PANELS), figsize=(14, 3.8))
    for ax, (quantity, label, scale) in zip(axes, PANELS):
        rows = frame[frame.quantity == quantity]
        x = range(len(rows))
        ax.bar([i - 0.2 for i in x], rows.measured * scale, width=0.4, label="chip (JSSC 2017)")
        ax.bar([i + 0.2 for i in x], rows.simulated * scale, width=0.4, label="model")
        ax.set_xticks(list(x), rows.layer, fontsize=8)
        ax.set_title(label, fontsize=9)
    axes[0].legend(fontsize=8)
    fig.suptitle("Eyeriss v1, AlexNet CONV1-5, batch 4: measured chip vs model")
    fig.tight_layout()
    return fig
