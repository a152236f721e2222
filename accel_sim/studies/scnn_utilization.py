"""Per-layer multiplier utilisation and barrier idle time of SCNN (intra-PE fragmentation vs inter-PE imbalance)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from accel_sim.studies.registry import StudyOutput, study
from accel_sim.studies.scnn_common import conv_network, run_designs

COLUMNS = ["network", "layer", "cycles", "multiplier_utilization", "intra_pe_utilization",
           "barrier_idle_fraction", "bank_conflict_cycles", "steps", "kc", "temporal_tiles"]


@study("scnn-utilization", "SCNN per-layer multiplier utilisation and PE idle time at barriers")
def scnn_utilization(networks: tuple[str, ...] = ("alexnet", "googlenet", "vgg16"),
                     max_layers: int | None = None) -> StudyOutput:
    frames = []
    for name in networks:
        frame = run_designs(conv_network(name, max_layers), ("scnn",))
        frame.insert(0, "network", name)
        frames.append(frame[COLUMNS])
    frame = pd.concat(frames, ignore_index=True)
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
    readme = (
        "SCNN (`arch_configs/scnn.yaml`) on the conv layers of pruned AlexNet, GoogLeNet's inception modules and "
        "VGG-16. Per layer: `multiplier_utilization` = multiplier products issued / (cycles x 1,024); "
        "`intra_pe_utilization` = products / (busy PE-cycles x 16), the loss inside a PE from partly filled F- and "
        "I-vectors and bank conflicts (`bank_conflict_cycles` = busy cycles beyond one per step); "
        "`barrier_idle_fraction` = PE-cycles spent waiting at the end-of-group barriers / (PEs x group cycles), "
        "the inter-PE imbalance of planar tiling. The paper (Fig. 10) separates the same two losses; it gives "
        "no numbers in the brief.")
    return StudyOutput(frame, fig, readme, ())
