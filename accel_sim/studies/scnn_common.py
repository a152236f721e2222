"""What the SCNN studies share: the paper's networks, designs and published figures, run into tidy frames
through the public API (`accel_sim.pipeline.simulate`)."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.pipeline.simulate import simulate_many
from accel_sim.foundations.workload.layer import Network
from accel_sim.foundations.workload.loader import load_workload

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
# Further energy figures of the paper (Sec. 6, Figs. 8, 9 and 12), read from a public section-by-section note on
# the paper (a GitHub note found with the project's search tool; the index does not name its repository; the
# note was written from the ISCA PDF): DCNN-opt improves energy over DCNN by 2.0x (SCNN by 2.3x; per layer
# 0.89x-4.7x); at density 1.0 SCNN "consumes 33% more energy" than DCNN; SCNN uses less energy than DCNN-opt
# below density ~0.6; at high density "IARAM is <1% of energy [...] while the weight FIFO is 6.7%".
PUBLISHED_DCNN_OPT_ENERGY_RATIO = 2.0
PUBLISHED_DENSE_ENERGY = 1.33   # SCNN energy / DCNN energy at density 1.0
PUBLISHED_OPT_ENERGY_CROSSOVER = 0.6
# Temporal tiling (same note, Sec. 6): 9 of the 72 layers (all VGGNet) do not fit on chip and are tiled through
# DRAM; the energy penalty of tiling is 5-62 % per layer, 18 % on average.
PUBLISHED_TILED_LAYERS = 9
PUBLISHED_TILING_PENALTY = 0.18
ENERGY_NOTES_SOURCE = ("Parashar et al., ISCA 2017, Sec. 6 / Figs. 8-9 (value read from a public section-by-section "
                       "note on the paper)")
# Density sweep (synthetic GoogLeNet, weight and activation density together), paper Sec. 6 / Fig. 9:
# at density 1.0 SCNN reaches 79 % of DCNN's performance; it becomes faster than DCNN below ~0.85 and
# uses less energy than DCNN below ~0.83 (same public summary as above).
PUBLISHED_DENSE_SPEEDUP = 0.79
PUBLISHED_PERF_CROSSOVER = 0.85
PUBLISHED_ENERGY_CROSSOVER = 0.83
SWEEP_SOURCE = "Parashar et al., ISCA 2017, Sec. 6 / Fig. 9 (value read from a public summary of the paper)"

# The ablation: each choice of arch_configs/scnn.yaml (the paper's statement or a stated assumption)
# flipped, one at a time, to an alternative of accel_sim/models/scnn/spec.py. (label, overrides of scnn:).
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
    ("scatter: serialise (no buffering; shipped: fifo, depth 4, Kim et al. 2022)", {"scatter": "serialise"}),
)

# The scatter-network choices the scnn-scatter study compares (networks.csv, results.csv) with the shipped
# one (arch_configs/scnn.yaml: fifo, depth 4): no buffering (a step waits for its busiest bank), a deeper FIFO
# and fifo_unbounded, the exact bound for the bank mapping. Kim, Park, Park (IEEE Access 10, 2022) describe
# FIFOs between an SCNN's multipliers and its crossbar buses; neither paper's readable text gives a depth.
SCATTER_ABLATION = (
    ("scatter: serialise (no buffering)", {"scatter": "serialise"}),
    ("scatter: fifo, 16 products per bank", {"scatter": "fifo", "scatter_fifo_depth": 16}),
    ("scatter: fifo_unbounded (bound)", {"scatter": "fifo_unbounded"}),
)
SCATTER_SOURCE = ("Kim, Park, Park, 'Optimization of Scatter Network Architectures and Bank Allocations for Sparse "
                  "CNN Accelerators', IEEE Access 10 (2022) 85864-85879, doi 10.1109/ACCESS.2022.3199010")

# The dense-density diagnostic of scnn-density-sweep: the two assumptions behind SCNN's speed at density 1.0
# (which weights share an F-vector, which bank an address maps to) flipped, alone and together. Never
# shipped: arch_configs/scnn.yaml keeps the paper's Fig. 7 order and the stated bank assumption.
DENSE_DIAGNOSTIC = (
    ("paper setting (arch_configs/scnn.yaml)", {}),
    ("weight_order: k_then_rs", {"weight_order": "k_then_rs"}),
    ("bank_mapping: channel_spread", {"bank_mapping": "channel_spread"}),
    ("weight_order k_then_rs + bank_mapping channel_spread", {"weight_order": "k_then_rs",
                                                              "bank_mapping": "channel_spread"}),
)
DENSE_DIAGNOSTIC_LAYERS = 12   # GoogLeNet's inception 3a and 3b (1x1, 3x3, 5x5 and pool projections)



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


def overrides_text(overrides: dict[str, object]) -> str:
    """A variant's ``scnn:`` overrides as one table cell (``key=value, ...``; empty: the config itself)."""
    return ", ".join(f"{k}={v}" for k, v in overrides.items())


def run_variants(network: Network, settings: tuple[tuple[str, dict], ...]) -> tuple[pd.DataFrame, list[pd.DataFrame]]:
    """DCNN's per-layer frame on ``network`` and SCNN's under each ``(label, overrides)`` of ``settings``
    (:func:`scnn_variant`), all run together (:func:`run_archs`)."""
    archs = {"dcnn": load_arch(DESIGN_CONFIGS["dcnn"])}
    archs.update({f"variant {i}": scnn_variant(overrides) for i, (_, overrides) in enumerate(settings)})
    frames = run_archs(network, archs)
    return frames["dcnn"], [frames[f"variant {i}"] for i in range(len(settings))]


def run_archs(network: Network, archs: dict[str, ArchSpec]) -> dict[str, pd.DataFrame]:
    """Per-layer frame of every arch on ``network`` (each what ``simulate(arch, network).layers_frame()``
    gives), keyed as ``archs``, run together by :func:`~accel_sim.pipeline.simulate.simulate_many`."""
    runs = simulate_many(tuple(archs.values()), network)
    return {label: run.layers_frame() for label, run in zip(archs, runs)}


def run_designs(network: Network, designs: tuple[str, ...]) -> pd.DataFrame:
    """Per-layer ``layer, design, cycles, energy_pj`` plus the model metrics, layer by layer
    (all designs of one layer together, so the layer's operands are generated once)."""
    return designs_frame(run_archs(network, {d: load_arch(DESIGN_CONFIGS[d]) for d in designs}))


def designs_frame(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """:func:`run_designs`' frame from :func:`run_archs`' frames of the designs (keyed by design name): layer
    after layer, every design's row (the designs' frames stacked, then their rows interleaved)."""
    stacked = []
    for design, frame in frames.items():
        frame = frame.reset_index(drop=True)
        frame.insert(0, "design", design)
        stacked.append(frame)
    layers, designs = len(stacked[0]), len(stacked)
    order = np.arange(layers * designs).reshape(designs, layers).T.ravel()   # (layer, design) rows in order
    return pd.concat(stacked, ignore_index=True).iloc[order].reset_index(drop=True)


def expected_busiest_bank(products: int, banks: int) -> float:
    """Expected load of the busiest of ``banks`` banks when ``products`` products go to independent, uniformly
    random banks (balls into bins, exact): P(max <= t) = n! / m^n [x^n] (sum_{j <= t} x^j / j!)^m. A step whose
    products have distinct random addresses takes this many cycles if a step waits for its busiest bank."""
    n, m = products, banks
    expected, below = 0.0, 0.0
    for t in range(1, n + 1):
        term = np.array([1 / math.factorial(j) for j in range(t + 1)] + [0.0] * (n - t))
        poly = np.zeros(n + 1)
        poly[0] = 1.0
        for _ in range(m):
            poly = np.convolve(poly, term)[: n + 1]
        at_most = poly[n] * math.factorial(n) / m ** n
        expected += t * (at_most - below)
        below = at_most
    return expected
