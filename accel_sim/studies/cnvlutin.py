"""Cnvlutin vs its DaDianNao-like dense baseline on the conv layers of AlexNet and VGG-16.

Both configs (``arch_configs/dadiannao.yaml``, ``arch_configs/cnvlutin.yaml``) run every
convolution of the shipped pruned workloads (``workloads/alexnet.yaml``, ``vgg16.yaml``)
at their per-layer activation densities (synthetic post-ReLU inputs with exactly that
fraction of non-zeros, zero padding included as zeros).
"""
from __future__ import annotations

import pandas as pd

from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.plot.studies.cnvlutin import speedup_per_layer
from accel_sim.pipeline.simulate import simulate
from accel_sim.studies.template import readme
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.foundations.workload.layer import Network
from accel_sim.foundations.workload.loader import load_workload

NETWORKS = ("alexnet", "vgg16")
PUBLISHED_MEAN = 1.37          # Albericio et al. ISCA 2016: average speed-up (brief ampere_cnvlutin_tools.md)
PUBLISHED_RANGE = (1.24, 1.55)
PUBLISHED_ZERO_FRACTION = 0.44  # conv inputs are about 44 % zeros on average (same source)
SOURCE = "Albericio et al., Cnvlutin: Ineffectual-Neuron-Free Deep Neural Network Computing, ISCA 2016"
COLUMNS = ["network", "layer", "input_density", "dadiannao_cycles", "cnvlutin_cycles", "speedup"]


def network_rows(name: str, max_layers: int | None = None) -> list[dict]:
    network = load_workload(name)
    convs = tuple(layer for layer in network.layers if layer.kind == "conv")[:max_layers]
    subset = Network(name, convs)
    base, cnv = simulate(load_arch("dadiannao"), subset), simulate(load_arch("cnvlutin"), subset)
    rows = [{"network": name, "layer": layer.name, "input_density": layer.input_density,
             "dadiannao_cycles": b.cycles, "cnvlutin_cycles": c.cycles, "speedup": b.cycles / c.cycles}
            for layer, b, c in zip(convs, base.layers, cnv.layers)]
    total_b, total_c = sum(r["dadiannao_cycles"] for r in rows), sum(r["cnvlutin_cycles"] for r in rows)
    weighted = sum(layer.input_density * layer.macs for layer in convs) / sum(layer.macs for layer in convs)
    rows.append({"network": name, "layer": "all conv", "input_density": weighted, "dadiannao_cycles": total_b,
                 "cnvlutin_cycles": total_c, "speedup": total_b / total_c})
    return rows


def readme_text(frame: pd.DataFrame) -> str:
    """The study's README; every number in it comes from ``frame``."""
    layers = frame[frame.layer != "all conv"].copy()
    totals = frame[frame.layer == "all conv"].set_index("network")
    later = layers[layers.input_density < 1]                    # the first layers read the dense image
    zeros = 1 - later.input_density
    sparsest, densest = later.loc[zeros.idxmax()], later.loc[zeros.idxmin()]
    lines = []
    for net in totals.index:
        net_layers = layers[layers.network == net]
        first = net_layers.iloc[0]
        share = first.dadiannao_cycles / totals.dadiannao_cycles[net]
        lines.append(f"  {net}: its first layer ({first.layer}, speed-up {first.speedup:.2f}x) is {share:.0%} of "
                     f"the baseline's conv cycles; the network's speed-up is {totals.speedup[net]:.2f}x.")
    per_net = "\n".join(lines)
    return readme(__name__, networks=" and ".join(totals.index), zeros_mean=f"{zeros.mean():.0%}",
                  published_zero_fraction=f"{PUBLISHED_ZERO_FRACTION:.0%}",
                  densest_zeros=f"{1 - densest.input_density:.0%}", densest_network=densest.network,
                  densest_layer=densest.layer, sparsest_zeros=f"{1 - sparsest.input_density:.0%}",
                  sparsest_network=sparsest.network, sparsest_layer=sparsest.layer,
                  later_speedup_min=f"{later.speedup.min():.2f}", later_speedup_max=f"{later.speedup.max():.2f}",
                  per_net=per_net)


@study("cnvlutin", "Cnvlutin vs DaDianNao-like baseline: conv speed-ups on AlexNet and VGG-16", cpu_s=2.2)
def cnvlutin_study(networks=NETWORKS, max_layers: int | None = None) -> StudyOutput:
    frame = pd.DataFrame([row for name in networks for row in network_rows(name, max_layers)], columns=COLUMNS)
    layers = frame[frame.layer != "all conv"]
    totals = frame[frame.layer == "all conv"].set_index("network")
    comparisons = [Comparison(f"{net} conv speed-up, all conv layers (published: mean over networks; range "
                              f"{PUBLISHED_RANGE[0]}-{PUBLISHED_RANGE[1]}x)", "x", PUBLISHED_MEAN,
                              float(totals.speedup[net]), SOURCE) for net in totals.index]
    comparisons.append(Comparison("mean conv speed-up over the simulated networks", "x", PUBLISHED_MEAN,
                                  float(totals.speedup.mean()), SOURCE))
    zero_fraction = 1 - layers.input_density[layers.input_density < 1].mean()
    comparisons.append(Comparison("zero fraction of conv inputs, first layers excluded (an input of the study: "
                                  "the workloads' densities)", "fraction", PUBLISHED_ZERO_FRACTION,
                                  float(zero_fraction), SOURCE))
    return StudyOutput(results=frame, figure=speedup_per_layer(frame, PUBLISHED_MEAN, PUBLISHED_RANGE),
                       readme=readme_text(frame), comparisons=tuple(comparisons))
