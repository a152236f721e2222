"""Discrete-event reference of a SIMT kernel (SimPy; for tests and small layers).

Agents: the GPU's CTA dispatcher (gives the next CTA in launch order to the lowest-numbered free
slot, having seen every slot freed in the cycle: :class:`~accel_sim.hardware.cycle_phase.EndOfCycle`);
``sms x ctas_per_sm`` CTA slots (slot ``s`` on SM ``s % sms``); per CTA one process per warp (a
timeout per instruction group: its issue and exposed latency) and the CTA's stand-alone use of the
SM's schedulers, L1 and L2 port (timeouts of the SM's links' whole-cycle times); per SM three
:class:`~accel_sim.hardware.Link` servers (schedulers, L1, L2 port) to which every CTA hands
its demands when it starts, served in arrival order; per SM an L1 data cache (an ordered table of
128-byte lines and their valid 32-byte sectors, least recently used first) that a CTA starting on
the SM consults for its read-only load sectors before filling them, its misses joining its L2-port
demand; per SM an L1 instruction cache (an ordered table of whole code blocks, least recently used first) that a
CTA of generated code consults for its code block, fetching it through its L2 port only on a miss; the L2 and DRAM as shared
:class:`~accel_sim.hardware.Link` s (burst lists at a fractional bandwidth) moving the kernel's traffic while the
SMs run, and when the footprint overflows an L2 with a set model (``simt.l2_ways``) its sets (ordered tables of
128-byte lines and their valid 32-byte sectors, least recently used first) that each starting CTA's listed reads look
up (DRAM reads the sectors missed; without a set model DRAM reads every sector requested from L2); per
L2 slice an atomic unit (a :class:`~accel_sim.hardware.Link` of one cycle per cycle of work) to
which every CTA hands its atomic requests' cycles on that slice when it starts, served in arrival order.
Events per group, CTA and transfer, never per thread or cycle."""
from __future__ import annotations

import heapq
from collections import OrderedDict

import numpy as np
import simpy

from accel_sim.foundations.errors import SimulationError
from accel_sim.hardware import BytesPerCycle, EndOfCycle, Link, WordsPerCycle, run_until_done
from accel_sim.hardware.recorder import COMPUTE, DRAM, TRANSFER, Recorder
from accel_sim.models.simt.counters import SimtCounters
from accel_sim.models.simt.plan import SimtPlan
from accel_sim.models.simt.plan.l2 import listed_atomics, listed_reads, output_base

BITS_PER_BYTE = 8


def _record_serving(env: simpy.Environment, recorder: Recorder, served: list, all_ctas: simpy.Event, sms: int):
    """The SMs' links still serving the CTAs' demands after the last CTA ended (the kernel waits)."""
    yield all_ctas
    ended = env.now
    yield env.all_of(served)
    if env.now > ended:
        recorder.stall("SM 0 slot 0", ended, env.now, "SM schedulers / L1 / L2 port serving the CTAs' demands", 0)


def best_candidate(plan: SimtPlan, max_cycles: int | None = None) -> int:
    return reference(plan, max_cycles).candidate


def reference(plan: SimtPlan, max_cycles: int | None = None, recorder: Recorder | None = None) -> SimtCounters:
    """Every candidate runs; a later one replaces the best only when strictly faster. ``recorder``
    (teaching traces) records a second run of the best one."""
    if recorder is not None:
        return run_candidate(plan, best_candidate(plan, max_cycles), max_cycles, recorder)
    best = None
    for index in range(len(plan.candidates)):
        try:
            run = run_candidate(plan, index, max_cycles)
        except SimulationError:
            continue
        if best is None or run.cycles < best.cycles:
            best = run
    if best is None:
        raise SimulationError(f"{plan.layer.name}: every candidate ran past max_cycles={max_cycles}")
    return best


def _mac_shares(plan: SimtPlan, index: int, issue: list[int], group_bounds: np.ndarray,
                warp_bounds: np.ndarray) -> list[int]:
    """For the recorder: the kernel's MACs split over its CTAs in proportion to their issue slots
    (the schedule does not split its MACs by CTA), whole numbers adding up to the kernel's."""
    s = plan.candidates[index].schedule
    total = int(s.fmas) + int(s.tensor_macs)
    slots = np.array([sum(issue[group_bounds[warp_bounds[i]]:group_bounds[warp_bounds[i + 1]]])
                      for i in range(s.ctas)], dtype=np.int64)
    whole = int(slots.sum())
    if whole == 0:
        slots, whole = np.ones(s.ctas, dtype=np.int64), s.ctas
    cumulative = np.concatenate(([0], np.cumsum(slots))) * total // whole
    return np.diff(cumulative).tolist()


def run_candidate(plan: SimtPlan, index: int, max_cycles: int | None,
                  recorder: Recorder | None = None) -> SimtCounters:
    """One candidate's run; ``recorder`` (teaching traces) gets each CTA on its SM slot (the kernel's
    MACs shared by issue slots), its wait for the SM's schedulers, L1 and L2 port to serve its
    demands, and the L2 and DRAM traffic."""
    c = plan.candidates[index]
    s, m, r = c.schedule, plan.machine, c.ctas_per_sm
    env = simpy.Environment()
    warp_bounds = np.searchsorted(s.warp_cta, np.arange(s.ctas + 1))
    group_bounds = np.searchsorted(s.group_warp, np.arange(s.warps + 1))
    issue, latency = s.group_issue.tolist(), s.group_latency.tolist()
    schedulers = [Link(env, f"sm{k}.schedulers", WordsPerCycle(m.schedulers)) for k in range(m.sms)]
    l1 = [Link(env, f"sm{k}.l1", BytesPerCycle(m.l1_bandwidth)) for k in range(m.sms)]
    ports = [Link(env, f"sm{k}.l2_port", BytesPerCycle(m.l2_port_bandwidth)) for k in range(m.sms)]
    tally = dict(chain=0, issue=0, l1=0, l2=0, cta=0, slots=0, end=0, done=0, hits=0, misses=0, sectors=0, begun=0,
                 code_hits=0, l2_missed=0)
    l2_sets: dict[int, OrderedDict[int, int]] = {}                      # set -> line -> valid sectors
    walk = c.l2_overflow and m.l2_ways > 0                              # the set model (l2_ways 0: none)
    listed_ptr, listed_sectors = listed_reads(s.gemm_reads if walk else None, s.ctas, m.sector, m.line)
    atomic_ptr, atomic_sectors = listed_atomics(s.atomic_cta, s.atomic_sector, s.ctas,
                                                output_base(s.gemm_reads, s.dense_operand_bytes, m.line, m.sector))
    per_line = m.line // m.sector
    atomic_bounds = np.searchsorted(c.atomic_cta, np.arange(s.ctas + 1))
    atomic_units: dict[int, Link] = {}
    atomic_served: list[simpy.Process] = []
    caches: list[OrderedDict[int, int]] = [OrderedDict() for _ in range(m.sms)]
    code_caches: list[OrderedDict[int, int]] = [OrderedDict() for _ in range(m.sms)]   # code block -> its sectors
    shares = _mac_shares(plan, index, issue, group_bounds, warp_bounds) if recorder is not None else []
    if recorder is not None:
        for slot in range(min(s.ctas, m.sms * r)):
            recorder.agent(f"SM {slot % m.sms} slot {slot // m.sms}", "pe")
        recorder.agent("L2", "buffer")
        recorder.agent("DRAM", "dram")

    def lines_of(sectors: list[int]) -> dict[int, int]:
        """Line -> mask of the sectors asked for."""
        wanted: dict[int, int] = {}
        for sector in sectors:
            wanted[sector // per_line] = wanted.get(sector // per_line, 0) | 1 << sector % per_line
        return wanted

    def l1_misses(index_: int, sm: int) -> dict[int, int]:
        """The CTA's read-only sectors missing in the SM's L1 (all when CTAs do not share it), line -> mask, then
        filled."""
        if s.cached_ptr is None:
            return {}
        wanted = lines_of(s.cached_sectors[s.cached_ptr[index_]:s.cached_ptr[index_ + 1]].tolist())
        if not m.sm_l1 or c.l1_lines == 0:
            return wanted
        cache = caches[sm]
        missing = {line: bits & ~cache.get(line, 0) for line, bits in wanted.items()}
        tally["hits"] += sum(bin(bits & cache.get(line, 0)).count("1") for line, bits in wanted.items())
        for line in sorted(wanted):
            cache[line] = cache.pop(line, 0) | wanted[line]                # most recently used at the end
        while len(cache) > c.l1_lines:
            cache.popitem(last=False)
        return missing

    def l2_lookup(index_: int, missing: dict[int, int]) -> None:
        """When the footprint overflows the L2: the CTA's GEMM tile reads, then its L1 misses, then its atomic adds,
        each line in address order, looked up in the L2's set (line modulo the sets; an ordered table, least recently used first) and
        filled; the sectors it lacks counted."""
        if not walk:
            return
        listed = lines_of(listed_sectors[listed_ptr[index_]:listed_ptr[index_ + 1]].tolist())
        added = lines_of(atomic_sectors[atomic_ptr[index_]:atomic_ptr[index_ + 1]].tolist())
        for wanted in (listed, missing, added):
            for line in sorted(wanted):
                if not wanted[line]:
                    continue
                table = l2_sets.setdefault(line % m.l2_sets, OrderedDict())
                held = table.pop(line, 0) if line in table else None
                tally["l2_missed"] += bin(wanted[line] & ~(held or 0)).count("1")
                table[line] = (held or 0) | wanted[line]
                if held is None and len(table) > m.l2_ways:
                    table.popitem(last=False)

    def code_hit(index_: int, sm: int) -> int:
        """The CTA's code sectors the SM's instruction cache holds (all or none: a whole block, least recently used
        first out; a block larger than the cache is not kept)."""
        if s.code_block is None or m.instruction_cache == 0:
            return 0
        block = int(s.code_block[index_])
        size = int(s.code_sectors[block])
        cache = code_caches[sm]
        if block in cache:
            cache.move_to_end(block)
            tally["code_hits"] += size
            return size
        if 0 < size <= m.instruction_cache:
            cache[block] = size
            while sum(cache.values()) > m.instruction_cache:
                cache.popitem(last=False)
        return 0
    freed: list[int] = []
    slot_freed = [env.event()]
    served: list[simpy.Process] = []
    all_ctas = env.event()
    started = env.event()

    def warp(w: int):
        for g in range(group_bounds[w], group_bounds[w + 1]):
            tally["slots"] += issue[g]
            yield env.timeout(issue[g] + latency[g])
        return env.now

    def cta(index_: int, slot: int):
        sm = slot % m.sms
        start = env.now
        warps = [env.process(warp(w)) for w in range(warp_bounds[index_], warp_bounds[index_ + 1])]
        cta_issue = sum(issue[g] for g in range(group_bounds[warp_bounds[index_]],
                                               group_bounds[warp_bounds[index_ + 1]]))
        missing = l1_misses(index_, sm)
        misses = sum(bin(bits).count("1") for bits in missing.values())
        l2_lookup(index_, missing)
        fetched = int(s.cta_l2_sectors[index_]) + misses - code_hit(index_, sm)   # code the SM holds is not fetched
        for e in range(atomic_bounds[index_], atomic_bounds[index_ + 1]):    # the CTA's adds join each slice's queue
            k = int(c.atomic_slice[e])
            if k not in atomic_units:
                atomic_units[k] = Link(env, f"l2_slice{k}.atomics", WordsPerCycle(1))   # a cycle of work per cycle
            atomic_served.append(atomic_units[k].put(int(c.atomic_cycles[e]), f"cta{index_}"))
        tally["misses"] += misses
        tally["sectors"] += fetched
        tally["begun"] += 1
        if tally["begun"] == s.ctas:
            started.succeed()
        demands = ((schedulers[sm], cta_issue, "issue"),                 # issue slots; bits on L1 and L2 port
                   (l1[sm], int(s.cta_l1_bytes[index_]) * BITS_PER_BYTE, "l1"),
                   (ports[sm], fetched * m.sector * BITS_PER_BYTE, "l2"))
        alone = []
        for link, amount, name in demands:
            served.append(link.get(amount, f"cta{index_}"))
            alone.append(link.cycles_for(amount))
            tally[name] += alone[-1]
        yield env.all_of([*warps, env.timeout(max(1, *alone))])
        tally["chain"] += max(w.value for w in warps) - start
        tally["cta"] += env.now - start
        if recorder is not None:
            recorder.record(f"SM {sm} slot {slot // m.sms}", COMPUTE, start, env.now, f"CTA {index_}",
                            macs=shares[index_])
        tally["end"] = max(tally["end"], env.now)
        tally["done"] += 1
        if tally["done"] == s.ctas:
            all_ctas.succeed()
        freed.append(slot)
        if not slot_freed[0].triggered:
            slot_freed[0].succeed()

    def dispatcher():
        free = [(slot, 0) for slot in range(m.sms * r)]
        heapq.heapify(free)
        for next_cta in range(s.ctas):
            if not free:
                yield slot_freed[0]
                yield EndOfCycle(env)                                  # every slot freed this cycle
                slot_freed[0] = env.event()
                for slot in freed:
                    heapq.heappush(free, (slot, 0))
                freed.clear()
            slot, _ = heapq.heappop(free)
            env.process(cta(next_cta, slot))

    env.process(dispatcher())
    l2_bus = Link(env, "l2", BytesPerCycle(m.l2_bandwidth))
    dram = Link(env, "dram", BytesPerCycle(m.dram_bandwidth))

    def memory():
        """The L2 and DRAM move the kernel's traffic, busy from launch; the amount is known once every CTA
        has started (their L1 misses decided): each bus records it then and holds until its time since launch."""
        yield started
        sectors = tally["sectors"]
        read = c.dram_read_bytes
        if c.l2_overflow and not walk:                                 # every L2 sector comes from DRAM
            read = max(read, sectors * m.sector - c.dram_write_bytes)
        elif c.l2_overflow:            # the listed reads' L2 misses; every other sector from DRAM (at least their footprint)
            other = sectors - tally["misses"] - s.listed_l2_sectors
            read = max(read - s.listed_read_bytes, other * m.sector - c.dram_write_bytes) + tally["l2_missed"] * m.sector
        busy = []
        for bus, read_bits, write_bits in ((l2_bus, sectors * m.sector * BITS_PER_BYTE, 0),
                                           (dram, read * BITS_PER_BYTE, c.dram_write_bytes * BITS_PER_BYTE)):
            yield bus.burst(read_bits, write_bits, "kernel", timed=0)
            busy.append(bus.cycles_for(read_bits + write_bits))
        yield env.timeout(max(0, max(busy) - int(env.now)))
        if recorder is not None:
            recorder.record("L2", TRANSFER, 0, busy[0], f"{sectors} sectors")
            recorder.record("DRAM", DRAM, 0, busy[1], "the kernel's DRAM traffic",
                            dram_bytes=read + c.dram_write_bytes)
        return busy

    def kernel():
        yield all_ctas                                                 # every CTA has started and ended
        yield env.all_of(served)                                       # and the SMs have served them
        return env.now

    def atomics():
        """The L2 slices' atomic units done with every request (known once every CTA has started)."""
        yield started
        if not atomic_served:
            return 0
        yield env.all_of(atomic_served)
        return max(int(p.value) for p in atomic_served)

    done = env.process(kernel())
    moved = env.process(memory())
    atomic = env.process(atomics())
    if recorder is not None:
        env.process(_record_serving(env, recorder, served, all_ctas, m.sms))
    cycles = run_until_done(env, env.all_of([done, moved, atomic]), max_cycles, plan.layer.name)
    l2_cycles, dram_cycles = moved.value
    sm_cycles = int(done.value)
    return SimtCounters(
        candidate=index, cycles=cycles, sm_cycles=sm_cycles, sm_served_cycles=max(int(p.value) for p in served),
        l2_cycles=l2_cycles, dram_cycles=dram_cycles, atomic_cycles=atomic.value, ctas=s.ctas, warps=s.warps,
        ctas_per_sm=r, cta_cycles=int(tally["cta"]), latency_cycles=int(tally["chain"]),
        issue_cycles=int(tally["issue"]), l1_cycles=int(tally["l1"]), l2_port_cycles=int(tally["l2"]),
        issue_slots=int(tally["slots"]), l1_bytes=sum(link.counter.reads for link in l1) // BITS_PER_BYTE,
        l2_sectors=l2_bus.counter.reads // (m.sector * BITS_PER_BYTE),
        dram_read_bytes=dram.counter.reads // BITS_PER_BYTE, dram_write_bytes=dram.counter.writes // BITS_PER_BYTE, fmas=s.fmas, tensor_macs=s.tensor_macs, atomics=s.atomics,
        l1_hits=tally["hits"], l1_misses=tally["misses"], instruction_cache_hits=tally["code_hits"],
        l2_misses=tally["l2_missed"])
