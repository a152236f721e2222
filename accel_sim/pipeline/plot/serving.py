"""The figure of a serving run (``accel-sim serve``): KV-cache use and running sequences over time, and the
distributions of time to first token and time per output token. Takes the run's frames, returns a figure."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def serving_figure(requests: pd.DataFrame, iterations: pd.DataFrame, title: str) -> Figure:
    figure, (over_time, ttft, tpot) = plt.subplots(1, 3, figsize=(15, 4.2))
    over_time.plot(iterations.start_s, 100 * iterations.kv_share, lw=0.8, label="KV cache used (%)")
    over_time.set_xlabel("time (s)")
    over_time.set_ylabel("KV cache used (% of capacity)")
    running = over_time.twinx()
    running.plot(iterations.start_s, iterations.running_sequences, lw=0.6, color="tab:orange", alpha=0.7)
    running.set_ylabel("running sequences", color="tab:orange")
    for axis, column, label in ((ttft, "ttft_s", "time to first token (s)"), (tpot, "tpot_s", "time per output token (ms)")):
        values = np.sort(requests[column].dropna().to_numpy()) * (1e3 if column == "tpot_s" else 1)
        axis.plot(values, np.arange(1, len(values) + 1) / max(len(values), 1))
        axis.set_xlabel(label)
        axis.set_ylabel("share of requests")
        axis.grid(alpha=0.3)
    figure.suptitle(title)
    figure.tight_layout()
    return figure
