"""TRANSITIONAL adapter: the dlu model behind the family contract until it is split into
plan / fast / reference / accounting (issue 14). Not a contract implementation."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.dlu import model
from accel_sim.family.contract import Counters, Family
from accel_sim.results.layer_result import LayerResult


@dataclass(frozen=True)
class _WholeResult(Counters):
    result: LayerResult


def _count(reference: bool):
    def count(plan, max_cycles):
        arch, layer = plan
        run = model.simulate_layer_reference if reference else model.simulate_layer
        return _WholeResult(run(arch, layer))
    return count


FAMILY = Family(name="dlu", plan=lambda arch, layer: (arch, layer), fast=_count(False), reference=_count(True),
                account=lambda plan, counters: counters.result)
