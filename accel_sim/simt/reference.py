"""Discrete-event reference of a SIMT kernel (SimPy; for tests and small layers).

Agents: a CTA queue in launch order; per SM ``ctas_per_sm`` CTA slots, each a process that takes
the next CTA and runs it; per CTA one process per warp (a timeout per instruction group: its issue
and exposed latency), the CTA's share of the SM's schedulers (a timeout) and of its L1 and L2 port
(:class:`~accel_sim.hardware.dram_bus.DramBus` blocks of ``1 / ctas_per_sm`` of the bandwidth, one
per slot); the CTA ends when all of them have. The L2 and DRAM are shared :class:`DramBus` blocks
moving the kernel's traffic while the SMs run. Events per group, CTA and transfer, never per
thread or cycle."""
from __future__ import annotations

import numpy as np
import simpy

from accel_sim.hardware import run_until_done
from accel_sim.hardware.dram_bus import DramBus
from accel_sim.simt.counters import SimtCounters
from accel_sim.errors import SimulationError
from accel_sim.simt.plan import SimtPlan

BITS_PER_BYTE = 8


def reference(plan: SimtPlan, max_cycles: int | None = None) -> SimtCounters:
    """Every candidate runs; a later one replaces the best only when strictly faster."""
    best = None
    for index in range(len(plan.candidates)):
        try:
            run = run_candidate(plan, index, max_cycles)
        except SimulationError:
            if index == len(plan.candidates) - 1 and best is None:
                raise
            continue
        if best is None or run.cycles < best.cycles:
            best = run
    if best is None:
        raise SimulationError(f"{plan.layer.name}: every candidate ran past max_cycles={max_cycles}")
    return best


def run_candidate(plan: SimtPlan, index: int, max_cycles: int | None) -> SimtCounters:
    c = plan.candidates[index]
    s, m, r = c.schedule, plan.machine, c.ctas_per_sm
    env = simpy.Environment()
    queue = simpy.Store(env)
    for cta in range(s.ctas):
        queue.put(cta)
    warp_bounds = np.searchsorted(s.warp_cta, np.arange(s.ctas + 1))
    group_bounds = np.searchsorted(s.group_warp, np.arange(s.warps + 1))
    issue = s.group_issue.tolist()
    latency = s.group_latency.tolist()
    tally = dict(chain=0, issue=0, l1=0, l2=0, cta=0, slots=0, done=0, end=0)
    all_ctas = env.event()

    def warp(w: int):
        for g in range(group_bounds[w], group_bounds[w + 1]):
            tally["slots"] += issue[g]
            yield env.timeout(issue[g] + latency[g])
        return env.now

    l1_ports: list[DramBus] = []

    def slot(name: str):
        l1_port = DramBus(env, m.l1_bandwidth / r, f"{name}.l1")
        l2_port = DramBus(env, m.l2_port_bandwidth / r, f"{name}.l2_port")
        l1_ports.append(l1_port)
        while queue.items:
            cta = yield queue.get()
            start = env.now
            warps = [env.process(warp(w)) for w in range(warp_bounds[cta], warp_bounds[cta + 1])]
            cta_issue = sum(issue[g] for g in range(group_bounds[warp_bounds[cta]], group_bounds[warp_bounds[cta + 1]]))
            share = -(-r * cta_issue // m.schedulers)
            l1 = l1_port.transfer(int(s.cta_l1_bytes[cta]) * BITS_PER_BYTE, 0, f"cta{cta}")
            l2 = l2_port.transfer(int(s.cta_l2_sectors[cta]) * m.sector * BITS_PER_BYTE, 0, f"cta{cta}")
            yield env.all_of([*warps, env.timeout(share), l1, l2])
            tally["chain"] += max(w.value for w in warps) - start
            tally["issue"] += share
            tally["l1"] += l1.value - start
            tally["l2"] += l2.value - start
            tally["cta"] += env.now - start
            tally["end"] = max(tally["end"], env.now)
            tally["done"] += 1
            if tally["done"] == s.ctas:
                all_ctas.succeed()

    for sm in range(m.sms):
        for resident in range(r):
            env.process(slot(f"sm{sm}.slot{resident}"))
    l2_bus = DramBus(env, m.l2_bandwidth, "l2")
    dram = DramBus(env, m.dram_bandwidth, "dram")
    l2_traffic = l2_bus.transfer(int(s.cta_l2_sectors.sum()) * m.sector * BITS_PER_BYTE, 0, "kernel")
    dram_traffic = dram.transfer(c.dram_read_bytes * BITS_PER_BYTE, c.dram_write_bytes * BITS_PER_BYTE, "kernel")
    cycles = run_until_done(env, env.all_of([all_ctas, l2_traffic, dram_traffic]), max_cycles, plan.layer.name)
    return SimtCounters(
        candidate=index, cycles=cycles, sm_cycles=int(tally["end"]), l2_cycles=int(l2_traffic.value), dram_cycles=int(dram_traffic.value),
        ctas=s.ctas, warps=s.warps, ctas_per_sm=r, cta_cycles=int(tally["cta"]), latency_cycles=int(tally["chain"]),
        issue_cycles=int(tally["issue"]), l1_cycles=int(tally["l1"]), l2_port_cycles=int(tally["l2"]),
        issue_slots=int(tally["slots"]), l1_bytes=sum(port.read_bits for port in l1_ports) // BITS_PER_BYTE, l2_sectors=int(s.cta_l2_sectors.sum()),
        dram_read_bytes=dram.read_bits // BITS_PER_BYTE, dram_write_bytes=dram.write_bits // BITS_PER_BYTE,
        fmas=s.fmas, tensor_macs=s.tensor_macs, atomics=s.atomics)

