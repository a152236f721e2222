"""Per-operator breakdown of a run's vector work: one row per op (softmax, rmsnorm, ...).

Rows are plain dicts with unit-suffixed columns (``busy_cycles``: the vector unit's own time;
``cycles``: what the op added to the step after overlap; ``energy_pj``; SRAM bytes; special-
function results), written by ``accel-sim run`` as ``vector_ops.csv`` when the workload has
vector layers.
"""
from __future__ import annotations

from accel_sim.pipeline.run_result import RunResult
from accel_sim.foundations.workload.layer import VectorLayer


def vector_breakdown(run: RunResult) -> list[dict[str, object]]:
    ops = {layer.name: layer.op for layer in run.network.layers if isinstance(layer, VectorLayer)}
    rows: dict[str, dict[str, object]] = {}
    for result, energy in zip(run.layers, run.energy):
        op = ops.get(result.layer)
        if op is None:
            continue
        row = rows.setdefault(op, {"op": op, "layers": 0, "elements": 0, "busy_cycles": 0, "cycles": 0,
                                   "hidden_cycles": 0, "special_ops": 0, "sram_read_bytes": 0,
                                   "sram_write_bytes": 0, "energy_pj": 0.0})
        row["layers"] += 1
        row["elements"] += int(result.metrics["vector_elements"])
        row["busy_cycles"] += int(result.metrics["vector_busy_cycles"])
        row["hidden_cycles"] += int(result.metrics["vector_hidden_cycles"])
        row["special_ops"] += int(result.metrics["vector_special_ops"])
        row["cycles"] += result.cycles
        row["sram_read_bytes"] += result.sram_read_bytes
        row["sram_write_bytes"] += result.sram_write_bytes
        row["energy_pj"] += energy.total_pj
    return list(rows.values())
