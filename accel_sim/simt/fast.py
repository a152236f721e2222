"""Fast path: every CTA's stand-alone time in closed form (vectorised over warps and CTAs), the
CTAs dispatched in launch order to the lowest-numbered free CTA slot (a heap over slots, not over
cycles), and each SM's shared schedulers, L1 and L2 port as FIFO servers of its CTAs' demands
(their drain in closed form: Lindley's recursion as a suffix sum).

- A CTA alone on an SM takes the largest of: its slowest warp's chain (issue plus exposed latency
  of its groups), ``ceil(issue / schedulers)``, its L1 bytes at the L1 bandwidth, its L2 sectors at
  the SM's L2-port bandwidth (whole cycles, as :class:`~accel_sim.hardware.link.Link` rounds), at
  least one cycle. Its slot is free again then.
- Slots: ``sms x ctas_per_sm``; slot ``s`` is on SM ``s % sms`` (the first wave spreads over the
  SMs). Latency is hidden by occupancy: more slots, more CTAs' chains overlap.
- An SM is done when its last CTA is and its servers have served every demand of its CTAs, each
  arriving when its CTA starts (ties in launch order): resident CTAs share the SM's throughput.
- The L2 and DRAM bandwidths bound the whole kernel (:class:`~accel_sim.hardware.dram_bus.DramBus`
  rounding).
"""
from __future__ import annotations

import heapq

import numpy as np

from accel_sim.errors import SimulationError
from accel_sim.simt.counters import SimtCounters
from accel_sim.simt.plan import Candidate, SimtPlan

BITS_PER_BYTE = 8


def link_cycles(bits: np.ndarray, bytes_per_cycle: float) -> np.ndarray:
    """Whole cycles a Link of ``bytes_per_cycle`` is busy with each transfer."""
    return np.ceil(np.asarray(bits, dtype=np.float64) / (BITS_PER_BYTE * bytes_per_cycle)).astype(np.int64)


def bus_cycles(bits: int, bytes_per_cycle: float) -> int:
    """Whole cycles a DramBus of ``bytes_per_cycle`` is busy with one burst list."""
    return int(np.ceil(bits / BITS_PER_BYTE / bytes_per_cycle))


def cta_demands(plan: SimtPlan, c: Candidate) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per CTA: (chain, issue, L1, L2 port) cycles of the CTA alone on an SM."""
    s, m = c.schedule, plan.machine
    warp_chain = np.bincount(s.group_warp, weights=s.group_issue + s.group_latency, minlength=s.warps)
    warp_issue = np.bincount(s.group_warp, weights=s.group_issue, minlength=s.warps)
    chain = np.zeros(s.ctas, dtype=np.int64)
    np.maximum.at(chain, s.warp_cta, warp_chain.round().astype(np.int64))
    issue_sum = np.bincount(s.warp_cta, weights=warp_issue, minlength=s.ctas).round().astype(np.int64)
    issue = link_cycles(issue_sum * BITS_PER_BYTE, m.schedulers)
    l1 = link_cycles(s.cta_l1_bytes * BITS_PER_BYTE, m.l1_bandwidth)
    l2 = link_cycles(s.cta_l2_sectors * m.sector * BITS_PER_BYTE, m.l2_port_bandwidth)
    return chain, issue, l1, l2


def dispatch(durations: np.ndarray, slots: int) -> tuple[np.ndarray, np.ndarray]:
    """Start cycle and slot of each CTA when each, in launch order, takes the lowest-numbered slot
    among the earliest free."""
    start = np.zeros(durations.size, dtype=np.int64)
    slot = np.arange(durations.size, dtype=np.int64)
    if durations.size <= slots:
        return start, slot
    free = [(0, s) for s in range(slots)]
    for c, d in enumerate(durations.tolist()):
        t, s = heapq.heappop(free)
        start[c], slot[c] = t, s
        heapq.heappush(free, (t + d, s))
    return start, slot


def drain(start: np.ndarray, sm: np.ndarray, service: np.ndarray, sms: int) -> np.ndarray:
    """Per SM: when a FIFO server has served every CTA's demand, each arriving at its CTA's start
    (ties in launch order): max over arrivals of (arrival + the services from it on)."""
    order = np.lexsort((np.arange(start.size), start, sm))
    a, k, x = start[order], sm[order], service[order]
    suffix = np.cumsum(x[::-1])[::-1]                                 # services from here to the end
    last = np.searchsorted(k, np.arange(sms), side="right")           # end of each SM's run
    after = np.concatenate((suffix, [0]))[last][k]                    # services after the SM's run
    out = np.zeros(sms, dtype=np.int64)
    np.maximum.at(out, k, a + suffix - after)
    return out


def count(plan: SimtPlan, index: int) -> SimtCounters:
    """One candidate's counters."""
    c = plan.candidates[index]
    s, m = c.schedule, plan.machine
    chain, issue, l1, l2port = cta_demands(plan, c)
    durations = np.maximum.reduce([chain, issue, l1, l2port, np.ones_like(chain)])
    start, slot = dispatch(durations, m.sms * c.ctas_per_sm)
    sm = slot % m.sms
    ends = np.zeros(m.sms, dtype=np.int64)
    np.maximum.at(ends, sm, start + durations)
    served = np.maximum.reduce([drain(start, sm, demand, m.sms) for demand in (issue, l1, l2port)])
    sm_cycles = int(np.maximum(ends, served).max())
    sectors = int(s.cta_l2_sectors.sum())
    l2_cycles = bus_cycles(sectors * m.sector * BITS_PER_BYTE, m.l2_bandwidth)
    dram_cycles = bus_cycles((c.dram_read_bytes + c.dram_write_bytes) * BITS_PER_BYTE, m.dram_bandwidth)
    return SimtCounters(
        candidate=index, cycles=max(sm_cycles, l2_cycles, dram_cycles), sm_cycles=sm_cycles,
        sm_served_cycles=int(served.max()), l2_cycles=l2_cycles, dram_cycles=dram_cycles, ctas=s.ctas,
        warps=s.warps, ctas_per_sm=c.ctas_per_sm, cta_cycles=int(durations.sum()), latency_cycles=int(chain.sum()),
        issue_cycles=int(issue.sum()), l1_cycles=int(l1.sum()), l2_port_cycles=int(l2port.sum()),
        issue_slots=int(s.group_issue.sum()), l1_bytes=int(s.cta_l1_bytes.sum()), l2_sectors=sectors,
        dram_read_bytes=c.dram_read_bytes, dram_write_bytes=c.dram_write_bytes, fmas=s.fmas,
        tensor_macs=s.tensor_macs, atomics=s.atomics)


def fast(plan: SimtPlan, max_cycles: int | None = None) -> SimtCounters:
    best = None
    for index in range(len(plan.candidates)):
        counters = count(plan, index)
        if best is None or counters.cycles < best.cycles:
            best = counters
    if max_cycles is not None and best.cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {best.cycles} cycles exceed max_cycles={max_cycles}")
    return best
