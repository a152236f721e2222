"""Figure of the ``digits-compression`` study: test accuracy after each compression step."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def accuracy_per_step(frame: pd.DataFrame) -> Figure:
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.bar(range(len(frame)), 100 * frame["test_accuracy"], color=[f"C{i}" for i in range(len(frame))])
    ax.set_xticks(range(len(frame)), [f"{s}\n{100 * d:.0f} %, {b} bit" for s, d, b in
                                      zip(frame["step"], frame["density"], frame["weight_bits"])], fontsize=7)
    ax.set_ylabel("test accuracy (%)")
    ax.set_ylim(0, 100)
    fig.tight_layout()
    return fig
