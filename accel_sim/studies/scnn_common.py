"""What the SCNN studies share: the paper's networks, designs and published figures, run into tidy frames
through the public API (`accel_sim.simulate`)."""
from __future__ import annotations

import dataclasses

import pandas as pd

from accel_sim.config.loader import load_arch
from accel_sim.simulate import simulate
from accel_sim.workload.layer import Network
from accel_sim.workload.loader import load_workload

# Paper's workloads: AlexNet and VGG-16 conv layers (workloads/alexnet.yaml, vgg16.yaml carry the
# brief's per-layer densities), GoogLeNet inception modules (workloads/scnn_googlenet.yaml).
NETWORKS = {"alexnet": "alexnet", "googlenet": "scnn_googlenet", "vgg16": "vgg16"}
DESIGN_CONFIGS = {"dcnn": "dcnn", "dcnn_opt": "dcnn_opt", "scnn_sparse_a": "scnn_sparse_a",
                  "scnn_sparse_w": "scnn_sparse_w", "scnn": "scnn"}
DESIGN_LABELS = {"dcnn": "DCNN", "dcnn_opt": "DCNN-opt", "scnn_sparse_a": "SCNN-SparseA",
                 "scnn_sparse_w": "SCNN-SparseW", "scnn": "SCNN"}
# Parashar et al., SCNN, ISCA 2017 (arXiv 1708.04485), abstract: over a comparably provisioned dense
# accelerator, SCNN improves performance by 2.7x and energy by 2.3x (on the pruned networks).
PUBLISHED_SPEEDUP = 2.7
PUBLISHED_ENERGY_RATIO = 2.3
PUBLISHED_SOURCE = "Parashar et al., ISCA 2017 (arXiv 1708.04485), abstract"


def conv_network(name: str, max_layers: int | None = None) -> Network:
    """A paper network's convolution layers (fully connected layers are not in the SCNN results)."""
    network = load_workload(NETWORKS.get(name, name))
    layers = tuple(layer for layer in network.layers if layer.kind == "conv")[:max_layers]
    return Network(name, layers, network.source, network.description)


def with_density(network: Network, density: float) -> Network:
    """The same shapes with weight and input-activation density both set to ``density``."""
    layers = tuple(dataclasses.replace(layer, weight_density=density, input_density=density)
                   for layer in network.layers)
    return Network(f"{network.name}@{density:g}", layers, network.source, network.description)


def run_designs(network: Network, designs: tuple[str, ...]) -> pd.DataFrame:
    """Per-layer ``layer, design, cycles, energy_pj`` plus the model metrics, layer by layer
    (all designs of one layer together, so the layer's operands are generated once)."""
    archs = {d: load_arch(DESIGN_CONFIGS[d]) for d in designs}
    frames = []
    for layer in network.layers:
        single = Network(network.name, (layer,))
        for design, arch in archs.items():
            frame = simulate(arch, single).layers_frame()
            frame.insert(0, "design", design)
            frames.append(frame)
    return pd.concat(frames, ignore_index=True)
