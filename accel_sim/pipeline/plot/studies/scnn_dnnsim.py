"""Figure of the ``scnn-dnnsim`` study: accel_sim's cycles against DNNsim's, per layer."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def cycles_per_layer(frame: pd.DataFrame) -> Figure:
    fig, ax = plt.subplots(figsize=(9, 4.5))
    x = np.arange(len(frame))
    ax.bar(x - 0.2, frame.dnnsim_cycles, 0.4, label="DNNsim (4748a60)")
    ax.bar(x + 0.2, frame.simulated_cycles, 0.4, label="accel_sim --arch scnn_dnnsim")
    for i, err in enumerate(frame.relative_error):
        ax.annotate(f"{err:+.2%}", (x[i], max(frame.dnnsim_cycles.iloc[i], frame.simulated_cycles.iloc[i])),
                    ha="center", va="bottom", fontsize=8)
    ax.set_yscale("log")
    ax.set_xticks(x, frame.layer, fontsize=8, rotation=20)
    ax.set_ylabel("cycles")
    ax.set_title("SCNN with DNNsim's rules on DNNsim's tensors (bar: within 0.5 %)")
    ax.legend()
    fig.tight_layout()
    return fig
