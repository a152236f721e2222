"""One vector layer on an arch's vector unit: plan, count (fast or reference), account.

In ``overlapped`` mode the layer runs while the matrix unit computes the next matrix layer, on
the output of the one before: :func:`accel_sim.simulate.simulate` passes the cycles of the
most recent matrix layer not yet used to hide vector work (``budget``), and the layer's
result shows only the cycles beyond it. ``serial`` mode ignores the budget.
"""
from __future__ import annotations

from accel_sim.results.layer_result import LayerResult
from accel_sim.vector_unit.accounting import account
from accel_sim.vector_unit.fast import fast
from accel_sim.vector_unit.plan import plan
from accel_sim.vector_unit.reference import reference as reference_count
from accel_sim.vector_unit.spec import VectorUnitSpec
from accel_sim.workload.layer import VectorLayer


def vector_layer_result(spec: VectorUnitSpec, layer: VectorLayer, reference: bool = False,
                        max_cycles: int | None = None, budget: int = 0) -> LayerResult:
    work = plan(spec, layer)
    counters = (reference_count if reference else fast)(work, max_cycles)
    hidden = min(budget, counters.busy_cycles) if spec.overlap == "overlapped" else 0
    return account(work, counters, hidden)
