"""Shared set-up of the EIE studies: the shipped config, the nine benchmark layers, sweeps."""
from __future__ import annotations

from collections.abc import Iterator

from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.simulate import LayerRun, simulate_many
from accel_sim.foundations.workload.layer import Layer, Network
from accel_sim.foundations.workload.loader import load_workload

ARCH = "eie"
WORKLOAD = "eie_benchmarks"
EIE_PAPER = "Han et al., EIE: Efficient Inference Engine on Compressed Deep Neural Network, ISCA 2016"


def benchmark_network(layers: tuple[str, ...] | None = None, workload: str = WORKLOAD) -> Network:
    """The benchmark layers (all nine, or those named, in file order) as one network."""
    network = load_workload(workload)
    chosen = tuple(layer for layer in network.layers if layers is None or layer.name in layers)
    if layers is not None and len(chosen) != len(set(layers)):
        known = ", ".join(layer.name for layer in network.layers)
        raise ValueError(f"unknown layer in {layers}; {workload} has {known}")
    return Network(network.name, chosen, network.source, network.description)


def benchmark_layers(layers: tuple[str, ...] | None = None, workload: str = WORKLOAD) -> tuple[Layer, ...]:
    """The layers of :func:`benchmark_network`."""
    return benchmark_network(layers, workload).layers


def eie_arch(**overrides) -> ArchSpec:
    return load_arch(ARCH, {f"eie.{k}": v for k, v in overrides.items()})


def timing_sweep(field: str, values: tuple, layers: tuple[str, ...] | None = None) -> Iterator[tuple[Layer, object, LayerRun]]:
    """(layer, value, run with its energy) for every benchmark layer and every value of one ``eie`` field,
    layer by layer (:func:`~accel_sim.pipeline.simulate.simulate_many`: a field that does not change what
    is stored, such as the FIFO depth or the SRAM width, leaves each layer encoded once for all values)."""
    network = benchmark_network(layers)
    runs = simulate_many(tuple(eie_arch(**{field: value}) for value in values), network)
    for i, layer in enumerate(network.layers):
        for value, run in zip(values, runs):
            yield layer, value, LayerRun(run.layers[i], run.energy[i])
