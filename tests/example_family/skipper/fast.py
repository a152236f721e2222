"""Fast path: a closed form. The fetcher delivers one activation per cycle and the lanes need at
least one cycle per activation, so the lanes never wait after the first fetch: activation ``i``
starts at cycle ``1 + i * c`` (``c = ceil(n / lanes)``) and the layer ends at ``1 + t * c`` for
``t`` non-zero activations (the FIFO depth never matters: the fetcher is always ahead)."""
from __future__ import annotations

from accel_sim.foundations.errors import SimulationError
from accel_sim.models.skipper.counters import SkipperCounters
from accel_sim.models.skipper.plan import SkipperPlan


def fast(plan: SkipperPlan, max_cycles: int | None = None) -> SkipperCounters:
    total = int(plan.nonzeros_per_row.sum())
    cycles = 1 + total * plan.cycles_per_activation if total else 0
    if max_cycles is not None and cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {cycles} cycles exceed max_cycles={max_cycles}")
    n = plan.layer.gemm().n
    return SkipperCounters(cycles=cycles, activation_reads=total, weight_reads=total * n, macs_issued=total * n)
