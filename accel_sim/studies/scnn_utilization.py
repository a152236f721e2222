"""Per-layer multiplier utilisation and barrier idle time of SCNN (intra-PE fragmentation vs inter-PE imbalance)."""
from __future__ import annotations

import pandas as pd

from accel_sim.pipeline.plot.studies.scnn import utilization_per_layer
from accel_sim.pipeline.simulate import reused_layer_runs
from accel_sim.studies.template import readme
from accel_sim.studies.registry import StudyOutput, study
from accel_sim.studies.scnn_common import conv_network, run_designs

COLUMNS = ["network", "layer", "cycles", "multiplier_utilization", "intra_pe_utilization",
           "barrier_idle_fraction", "bank_conflict_cycles", "steps", "kc", "temporal_tiles"]


@study("scnn-utilization", "SCNN per-layer multiplier utilisation and PE idle time at barriers", cpu_s=5.6)
def scnn_utilization(networks: tuple[str, ...] = ("alexnet", "googlenet", "vgg16"),
                     max_layers: int | None = None) -> StudyOutput:
    frames = []
    with reused_layer_runs(shared=True):   # in reproduce all: scnn-networks' runs of these layers, read back
        for name in networks:
            frame = run_designs(conv_network(name, max_layers), ("scnn",))
            frame.insert(0, "network", name)
            frames.append(frame[COLUMNS])
    frame = pd.concat(frames, ignore_index=True)
    fig = utilization_per_layer(frame, networks)
    text = readme(__name__)
    return StudyOutput(frame, fig, text, ())
