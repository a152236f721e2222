"""Forward and backward time and energy of every layer of a network on one arch, simulated.

Each GEMM of :func:`~accel_sim.systems.training.backward.training_gemms` runs through the public path,
:func:`accel_sim.pipeline.simulate.simulate_layer`, on the arch's family (DLU, tensor core, systolic, any family
that runs dense GEMMs); its cycles become seconds at the arch's clock. Nothing is guessed from MAC counts.
"""
from __future__ import annotations

from collections.abc import Callable
import dataclasses
from dataclasses import dataclass

from accel_sim.foundations.contract import ShapeMemo
from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.pipeline.simulate import simulate_layer
from accel_sim.systems.training.backward import at_batch, training_gemms
from accel_sim.foundations.workload.layer import BatchedGemmLayer, Network


@dataclass(frozen=True)
class LayerTiming:
    """One layer's training step on one device (per device: ``batch`` samples)."""

    name: str
    weights: int                  # weight elements: the size of the layer's gradient
    forward_s: float
    input_error_s: float          # 0 for the first layer (no input error)
    weight_gradient_s: float
    forward_energy_pj: float
    backward_energy_pj: float
    macs: int                     # forward + backward MACs issued

    @property
    def backward_s(self) -> float:
        return self.input_error_s + self.weight_gradient_s


@dataclass(frozen=True)
class NetworkTiming:
    arch: str
    network: str
    batch: int
    layers: tuple[LayerTiming, ...]

    @property
    def compute_s(self) -> float:
        return sum(t.forward_s + t.backward_s for t in self.layers)

    @property
    def energy_pj(self) -> float:
        return sum(t.forward_energy_pj + t.backward_energy_pj for t in self.layers)

    @property
    def weights(self) -> int:
        return sum(t.weights for t in self.layers)


# timings of the (arch, network, batch) simulated in this process: a sweep over the cluster (devices,
# techniques, host, network) meets the same device many times; the values are frozen
_TIMINGS = ShapeMemo(capacity=256)


def network_timing(arch: ArchSpec, network: Network, batch: int,
                   on_layer: Callable[[str], None] | None = None) -> NetworkTiming:
    """Simulate each layer's forward, input-error and weight-gradient GEMMs at ``batch`` samples (a device
    simulated before in this process, without ``on_layer``: its timing then)."""
    if on_layer is not None:
        return _simulate_timing(arch, network, batch, on_layer)
    return _TIMINGS.get((arch, network, batch), lambda: _simulate_timing(arch, network, batch, None))


def _simulate_timing(arch: ArchSpec, network: Network, batch: int,
                     on_layer: Callable[[str], None] | None) -> NetworkTiming:
    table = load_energy_table(arch.energy_table)
    rows = []
    for index, layer in enumerate(network.layers):
        if isinstance(layer, BatchedGemmLayer):
            raise ValueError(f"{network.name}: layer {layer.name} is a batched GEMM; training timing takes "
                             "convolutions and fully connected layers")
        if on_layer is not None:
            on_layer(layer.name)
        seconds = {"forward": 0.0, "input_error": 0.0, "weight_gradient": 0.0}
        energy = {"forward": 0.0, "backward": 0.0}
        macs = 0
        for name, gemm in training_gemms(at_batch(layer, batch), needs_input_error=index > 0).passes():
            run = simulate_layer(arch, gemm, table)
            seconds[name] = run.result.cycles / arch.clock
            energy["forward" if name == "forward" else "backward"] += run.energy.total_pj
            macs += run.result.macs_issued
        rows.append(LayerTiming(layer.name, layer.weight_elements, seconds["forward"], seconds["input_error"],
                                seconds["weight_gradient"], energy["forward"], energy["backward"], macs))
    return NetworkTiming(arch.name, network.name, batch, tuple(rows))


def scaled_timing(timing: NetworkTiming, forward_s: float, backward_s: float) -> NetworkTiming:
    """``timing`` with its layers' forward times scaled to total ``forward_s`` and their backward times
    (input error and weight gradient alike) to total ``backward_s``: a measured whole-network time split
    over the layers in the simulated proportions. Energies and MACs stay the simulated ones."""
    forward = sum(t.forward_s for t in timing.layers)
    backward = sum(t.backward_s for t in timing.layers)
    if forward <= 0 or backward <= 0:
        raise ValueError("the simulated forward and backward times must be > 0 to split a measured time")
    f, b = forward_s / forward, backward_s / backward
    layers = tuple(dataclasses.replace(t, forward_s=t.forward_s * f, input_error_s=t.input_error_s * b,
                                       weight_gradient_s=t.weight_gradient_s * b) for t in timing.layers)
    return dataclasses.replace(timing, layers=layers)
