"""Figure of the ``llm-inference`` study: decode / prefill tokens per second against batch, and
every point on the A100-like roofline."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def throughput_and_roofline(frame: pd.DataFrame, arch_name: str) -> Figure:
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2), layout="constrained")
    for ax, phase in zip(axes[:2], ("decode", "prefill")):
        part = frame[frame.phase == phase]
        for variant, rows in part.groupby("variant", sort=False):
            ax.loglog(rows.batch, rows.tokens_per_s, "o-", label=variant)
        ax.set_xlabel("batch (sequences)")
        ax.set_ylabel("tokens / s")
        ax.set_title(f"{phase} on {arch_name}", fontsize=9)
        ax.legend(fontsize=7)
    ax = axes[2]
    intensity = np.logspace(-1, 4, 200)
    peak = frame.attainable_tflops.max()
    slope = (frame.attainable_tflops / frame.intensity_flop_per_byte).max()  # DRAM TB/s: exact on the memory roof
    ax.loglog(intensity, np.minimum(peak, slope * intensity), "k-", lw=1, label="roofline (dense FP16 math, DRAM)")
    ax.loglog(intensity, np.minimum(2 * peak, slope * intensity), "k:", lw=1, label="2:4 math roof (2x)")
    for (phase, variant), rows in frame.groupby(["phase", "variant"], sort=False):
        ax.loglog(rows.intensity_flop_per_byte, rows.achieved_tflops, "o" if phase == "decode" else "s",
                  ms=4, label=f"{phase} {variant}")
    ax.set_xlabel("arithmetic intensity (FLOP / DRAM byte)")
    ax.set_ylabel("TFLOP/s (dense-equivalent: 2 x dense MACs / time)")
    ax.legend(fontsize=6, ncol=2)
    return fig
