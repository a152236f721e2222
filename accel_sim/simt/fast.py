"""Fast path: every CTA's time in closed form (vectorised over warps and CTAs), then the CTAs
dispatched in launch order to the first free CTA slot (``sms x ctas_per_sm`` slots, a heap over
slots, not over cycles); the L2 and DRAM bandwidths bound the whole kernel.

A CTA on an SM holding ``R = ctas_per_sm`` CTAs takes the largest of: its slowest warp's chain
(issue plus exposed latency of its groups; more resident warps hide latency only through the
other bounds), ``ceil(R x issue / schedulers)``, its L1 bytes at ``1/R`` of the L1 bandwidth and
its L2 sectors at ``1/R`` of the SM's L2 port (bytes rounded up to whole cycles as a
:class:`~accel_sim.hardware.dram_bus.DramBus` does)."""
from __future__ import annotations

import heapq

import numpy as np

from accel_sim.errors import SimulationError
from accel_sim.simt.counters import SimtCounters
from accel_sim.simt.plan import Candidate, SimtPlan

BITS_PER_BYTE = 8


def _bus_cycles(bits: np.ndarray, bytes_per_cycle: float) -> np.ndarray:
    return np.ceil(np.asarray(bits, dtype=np.float64) / BITS_PER_BYTE / bytes_per_cycle).astype(np.int64)


def cta_bounds(plan: SimtPlan, c: Candidate) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per CTA: (chain, issue, L1, L2 port) cycles."""
    s, m, r = c.schedule, plan.machine, c.ctas_per_sm
    warp_chain = np.bincount(s.group_warp, weights=s.group_issue + s.group_latency, minlength=s.warps)
    warp_issue = np.bincount(s.group_warp, weights=s.group_issue, minlength=s.warps)
    chain = np.zeros(s.ctas, dtype=np.int64)
    np.maximum.at(chain, s.warp_cta, warp_chain.round().astype(np.int64))
    issue_sum = np.bincount(s.warp_cta, weights=warp_issue, minlength=s.ctas).round().astype(np.int64)
    issue = -(-r * issue_sum // m.schedulers)
    l1 = _bus_cycles(s.cta_l1_bytes * BITS_PER_BYTE, m.l1_bandwidth / r)
    l2 = _bus_cycles(s.cta_l2_sectors * m.sector * BITS_PER_BYTE, m.l2_port_bandwidth / r)
    return chain, issue, l1, l2


def dispatch(durations: np.ndarray, slots: int) -> int:
    """End of the last CTA when each CTA, in launch order, starts on the earliest free slot."""
    if durations.size <= slots:
        return int(durations.max(initial=0))
    free = [0] * slots
    end = 0
    for d in durations.tolist():
        start = heapq.heappop(free)
        heapq.heappush(free, start + d)
        end = max(end, start + d)
    return end


def count(plan: SimtPlan, index: int) -> SimtCounters:
    """One candidate's counters."""
    c = plan.candidates[index]
    s, m = c.schedule, plan.machine
    chain, issue, l1, l2port = cta_bounds(plan, c)
    durations = np.maximum.reduce([chain, issue, l1, l2port])
    sm_cycles = dispatch(durations, m.sms * c.ctas_per_sm)
    sectors = int(s.cta_l2_sectors.sum())
    l2_cycles = int(_bus_cycles(np.array([sectors * m.sector * BITS_PER_BYTE]), m.l2_bandwidth)[0])
    dram_cycles = int(_bus_cycles(np.array([(c.dram_read_bytes + c.dram_write_bytes) * BITS_PER_BYTE]),
                                  m.dram_bandwidth)[0])
    return SimtCounters(
        candidate=index, cycles=max(sm_cycles, l2_cycles, dram_cycles), sm_cycles=sm_cycles, l2_cycles=l2_cycles,
        dram_cycles=dram_cycles, ctas=s.ctas, warps=s.warps, ctas_per_sm=c.ctas_per_sm, cta_cycles=int(durations.sum()),
        latency_cycles=int(chain.sum()), issue_cycles=int(issue.sum()), l1_cycles=int(l1.sum()),
        l2_port_cycles=int(l2port.sum()), issue_slots=int(s.group_issue.sum()), l1_bytes=int(s.cta_l1_bytes.sum()),
        l2_sectors=sectors, dram_read_bytes=c.dram_read_bytes, dram_write_bytes=c.dram_write_bytes,
        fmas=s.fmas, tensor_macs=s.tensor_macs, atomics=s.atomics)


def fast(plan: SimtPlan, max_cycles: int | None = None) -> SimtCounters:
    best = None
    for index in range(len(plan.candidates)):
        counters = count(plan, index)
        if best is None or counters.cycles < best.cycles:
            best = counters
    if max_cycles is not None and best.cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {best.cycles} cycles exceed max_cycles={max_cycles}")
    return best
