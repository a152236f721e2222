"""The vector unit behind the family contract (attached to every arch: it is never ``family:``), and one
vector layer on an arch's vector unit: plan, count (fast or reference), account.

In ``overlapped`` mode the layer runs while the matrix unit computes the next matrix layer, on
the output of the one before: :func:`accel_sim.pipeline.simulate.simulate` passes the cycles of the
most recent matrix layer not yet used to hide vector work (``budget``), and the layer's
result shows only the cycles beyond it. ``serial`` mode ignores the budget.
"""
from __future__ import annotations

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.contract import Family, Hook, Section
from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.models.vector_unit.accounting import account
from accel_sim.models.vector_unit.fast import fast
from accel_sim.models.vector_unit.plan import plan
from accel_sim.models.vector_unit.spec import VectorUnitSpec
from accel_sim.foundations.workload.layer import VectorLayer

# Imported on first call (Hook): SimPy and the shared blocks only when a reference runs.
reference_count = Hook("accel_sim.models.vector_unit.reference", "reference")


def vector_layer_result(spec: VectorUnitSpec, layer: VectorLayer, reference: bool = False,
                        max_cycles: int | None = None, budget: int = 0) -> LayerResult:
    work = plan(spec, layer)
    counters = (reference_count if reference else fast)(work, max_cycles)
    hidden = min(budget, counters.busy_cycles) if spec.overlap == "overlapped" else 0
    return account(work, counters, hidden)


def _plan(arch: ArchBase, layer: VectorLayer):
    return plan(arch.section("vector_unit"), layer)


FAMILY = Family(
    name="vector_unit", plan=_plan, fast=fast, reference=reference_count, account=account,
    section=Section(VectorUnitSpec, "Vector unit of every family: softmax, norms, activations, rotary embedding, "
                    "residual additions (workload layers of type vector).", attached=True))
