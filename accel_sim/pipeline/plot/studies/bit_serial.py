"""Figure of the ``bit-serial`` study: each design's speed-up over DaDianNao, with the published figures."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def speedup_per_design(frame: pd.DataFrame, comparisons) -> Figure:
    """Bars: simulated speed-up (all layers) per design; markers: published speed-ups over DaDianNao-like
    baselines (the comparison rows whose quantity names a speed-up), at their design's bar."""
    total = frame[frame.layer == "all"].reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    ax.bar(range(len(total)), total.speedup, color="C0", label="simulated (DNNsim preset, AlexNet conv2-5, set B)")
    ax.bar(range(len(total)), total.speedup_equal_peak.fillna(0), color="C0", alpha=0.25,
           label="simulated x peak ratio (equal peak bit-products)")
    labelled = False
    for c in comparisons:
        if "speed-up over" not in c.quantity or "over Stripes" in c.quantity:
            continue
        design = c.quantity.split("preset ")[1].split(" ")[0]
        x = list(total.design).index(design)
        ax.plot([x], [c.published], "k_", markersize=22, mew=2, label=None if labelled else "published")
        labelled = True
    ax.axhline(1.0, color="k", lw=0.5)
    ax.set_yscale("log")
    ax.set_xticks(range(len(total)), total.design, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("speed-up over DaDianNao (log)")
    ax.set_title("Bit-serial designs over DaDianNao: simulated vs published")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
