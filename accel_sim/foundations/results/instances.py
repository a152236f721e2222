"""One result for the instances of a batched GEMM that ran one after the other.

A :class:`~accel_sim.foundations.workload.layer.BatchedGemmLayer` is simulated as its GEMM instances in
sequence on the same hardware (:func:`accel_sim.pipeline.simulate.simulate_layer`). Its result is
their sum: cycles, MACs, bytes and every action count add (actions of the same component,
class, action and width are merged, so energy, which is linear in the counts, is the sum of
the instances' energies). The peak MAC rate is the hardware's, the same for every instance.

Model metrics are per instance (folds, mapping efficiency, ...): the batched result reports
their mean over the instances (equal to every instance's value when they agree) and adds
``instances``. Operand hashes become one hash over the instances' hashes, in order.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from types import MappingProxyType

from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult

_ADDITIVE = ("cycles", "compute_cycles", "stall_cycles", "macs_dense", "macs_issued", "dram_read_bytes",
             "dram_write_bytes", "sram_read_bytes", "sram_write_bytes")


def merged_actions(results: Sequence[LayerResult]) -> tuple[ActionCount, ...]:
    """Every action of ``results`` with the counts of identical kinds added, in first-seen order."""
    counts: dict[tuple, int] = {}
    for result in results:
        for a in result.actions:
            key = (a.component, a.component_class, a.action, a.bits, a.capacity_bytes)
            counts[key] = counts.get(key, 0) + a.count
    return tuple(ActionCount(component, component_class, action, count, bits, capacity)
                 for (component, component_class, action, bits, capacity), count in counts.items())


def sequential_result(name: str, results: Sequence[LayerResult]) -> LayerResult:
    """The result of ``results`` (one per instance, in order) run one after the other, named ``name``."""
    if not results:
        raise ValueError(f"{name}: no instance results to add")
    peaks = {r.peak_macs_per_cycle for r in results}
    if len(peaks) != 1:
        raise ValueError(f"{name}: instances report different peak MAC rates {sorted(peaks)}")
    metric_names = list(dict.fromkeys(key for r in results for key in r.metrics))
    metrics = {key: sum(float(r.metrics.get(key, 0.0)) for r in results) / len(results) for key in metric_names}
    metrics["instances"] = float(len(results))
    hash_names = list(dict.fromkeys(key for r in results for key in r.operand_hashes))
    hashes = {key: hashlib.sha256("".join(r.operand_hashes.get(key, "-") for r in results).encode()).hexdigest()[:16]
              for key in hash_names}
    totals = {field: sum(getattr(r, field) for r in results) for field in _ADDITIVE}
    return LayerResult(layer=name, peak_macs_per_cycle=peaks.pop(), actions=merged_actions(results),
                       metrics=MappingProxyType(metrics), operand_hashes=MappingProxyType(hashes), **totals)
