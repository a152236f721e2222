"""Pure planning of one vector layer: rows over units, passes, per-vector stage times.

The unit works on vectors of ``lanes`` elements; a row of ``width`` elements is
``ceil(width / lanes)`` vectors (the last one partly idle). A reduction operator (softmax,
norms) gives each unit whole rows, spread as evenly as possible (the first ``rows % units``
units take one more); an element-wise operator has no rows to respect, so each unit takes an
even share of the elements as one stream. Per pass, a vector takes ``read_cycles`` at the SRAM
port (its reads and writes, padded to full lanes) and ``compute_cycles`` in the ALUs and the
SFU, one after the other; a pass that reduces its row then spends ``barrier_cycles`` (a tree
over the lanes, ``reduction_level_cycles`` per level, for each reduced scalar, then the
per-row special functions) before the next pass reads. A layer that ``launches`` a kernel first waits
the spec's ``kernel_launch_cycles`` (``launch_cycles``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from accel_sim.models.vector_unit.plan.ops import ELEMENTWISE, OPS, Pass
from accel_sim.models.vector_unit.spec import VectorUnitSpec
from accel_sim.foundations.workload.layer import VectorLayer


@dataclass(frozen=True)
class PassTiming:
    work: Pass
    read_cycles: int      # SRAM port cycles per vector (reads and writes of lanes elements)
    compute_cycles: int   # ALU + SFU cycles per vector
    barrier_cycles: int   # cycles after the pass's last vector (row reduction), 0 if none


@dataclass(frozen=True)
class VectorPlan:
    layer: VectorLayer
    spec: VectorUnitSpec
    unit_rows: tuple[tuple[int, int], ...]   # per unit: (rows, elements per row) it processes
    passes: tuple[PassTiming, ...]
    launch_cycles: int                       # the kernel's launch gap before the first read (0: no launch)

    @property
    def lanes(self) -> int:
        return self.spec.lanes


def pass_timing(spec: VectorUnitSpec, work: Pass) -> PassTiming:
    moved_bits = spec.lanes * (work.reads + work.writes) * spec.element_bits
    read = math.ceil(moved_bits / (8 * spec.sram_bandwidth))
    compute = work.adds + work.mults + math.ceil(spec.lanes * work.special / spec.special_per_cycle)
    levels = math.ceil(math.log2(spec.lanes)) if spec.lanes > 1 else 0
    barrier = (work.reduced * levels * spec.reduction_level_cycles
               + math.ceil(work.row_special / spec.special_per_cycle)) if work.reduced else 0
    return PassTiming(work, read, compute, barrier)


def even_shares(total: int, parts: int) -> list[int]:
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def plan(spec: VectorUnitSpec, layer: VectorLayer) -> VectorPlan:
    if layer.op in ELEMENTWISE:
        unit_rows = tuple((1 if share else 0, share) for share in even_shares(layer.elements, spec.units))
    else:
        unit_rows = tuple((rows, layer.width) for rows in even_shares(layer.rows, spec.units))
    launch = spec.kernel_launch_cycles if layer.launches else 0
    return VectorPlan(layer, spec, unit_rows, tuple(pass_timing(spec, work) for work in OPS[layer.op]), launch)
