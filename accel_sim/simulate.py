"""The one entry point from specs to results: pick the family's model, run, cost."""
from __future__ import annotations

import importlib
from collections.abc import Callable

from accel_sim.arch.spec import FAMILIES, ArchSpec
from accel_sim.energy.cost import cost
from accel_sim.energy.table import load_energy_table
from accel_sim.results.layer_result import LayerResult
from accel_sim.results.run_result import RunResult
from accel_sim.workload.layer import Layer, Network

LayerModel = Callable[[ArchSpec, Layer], LayerResult]


def layer_model(family: str, reference: bool = False) -> LayerModel:
    """The per-layer model of a family: the fast path, or the per-event reference.

    Every family has a module ``accel_sim/<family>/model.py`` with ``simulate_layer(arch, layer)``
    and ``simulate_layer_reference(arch, layer)``, both returning a :class:`LayerResult`.
    """
    if family not in FAMILIES:
        raise ValueError(f"no model for family {family!r}")
    model = importlib.import_module(f"accel_sim.{family}.model")
    return model.simulate_layer_reference if reference else model.simulate_layer


def simulate(arch: ArchSpec, network: Network, reference: bool = False) -> RunResult:
    """Simulate every layer of ``network`` on ``arch`` and apply the arch's energy table."""
    model = layer_model(arch.family, reference)
    table = load_energy_table(arch.energy_table)
    layers = tuple(model(arch, layer) for layer in network.layers)
    return RunResult(arch=arch, network=network, layers=layers,
                     energy=tuple(cost(r.actions, table) for r in layers))
