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
- A kernel's read-only loads (``cached_sectors``) go through the SM's L1 data cache, shared by the
  CTAs the SM runs: LRU over 128-byte lines of 32-byte sectors, each CTA's sectors looked up when it
  starts (in launch order) and then filled; only misses take the L2 port. Which SM a CTA lands on
  depends on the earlier CTAs' times, so dispatch and L1 walk the CTAs together (one numpy lookup
  per CTA on sorted line tags).
- A kernel of generated code (``code_block``) fetches a CTA's code through the L2 port unless the SM's L1
  instruction cache holds it from an earlier CTA on the SM: LRU over whole code blocks, a block larger than the
  cache never kept; decided in the same CTA-by-CTA walk as the L1.
- The L2 and DRAM bandwidths bound the whole kernel (:class:`~accel_sim.hardware.Link`
  rounding).
- Atomic adds execute in the atomic unit of their sector's L2 slice, a FIFO server per slice of each
  CTA's demand on it, arriving when the CTA starts (the same drain); the kernel ends when every slice
  is done.
"""
from __future__ import annotations

import functools
import heapq

import numpy as np

from accel_sim.foundations.compiled import compiled_loop
from accel_sim.foundations.errors import SimulationError
from accel_sim.models.simt.counters import SimtCounters
from accel_sim.models.simt.plan import Candidate, SimtPlan

BITS_PER_BYTE = 8


def link_cycles(bits: np.ndarray, bytes_per_cycle: float) -> np.ndarray:
    """Whole cycles a Link of ``bytes_per_cycle`` is busy with each transfer."""
    return np.ceil(np.asarray(bits, dtype=np.float64) / (BITS_PER_BYTE * bytes_per_cycle)).astype(np.int64)


def bus_cycles(bits: int, bytes_per_cycle: float) -> int:
    """Whole cycles a bus of ``bytes_per_cycle`` is busy with one burst list (the reference's :class:`~accel_sim.hardware.Link`)."""
    return int(np.ceil(bits / BITS_PER_BYTE / bytes_per_cycle))


class SectorCache:
    """One SM's L1 data cache: line tags kept sorted, their valid-sector masks and last-use stamps; LRU eviction
    (oldest stamp first, lower tag first among equal stamps) down to ``lines`` lines after each batch."""

    def __init__(self, lines: int, popcount: np.ndarray):
        self.lines, self.popcount = lines, popcount
        self.tags = self.masks = self.stamps = np.zeros(0, dtype=np.int64)

    def access(self, tags: np.ndarray, wanted: np.ndarray, stamp: int) -> int:
        """Sector hits of a CTA's distinct sorted line ``tags`` with ``wanted`` sector masks (looked up before any
        is filled), then the lines filled and the least recently used evicted."""
        if tags.size == 0 or self.lines == 0:
            return 0
        at = np.searchsorted(self.tags, tags)
        present = np.zeros(tags.size, dtype=bool)
        if self.tags.size:
            present = self.tags[np.minimum(at, self.tags.size - 1)] == tags
        where = at[present]
        hits = int(self.popcount[wanted[present] & self.masks[where]].sum())
        self.masks[where] |= wanted[present]
        self.stamps[where] = stamp
        fresh = ~present
        new = tags[fresh]
        if new.size:                                                 # merge the new lines in, tags kept sorted
            to_new = at[fresh] + np.arange(new.size)
            to_old = np.arange(self.tags.size) + np.searchsorted(new, self.tags)
            merged = []
            for old_values, new_values in ((self.tags, new), (self.masks, wanted[fresh]), (self.stamps, stamp)):
                out = np.empty(self.tags.size + new.size, dtype=np.int64)
                out[to_old], out[to_new] = old_values, new_values
                merged.append(out)
            self.tags, self.masks, self.stamps = merged
        evict = self.tags.size - self.lines
        if evict > 0:                                                # the oldest (stamp, tag) go
            key = self.stamps * (int(self.tags[-1]) + 1) + self.tags
            keep = np.ones(self.tags.size, dtype=bool)
            keep[np.argpartition(key, evict - 1)[:evict]] = False
            self.tags, self.masks, self.stamps = self.tags[keep], self.masks[keep], self.stamps[keep]
        return hits


def cached_lines(sectors: np.ndarray, ptr: np.ndarray, per_line: int) -> tuple[np.ndarray, ...]:
    """Each CTA's distinct line tags and their requested-sector masks: ``(line_ptr, tags, masks)`` (with numba:
    :func:`line_runs`, compiled)."""
    kernel = _compiled_dispatch()
    if kernel is not None:
        return kernel["lines"](np.asarray(sectors, dtype=np.int64), np.asarray(ptr, dtype=np.int64), per_line)
    tags = sectors // per_line
    owner = np.repeat(np.arange(ptr.size - 1), np.diff(ptr))
    first = np.flatnonzero(np.concatenate(([True], (tags[1:] != tags[:-1]) | (owner[1:] != owner[:-1]))))
    first = first[:tags.size]
    masks = np.bitwise_or.reduceat(np.left_shift(1, sectors % per_line), first) if first.size else first
    line_ptr = np.concatenate(([0], np.cumsum(np.bincount(owner[first], minlength=ptr.size - 1)))).astype(np.int64)
    return line_ptr, tags[first], masks


def line_runs(sectors: np.ndarray, ptr: np.ndarray, per_line: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`cached_lines` in one pass (each CTA's sorted sectors: a line's sectors are adjacent): the loop numba
    compiles (plain Python too)."""
    ctas = ptr.size - 1
    tags = np.empty(sectors.size, dtype=np.int64)
    masks = np.empty(sectors.size, dtype=np.int64)
    line_ptr = np.zeros(ctas + 1, dtype=np.int64)
    lines = 0
    for c in range(ctas):
        for i in range(ptr[c], ptr[c + 1]):
            tag, bit = sectors[i] // per_line, 1 << (sectors[i] % per_line)
            if i > ptr[c] and tags[lines - 1] == tag:
                masks[lines - 1] |= bit
            else:
                tags[lines], masks[lines] = tag, bit
                lines += 1
        line_ptr[c + 1] = lines
    return line_ptr, tags[:lines].copy(), masks[:lines].copy()


def cta_demands(plan: SimtPlan, c: Candidate) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per CTA: (chain, issue, L1, L2 port) cycles of the CTA alone on an SM (the L2 port without its L1 misses)."""
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
    among the earliest free (with numba: :func:`dispatch_keys`, compiled)."""
    start = np.zeros(durations.size, dtype=np.int64)
    slot = np.arange(durations.size, dtype=np.int64)
    if durations.size <= slots:
        return start, slot
    kernel = _compiled_dispatch()
    if kernel is not None and (int(durations.sum()) + 1) * slots < 1 << 62:   # keys fit an int64
        kernel["dispatch"](np.asarray(durations, dtype=np.int64), slots, start, slot)
        return start, slot
    free = [(0, s) for s in range(slots)]
    for c, d in enumerate(durations.tolist()):
        t, s = heapq.heappop(free)
        start[c], slot[c] = t, s
        heapq.heappush(free, (t + d, s))
    return start, slot


def dispatch_keys(durations: np.ndarray, slots: int, start: np.ndarray, slot: np.ndarray) -> None:
    """:func:`dispatch`'s heap of (free cycle, slot) as one key, free cycle x slots + slot (the same order: a slot is
    below ``slots``), filling ``start`` and ``slot``: the loop numba compiles (plain Python too)."""
    free = [np.int64(s) for s in range(slots)]   # sorted: a heap
    for c in range(durations.size):
        key = free[0]
        t, s = key // slots, key % slots
        start[c], slot[c] = t, s
        heapq.heapreplace(free, (t + durations[c]) * slots + s)


@functools.cache
def _compiled_dispatch() -> dict | None:
    """:func:`dispatch_keys` and :func:`line_runs` compiled by numba (:func:`compiled_loop`), or None when numba is
    not installed."""
    if compiled_loop(dispatch_keys) is None:
        return None
    return {"dispatch": compiled_loop(dispatch_keys), "lines": compiled_loop(line_runs)}


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


class CodeCache:
    """One SM's L1 instruction cache over whole code blocks: LRU (dict order, oldest first), ``capacity`` sectors;
    a block larger than the cache is never kept."""

    def __init__(self, capacity: int):
        self.capacity, self.held, self.blocks = capacity, 0, {}

    def fetch(self, block: int, sectors: int) -> int:
        """Sectors of ``block`` found in the cache (all or none); the block is then the most recently used."""
        if block in self.blocks:
            self.blocks[block] = self.blocks.pop(block)
            return sectors
        if 0 < sectors <= self.capacity:
            self.blocks[block] = sectors
            self.held += sectors
            while self.held > self.capacity:
                self.held -= self.blocks.pop(next(iter(self.blocks)))
        return 0


def dispatch_through_l1(plan: SimtPlan, c: Candidate, fixed: np.ndarray) -> tuple[np.ndarray, ...]:
    """Start cycle, slot, L1 misses and instruction-cache hits (sectors) of each CTA when its time is the largest of
    ``fixed`` and its L2-port cycles, which count its L1 misses (every cached sector when the SM's CTAs do not share
    the L1) and its code unless the SM's instruction cache holds it (dispatch as :func:`dispatch`)."""
    s, m = c.schedule, plan.machine
    slots = m.sms * c.ctas_per_sm
    start = np.zeros(s.ctas, dtype=np.int64)
    slot = np.arange(s.ctas, dtype=np.int64)
    shared_l1 = s.cached_ptr is not None and m.sm_l1
    misses = np.zeros(s.ctas, dtype=np.int64) if s.cached_ptr is None else np.diff(s.cached_ptr)
    if shared_l1:
        per_line = m.line // m.sector
        popcount = np.array([bin(v).count("1") for v in range(1 << per_line)], dtype=np.int64)
        caches = [SectorCache(c.l1_lines, popcount) for _ in range(m.sms)]
        line_ptr, tags, masks = cached_lines(s.cached_sectors, s.cached_ptr, per_line)
    code = s.code_block is not None and m.instruction_cache > 0
    code_caches = [CodeCache(m.instruction_cache) for _ in range(m.sms)]
    code_hits = np.zeros(s.ctas, dtype=np.int64)
    port_bits = BITS_PER_BYTE * m.l2_port_bandwidth
    static = s.cta_l2_sectors.tolist()
    free: list[tuple[int, int]] = []
    for cta in range(s.ctas):
        t, k = (0, cta) if cta < slots else heapq.heappop(free)
        start[cta], slot[cta] = t, k
        if shared_l1:
            lo, hi = line_ptr[cta], line_ptr[cta + 1]
            misses[cta] -= caches[k % m.sms].access(tags[lo:hi], masks[lo:hi], cta)
        if code:
            block = int(s.code_block[cta])
            code_hits[cta] = code_caches[k % m.sms].fetch(block, int(s.code_sectors[block]))
        port = int(np.ceil((static[cta] + int(misses[cta]) - int(code_hits[cta])) * m.sector * BITS_PER_BYTE / port_bits))
        heapq.heappush(free, (t + max(int(fixed[cta]), port), k))
    return start, slot, misses, code_hits


def count(plan: SimtPlan, index: int) -> SimtCounters:
    """One candidate's counters."""
    c = plan.candidates[index]
    s, m = c.schedule, plan.machine
    chain, issue, l1, l2port = cta_demands(plan, c)
    fixed = np.maximum.reduce([chain, issue, l1, np.ones_like(chain)])
    code_hits = np.zeros(s.ctas, dtype=np.int64)
    if s.cached_ptr is None and (s.code_block is None or m.instruction_cache == 0):
        misses = np.zeros(s.ctas, dtype=np.int64)
        start, slot = dispatch(np.maximum(fixed, l2port), m.sms * c.ctas_per_sm)
    elif not m.sm_l1 and (s.code_block is None or m.instruction_cache == 0):   # each CTA's L1 its own: every sector misses
        misses = np.diff(s.cached_ptr)
        l2port = link_cycles((s.cta_l2_sectors + misses) * m.sector * BITS_PER_BYTE, m.l2_port_bandwidth)
        start, slot = dispatch(np.maximum(fixed, l2port), m.sms * c.ctas_per_sm)
    else:                                                            # hits decided CTA by CTA on the SM it lands on
        start, slot, misses, code_hits = dispatch_through_l1(plan, c, fixed)
        l2port = link_cycles((s.cta_l2_sectors + misses - code_hits) * m.sector * BITS_PER_BYTE, m.l2_port_bandwidth)
    durations = np.maximum(fixed, l2port)
    sm = slot % m.sms
    ends = np.zeros(m.sms, dtype=np.int64)
    np.maximum.at(ends, sm, start + durations)
    served = np.maximum.reduce([drain(start, sm, demand, m.sms) for demand in (issue, l1, l2port)])
    sm_cycles = int(np.maximum(ends, served).max())
    sectors = int(s.cta_l2_sectors.sum() + misses.sum() - code_hits.sum())
    cached = 0 if s.cached_ptr is None else int(s.cached_ptr[-1])
    l2_cycles = bus_cycles(sectors * m.sector * BITS_PER_BYTE, m.l2_bandwidth)
    atomic_cycles = int(drain(start[c.atomic_cta], c.atomic_slice, c.atomic_cycles, m.l2_slices).max()) \
        if c.atomic_cta.size else 0
    dram_read = max(c.dram_read_bytes, sectors * m.sector - c.dram_write_bytes) if c.l2_overflow else c.dram_read_bytes
    dram_cycles = bus_cycles((dram_read + c.dram_write_bytes) * BITS_PER_BYTE, m.dram_bandwidth)
    return SimtCounters(
        candidate=index, cycles=max(sm_cycles, l2_cycles, dram_cycles, atomic_cycles), sm_cycles=sm_cycles,
        sm_served_cycles=int(served.max()), l2_cycles=l2_cycles, dram_cycles=dram_cycles,
        atomic_cycles=atomic_cycles, ctas=s.ctas,
        warps=s.warps, ctas_per_sm=c.ctas_per_sm, cta_cycles=int(durations.sum()), latency_cycles=int(chain.sum()),
        issue_cycles=int(issue.sum()), l1_cycles=int(l1.sum()), l2_port_cycles=int(l2port.sum()),
        issue_slots=int(s.group_issue.sum()), l1_bytes=int(s.cta_l1_bytes.sum()), l2_sectors=sectors,
        dram_read_bytes=dram_read, dram_write_bytes=c.dram_write_bytes, fmas=s.fmas,
        tensor_macs=s.tensor_macs, atomics=s.atomics, l1_hits=cached - int(misses.sum()), l1_misses=int(misses.sum()),
        instruction_cache_hits=int(code_hits.sum()))


def fast(plan: SimtPlan, max_cycles: int | None = None) -> SimtCounters:
    best = None
    for index in range(len(plan.candidates)):
        counters = count(plan, index)
        if best is None or counters.cycles < best.cycles:
            best = counters
    if max_cycles is not None and best.cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {best.cycles} cycles exceed max_cycles={max_cycles}")
    return best
