"""What the SCNN studies share: the paper's networks, designs and published figures, run into tidy frames
through the public API (`accel_sim.simulate`)."""
from __future__ import annotations

import dataclasses

import pandas as pd

from accel_sim.config.loader import load_arch
from accel_sim.arch.spec import ArchSpec
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
# Per-network speed-ups over DCNN, paper Sec. 6 (text with Fig. 8): 2.37x AlexNet, 2.19x GoogLeNet,
# 3.52x VGGNet (mean 2.7x). The paper's body is not readable here; the values were taken from a public
# section-by-section summary of the paper and agree with the abstract's 2.7x mean ((2.37+2.19+3.52)/3).
PUBLISHED_NETWORK_SPEEDUP = {"alexnet": 2.37, "googlenet": 2.19, "vgg16": 3.52}
NETWORK_SOURCE = ("Parashar et al., ISCA 2017, Sec. 6 / Fig. 8 (value read from a public summary of the paper; "
                  "mean = the abstract's 2.7x)")
# Density sweep (synthetic GoogLeNet, weight and activation density together), paper Sec. 6 / Fig. 9:
# at density 1.0 SCNN reaches 79 % of DCNN's performance; it becomes faster than DCNN below ~0.85 and
# uses less energy than DCNN below ~0.83 (same public summary as above).
PUBLISHED_DENSE_SPEEDUP = 0.79
PUBLISHED_PERF_CROSSOVER = 0.85
PUBLISHED_ENERGY_CROSSOVER = 0.83
SWEEP_SOURCE = "Parashar et al., ISCA 2017, Sec. 6 / Fig. 9 (value read from a public summary of the paper)"

# The ablation: each choice of arch_configs/scnn.yaml (the paper's statement or a stated assumption)
# flipped, one at a time, to an alternative of accel_sim/scnn/spec.py. (label, overrides of scnn:).
ABLATION = (
    ("weight_order: k_then_rs (K fastest; paper Fig. 7: R x S then K)", {"weight_order": "k_then_rs"}),
    ("bank_mapping: channel_spread (assumption: linear)", {"bank_mapping": "channel_spread"}),
    ("bank_mapping: dnnsim_xor (assumption: linear)", {"bank_mapping": "dnnsim_xor"}),
    ("weight_order k_then_rs + bank_mapping channel_spread", {"weight_order": "k_then_rs",
                                                              "bank_mapping": "channel_spread"}),
    ("kc_rule: output_tile (assumption: max_fit)", {"kc_rule": "output_tile"}),
    ("barrier: group_channel (paper: per output-channel group)", {"barrier": "group_channel"}),
    ("partition: padded_blocks (paper: planar tiles)", {"partition": "padded_blocks"}),
    ("halo_charge: largest_region_serial (paper: exchange, double-buffered)",
     {"halo_charge": "largest_region_serial"}),
    ("out_of_plane: slot_only (assumption: banked)", {"out_of_plane": "slot_only"}),
    ("dram: ignored (paper: temporal tiling at 50 GB/s)", {"dram": "ignored"}),
)


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


def scnn_variant(overrides: dict[str, object]) -> ArchSpec:
    """``arch_configs/scnn.yaml`` with some ``scnn:`` choices replaced (validated as a config is)."""
    return load_arch(DESIGN_CONFIGS["scnn"], {f"scnn.{key}": value for key, value in overrides.items()})


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
