"""Per-layer multiplier utilisation and barrier idle time of SCNN (intra-PE fragmentation vs inter-PE imbalance)."""
from __future__ import annotations

import pandas as pd

from accel_sim.pipeline.plot.studies.scnn import utilization_per_layer
from accel_sim.studies.registry import StudyOutput, study
from accel_sim.studies.scnn_common import conv_network, run_designs

COLUMNS = ["network", "layer", "cycles", "multiplier_utilization", "intra_pe_utilization",
           "barrier_idle_fraction", "bank_conflict_cycles", "steps", "kc", "temporal_tiles"]


@study("scnn-utilization", "SCNN per-layer multiplier utilisation and PE idle time at barriers", cpu_s=11)
def scnn_utilization(networks: tuple[str, ...] = ("alexnet", "googlenet", "vgg16"),
                     max_layers: int | None = None) -> StudyOutput:
    frames = []
    for name in networks:
        frame = run_designs(conv_network(name, max_layers), ("scnn",))
        frame.insert(0, "network", name)
        frames.append(frame[COLUMNS])
    frame = pd.concat(frames, ignore_index=True)
    fig = utilization_per_layer(frame, networks)
    readme = (
        "SCNN (`arch_configs/scnn.yaml`) on the conv layers of pruned AlexNet, GoogLeNet's inception modules and "
        "VGG-16. Per layer: `multiplier_utilization` = multiplier products issued / (cycles x 1,024); "
        "`intra_pe_utilization` = products / (busy PE-cycles x 16), the loss inside a PE from partly filled F- and "
        "I-vectors and bank conflicts (`bank_conflict_cycles` = busy cycles beyond one per step); "
        "`barrier_idle_fraction` = PE-cycles spent waiting at the end-of-group barriers / (PEs x group cycles), "
        "the inter-PE imbalance of planar tiling. The paper (Fig. 10) separates the same two losses; it gives "
        "no numbers in the brief.")
    return StudyOutput(frame, fig, readme, ())
