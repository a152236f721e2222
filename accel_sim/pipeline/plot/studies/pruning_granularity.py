"""Figure of the ``pruning-granularity`` study: digits accuracy and speed-up per granularity."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def granularity_figure(frame: pd.DataFrame) -> Figure:
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8))
    pruned = frame[frame.granularity != "dense"]
    order = list(dict.fromkeys(pruned.granularity))
    x = np.arange(len(order))
    accuracy = pruned[pruned.kind == "accuracy"]
    position = {granularity: i for i, granularity in enumerate(order)}
    for i, ((net, density), part) in enumerate(accuracy.groupby(["subject", "density"], sort=False)):
        grains, nm = part[part.granularity != "2:4"], part[part.granularity == "2:4"]   # 2:4: a point of its own
        left.plot(grains.granularity.map(position), 100 * grains.test_accuracy, "o-" if net == "mlp" else "s--",
                  color=f"C{i}", label=f"digits {net}, {100 * density:g} %")
        left.plot(nm.granularity.map(position), 100 * nm.test_accuracy, "o" if net == "mlp" else "s", color=f"C{i}")
    left.set_xticks(x, order)
    left.set_ylabel("test accuracy after gradual pruning + fine-tuning (%)")
    left.set_title("accuracy (finer granularity to the left)")
    left.legend(fontsize=8)
    left.grid(True, alpha=0.3)
    speed = pruned[(pruned.kind == "speed") & (pruned.density == 0.5)]
    archs = list(dict.fromkeys(speed.subject))
    width = 0.8 / max(len(archs), 1)
    for i, arch in enumerate(archs):
        part = speed[speed.subject == arch].set_index("granularity").reindex(order)
        right.bar(x + (i - (len(archs) - 1) / 2) * width, part.speedup, width, label=arch)
    right.axhline(1.0, color="k", lw=0.8)
    right.set_xticks(x, order)
    right.set_ylabel("speed-up over dense (3 layers' cycles)")
    right.set_title("speed-up at 50 % density (2:4: its own 50 %), VGG-16 conv5")
    right.legend(fontsize=8)
    fig.tight_layout()
    return fig
