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
  rounding). DRAM moves the compulsory footprint while it fits the L2; past it, without a set model
  (``simt.l2_ways`` 0) every sector requested from L2 comes from DRAM, and with one the L2 is a set-associative sector
  cache (LRU) that the kernel's listed reads (GEMM tiles, read-only loads past the L1, atomic adds)
  walk CTA by CTA in launch order (a CTA's start order: dispatch never starts a later CTA sooner), DRAM reading the
  sectors it misses, and every other L2 sector comes from DRAM (at least its footprint). A candidate whose time
  without the walk already reaches the fastest so far is not walked (the walk only adds DRAM reads).
- Atomic adds execute in the atomic unit of their sector's L2 slice, a FIFO server per slice of each
  CTA's demand on it, arriving when the CTA starts (the same drain); the kernel ends when every slice
  is done.
"""
from __future__ import annotations

import functools
import heapq
import weakref

import numpy as np

from accel_sim.foundations.compiled import compiled_loop
from accel_sim.foundations.errors import SimulationError
from accel_sim.models.simt.counters import SimtCounters
from accel_sim.models.simt.plan import Candidate, SimtPlan
from accel_sim.models.simt.plan.l2 import listed_atomics, listed_reads, output_base
from accel_sim.models.simt.plan.schedule import Schedule

BITS_PER_BYTE = 8
WALK_TABLE_ENTRIES = 1 << 22   # the compiled L1 walk's table entries (lines, SMs x code blocks) at most: about 100 MB


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

    def access(self, tags: np.ndarray, wanted: np.ndarray, stamp: int, missing: np.ndarray | None = None) -> int:
        """Sector hits of a CTA's distinct sorted line ``tags`` with ``wanted`` sector masks (looked up before any
        is filled), then the lines filled and the least recently used evicted; ``missing`` (as ``tags``) receives
        each line's sectors that missed."""
        if tags.size == 0 or self.lines == 0:
            return 0
        at = np.searchsorted(self.tags, tags)
        present = np.zeros(tags.size, dtype=bool)
        if self.tags.size:
            present = self.tags[np.minimum(at, self.tags.size - 1)] == tags
        where = at[present]
        found = wanted[present] & self.masks[where]
        if missing is not None:
            missing[present] = wanted[present] & ~found
        hits = int(self.popcount[found].sum())
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


_LINES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # schedule -> {per_line: its cached_lines}


def schedule_lines(s: Schedule, per_line: int) -> tuple[np.ndarray, ...]:
    """:func:`cached_lines` of the schedule's read-only loads, kept while the schedule lives: the plans of one layer
    under what-ifs the schedules never see (``simt.warm_l2``) share its schedules. Nobody edits the arrays."""
    kept = _LINES.setdefault(s, {})
    if per_line not in kept:
        kept[per_line] = cached_lines(s.cached_sectors, s.cached_ptr, per_line)
    return kept[per_line]


def line_runs(sectors: np.ndarray, ptr: np.ndarray, per_line: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`cached_lines` in one pass (each CTA's sorted sectors: a line's sectors are adjacent): the loop numba
    compiles (plain Python too). Sector numbers are not negative: with a power-of-two ``per_line`` a shift and a mask
    divide (no integer division per sector)."""
    ctas = ptr.size - 1
    tags = np.empty(sectors.size, dtype=np.int64)
    masks = np.empty(sectors.size, dtype=np.int64)
    line_ptr = np.zeros(ctas + 1, dtype=np.int64)
    shift = 0
    while (1 << shift) < per_line:
        shift += 1
    power = (1 << shift) == per_line
    one = np.int64(1)
    lines = 0
    for c in range(ctas):
        last = -1                                                    # the CTA's last line (tags are not negative)
        for i in range(ptr[c], ptr[c + 1]):
            sector = sectors[i]
            if power:
                tag, bit = sector >> shift, one << (sector & (per_line - 1))
            else:
                tag, bit = sector // per_line, one << (sector % per_line)
            if tag == last:
                masks[lines - 1] |= bit
            else:
                tags[lines], masks[lines] = tag, bit
                lines += 1
                last = tag
        line_ptr[c + 1] = lines
    return line_ptr, tags[:lines].copy(), masks[:lines].copy()


def l2_walk(tags: np.ndarray, masks: np.ndarray, sets: int, ways: int, popcount: np.ndarray) -> int:
    """Sectors an empty set-associative sector L2 of ``sets`` x ``ways`` lines misses when the lines ``tags`` ask for
    the sectors ``masks``, one after the other: a line's set is its tag modulo ``sets``, a missing line takes the
    set's least recently used way (an empty one first), a present line's missing sectors are filled. The loop numba
    compiles (plain Python too)."""
    held = np.full(sets * ways, -1, dtype=np.int64)
    valid = np.zeros(sets * ways, dtype=np.int64)
    used = np.full(sets * ways, -1, dtype=np.int64)
    misses = 0
    for i in range(tags.size):
        base = (tags[i] % sets) * ways
        way = -1
        oldest = base
        for w in range(base, base + ways):
            if held[w] == tags[i]:
                way = w
                break
            if used[w] < used[oldest]:
                oldest = w
        if way < 0:
            way = oldest
            held[way], valid[way] = tags[i], 0
        misses += popcount[masks[i] & ~valid[way]]
        valid[way] |= masks[i]
        used[way] = i
    return misses


def l2_misses(plan: SimtPlan, c: Candidate, l1_missing: np.ndarray | None) -> int:
    """Sectors of the candidate's listed reads the L2 misses when its footprint overflows the L2 (0 when it fits):
    CTA by CTA in launch order, its GEMM tile reads, then its read-only loads' L1 misses (``l1_missing``: the sectors
    of each line that missed, as :func:`cached_lines` orders the lines), then its atomic adds, each in address order."""
    s, m = c.schedule, plan.machine
    if not c.l2_overflow:
        return 0
    per_line = m.line // m.sector
    ctas = np.arange(s.ctas)
    base = output_base(s.gemm_reads, s.dense_operand_bytes, m.line, m.sector)
    parts = []
    for phase, (ptr, sectors) in enumerate((listed_reads(s.gemm_reads, s.ctas, m.sector, m.line),
                                            (s.cached_ptr, s.cached_sectors),
                                            listed_atomics(s.atomic_cta, s.atomic_sector, s.ctas, base))):
        if ptr is None:
            continue
        line_ptr, tags, masks = schedule_lines(s, per_line) if phase == 1 else cached_lines(sectors, ptr, per_line)
        owner = np.repeat(ctas, np.diff(line_ptr))
        if phase == 1:                                               # only the L1's misses reach the L2
            kept = l1_missing != 0
            owner, tags, masks = owner[kept], tags[kept], l1_missing[kept]
        parts.append((owner * 3 + phase, tags, masks))
    key, tags, masks = (np.concatenate(column) for column in zip(*parts))
    order = np.argsort(key, kind="stable")
    popcount = np.array([bin(v).count("1") for v in range(1 << per_line)], dtype=np.int64)
    kernel = _compiled_dispatch()
    walk = kernel["l2"] if kernel is not None else l2_walk
    return int(walk(np.ascontiguousarray(tags[order], dtype=np.int64), np.ascontiguousarray(masks[order], dtype=np.int64),
                    m.l2_sets, m.l2_ways, popcount))


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
    """:func:`dispatch_keys`, :func:`line_runs`, :func:`l2_walk`, :func:`l1_walk` and :func:`lindley` compiled by numba
    (:func:`compiled_loop`), or None when numba is not installed."""
    if compiled_loop(dispatch_keys) is None:
        return None
    return {"dispatch": compiled_loop(dispatch_keys), "lines": compiled_loop(line_runs), "l2": compiled_loop(l2_walk),
            "l1": compiled_loop(l1_walk), "drains": compiled_loop(lindley)}


def drain(start: np.ndarray, sm: np.ndarray, service: np.ndarray, sms: int) -> np.ndarray:
    """Per SM: when a FIFO server has served every CTA's demand, each arriving at its CTA's start
    (ties in launch order): max over arrivals of (arrival + the services from it on)."""
    return drains(start, sm, (service,), sms)[0]


def drains(start: np.ndarray, sm: np.ndarray, services, sms: int) -> list[np.ndarray]:
    """:func:`drain` of each of ``services`` (the SM's servers), the arrivals ordered once for all of them. Arrivals
    already in order (CTA starts in launch order: dispatch never starts a later CTA sooner) and not negative, with
    numba: :func:`lindley`, compiled, with no sort."""
    kernel = _compiled_dispatch()
    walk = kernel.get("drains") if kernel is not None else None
    start = np.asarray(start, dtype=np.int64)
    whole = all(np.asarray(service).dtype.kind in "iu" for service in services)
    if walk is not None and whole and (start.size == 0 or (start[0] >= 0 and bool(np.all(start[1:] >= start[:-1])))):
        out = np.zeros((len(services), sms), dtype=np.int64)
        walk(start, np.asarray(sm, dtype=np.int64), np.array(services, dtype=np.int64).reshape(len(services), -1), out)
        return list(out)
    radix = int(start.max(initial=0)) + 1
    if radix * max(sms, 1) < 1 << 62:                                # (SM, arrival, launch order) as one stable key
        order = np.argsort(sm * radix + start, kind="stable")
    else:
        order = np.lexsort((np.arange(start.size), start, sm))
    a, k = start[order], sm[order]
    last = np.searchsorted(k, np.arange(sms), side="right")           # end of each SM's run
    first = np.flatnonzero(np.concatenate(([True], k[1:] != k[:-1]))) if k.size else None
    outs = []
    for service in services:
        suffix = np.cumsum(service[order][::-1])[::-1]                # services from here to the end
        after = np.concatenate((suffix, [0]))[last][k]                # services after the SM's run
        out = np.zeros(sms, dtype=np.int64)
        if k.size:                                                    # each SM's run is contiguous: reduce per run
            out[k[first]] = np.maximum.reduceat(a + suffix - after, first)
        outs.append(out)
    return outs


def lindley(start: np.ndarray, sm: np.ndarray, services: np.ndarray, out: np.ndarray) -> None:
    """:func:`drains` when the arrivals ``start`` are in order and not negative: each server of each SM (``out``, servers
    x SMs, zeros) is free again at the later of its free cycle and the arrival, plus the service (Lindley's recursion,
    the same last departure as the suffix-sum maximum: tied arrivals in any order end equal); the loop numba compiles
    (plain Python too)."""
    for i in range(start.size):
        k = sm[i]
        for j in range(services.shape[0]):
            out[j, k] = max(out[j, k], start[i]) + services[j, i]


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


def l1_walk(fixed: np.ndarray, static: np.ndarray, misses: np.ndarray, line_ptr: np.ndarray, tags: np.ndarray,
            masks: np.ndarray, lines: int, table: int, sms: int, slots: int, code_block: np.ndarray,
            code_sectors: np.ndarray, capacity: int, sector_bits: int, port_bits: float, popcount: np.ndarray,
            start: np.ndarray, slot: np.ndarray, code_hits: np.ndarray, missing: np.ndarray) -> None:
    """:func:`dispatch_through_l1`'s CTA-by-CTA walk in one loop, the loop numba compiles (plain Python too), filling
    ``start``, ``slot``, ``misses``, ``code_hits`` and ``missing``. Each SM's L1 as :class:`SectorCache` in ``table``
    entries (SMs x (lines + one CTA's lines); 0: the SMs' CTAs do not share the L1): its line tags kept sorted with their valid sectors and last CTA, a CTA's sorted
    lines merged in, then the least recently used (the smallest (CTA, tag) keys) dropped down to ``lines``: per SM a
    queue of its CTAs with the lines each still stamps finds the CTA the eviction stops in, no sort. The instruction caches as :class:`CodeCache` over whole blocks (``capacity`` 0: none): per SM a queue of
    its fetches in CTA order, the entry of a block fetched again since stale, evicting from the oldest live entry. The
    free slots as :func:`dispatch_keys`' heap of free cycle x slots + slot."""
    room = table // sms if lines > 0 else 0                         # lines an SM holds, and one CTA's more
    held_tag = np.empty((sms, room), dtype=np.int64)                 # per SM, sorted; only [0, held) is ever read
    valid = np.empty((sms, room), dtype=np.int64)                    # (not zeroed: the table is up to 100 MB)
    stamp = np.empty((sms, room), dtype=np.int64)
    held = np.zeros(sms, dtype=np.int64)
    merged = np.empty((3, room), dtype=np.int64)                     # written before it is read
    live = np.zeros(fixed.size, dtype=np.int64)                      # lines an SM holds stamped with each CTA
    lru_next = np.full(fixed.size, -1, dtype=np.int64)               # per SM a queue of its CTAs, in CTA order
    lru_head = np.full(sms, -1, dtype=np.int64)
    lru_tail = np.full(sms, -1, dtype=np.int64)
    blocks = code_sectors.size
    code_used = np.full(sms * blocks, -1, dtype=np.int64)            # (SM, block) -> the CTA that last ran it
    code_next = np.full(fixed.size, -1, dtype=np.int64)
    code_head = np.full(sms, -1, dtype=np.int64)
    code_tail = np.full(sms, -1, dtype=np.int64)
    code_held = np.zeros(sms, dtype=np.int64)
    free = [np.int64(0)]
    free.pop()
    for cta in range(fixed.size):
        if cta < slots:
            t, k = 0, cta
        else:
            key = heapq.heappop(free)
            t, k = key // slots, key % slots
        start[cta], slot[cta] = t, k
        sm = k % sms
        lo, hi = line_ptr[cta], line_ptr[cta + 1]
        if room > 0 and hi > lo:
            size = held[sm]
            hits = 0
            j = 0
            out = 0
            for i in range(lo, hi):                                  # merge the CTA's lines into the SM's
                while j < size and held_tag[sm, j] < tags[i]:
                    merged[0, out], merged[1, out], merged[2, out] = held_tag[sm, j], valid[sm, j], stamp[sm, j]
                    out += 1
                    j += 1
                have = 0
                if j < size and held_tag[sm, j] == tags[i]:
                    have = valid[sm, j]
                    live[stamp[sm, j]] -= 1                          # the line is the CTA's now
                    j += 1
                hits += popcount[masks[i] & have]
                missing[i] = masks[i] & ~have
                merged[0, out], merged[1, out], merged[2, out] = tags[i], have | masks[i], cta
                out += 1
            while j < size:
                merged[0, out], merged[1, out], merged[2, out] = held_tag[sm, j], valid[sm, j], stamp[sm, j]
                out += 1
                j += 1
            misses[cta] -= hits
            live[cta] = hi - lo
            if lru_tail[sm] < 0:
                lru_head[sm] = cta
            else:
                lru_next[lru_tail[sm]] = cta
            lru_tail[sm] = cta
            evict = out - lines
            kept = 0
            if evict > 0:                 # the oldest (CTA, tag) go: every line of the CTAs before the oldest one
                oldest, before = lru_head[sm], 0      # kept, and that one's lowest tags (the lines are in tag order)
                while before + live[oldest] < evict:
                    before += live[oldest]
                    oldest = lru_next[oldest]
                drop = evict - before
                for e in range(out):
                    if merged[2, e] < oldest:
                        continue
                    if merged[2, e] == oldest and drop > 0:
                        drop -= 1
                        continue
                    held_tag[sm, kept], valid[sm, kept], stamp[sm, kept] = merged[0, e], merged[1, e], merged[2, e]
                    kept += 1
                live[oldest] -= evict - before
                lru_head[sm] = oldest
            else:
                for e in range(out):
                    held_tag[sm, e], valid[sm, e], stamp[sm, e] = merged[0, e], merged[1, e], merged[2, e]
                kept = out
            held[sm] = kept
        if capacity > 0:
            block = code_block[cta]
            size = code_sectors[block]
            key = sm * blocks + block
            queued = False
            if code_used[key] >= 0:
                code_hits[cta] = size
                code_used[key] = cta
                queued = True
            elif 0 < size <= capacity:
                code_used[key] = cta
                code_held[sm] += size
                queued = True
            if queued:
                if code_tail[sm] < 0:
                    code_head[sm] = cta
                else:
                    code_next[code_tail[sm]] = cta
                code_tail[sm] = cta
            while code_held[sm] > capacity:
                e = code_head[sm]
                code_head[sm] = code_next[e]
                key = sm * blocks + code_block[e]
                if code_used[key] == e:
                    code_used[key] = -1
                    code_held[sm] -= code_sectors[code_block[e]]
            if code_head[sm] < 0:
                code_tail[sm] = -1
        port = np.int64(np.ceil((static[cta] + misses[cta] - code_hits[cta]) * sector_bits / port_bits))
        heapq.heappush(free, (t + max(fixed[cta], port)) * slots + k)


def dispatch_through_l1(plan: SimtPlan, c: Candidate, fixed: np.ndarray) -> tuple[np.ndarray, ...]:
    """Start cycle, slot, L1 misses and instruction-cache hits (sectors) of each CTA, and the sectors each cached line
    missed (None when the SM's CTAs do not share the L1: every one), when its time is the largest of
    ``fixed`` and its L2-port cycles, which count its L1 misses (every cached sector when the SM's CTAs do not share
    the L1) and its code unless the SM's instruction cache holds it (dispatch as :func:`dispatch`)."""
    s, m = c.schedule, plan.machine
    slots = m.sms * c.ctas_per_sm
    start = np.zeros(s.ctas, dtype=np.int64)
    slot = np.arange(s.ctas, dtype=np.int64)
    shared_l1 = s.cached_ptr is not None and m.sm_l1
    misses = np.zeros(s.ctas, dtype=np.int64) if s.cached_ptr is None else np.diff(s.cached_ptr)
    missing = None
    if shared_l1:
        per_line = m.line // m.sector
        popcount = np.array([bin(v).count("1") for v in range(1 << per_line)], dtype=np.int64)
        caches = [SectorCache(c.l1_lines, popcount) for _ in range(m.sms)]
        line_ptr, tags, masks = schedule_lines(s, per_line)
        missing = masks.copy()
    code = s.code_block is not None and m.instruction_cache > 0
    code_hits = np.zeros(s.ctas, dtype=np.int64)
    port_bits = BITS_PER_BYTE * m.l2_port_bandwidth
    kernel = _compiled_dispatch()
    longest = int(np.maximum(fixed, link_cycles((s.cta_l2_sectors + misses) * m.sector * BITS_PER_BYTE,
                                                m.l2_port_bandwidth)).sum())
    table = 0
    if shared_l1 and c.l1_lines > 0:                                 # room for the lines held and one CTA's more
        batch = int(np.diff(line_ptr).max(initial=0))
        table = m.sms * (c.l1_lines + batch)
    blocks = s.code_sectors.size if code else 0
    if kernel is not None and (longest + 1) * slots < 1 << 62 and table + m.sms * blocks <= WALK_TABLE_ENTRIES:
        empty = np.zeros(0, dtype=np.int64)
        kernel["l1"](np.asarray(fixed, dtype=np.int64), s.cta_l2_sectors.astype(np.int64), misses,
                     line_ptr if shared_l1 else np.zeros(s.ctas + 1, dtype=np.int64), tags if shared_l1 else empty,
                     masks if shared_l1 else empty, c.l1_lines, table, m.sms, slots,
                     s.code_block.astype(np.int64) if code else empty, s.code_sectors.astype(np.int64) if code else empty,
                     m.instruction_cache if code else 0, m.sector * BITS_PER_BYTE, port_bits,
                     popcount if shared_l1 else np.zeros(1, dtype=np.int64), start, slot, code_hits,
                     missing if shared_l1 else empty)
        return start, slot, misses, code_hits, missing
    code_caches = [CodeCache(m.instruction_cache) for _ in range(m.sms)]
    static = s.cta_l2_sectors.tolist()
    free: list[tuple[int, int]] = []
    for cta in range(s.ctas):
        t, k = (0, cta) if cta < slots else heapq.heappop(free)
        start[cta], slot[cta] = t, k
        if shared_l1:
            lo, hi = line_ptr[cta], line_ptr[cta + 1]
            misses[cta] -= caches[k % m.sms].access(tags[lo:hi], masks[lo:hi], cta, missing[lo:hi])
        if code:
            block = int(s.code_block[cta])
            code_hits[cta] = code_caches[k % m.sms].fetch(block, int(s.code_sectors[block]))
        port = int(np.ceil((static[cta] + int(misses[cta]) - int(code_hits[cta])) * m.sector * BITS_PER_BYTE / port_bits))
        heapq.heappush(free, (t + max(int(fixed[cta]), port), k))
    return start, slot, misses, code_hits, missing


def count(plan: SimtPlan, index: int, bound: int | None = None) -> SimtCounters | None:
    """One candidate's counters; None when its time is already at least ``bound`` before the atomic units' drain
    and the L2 walk (every bound but theirs, DRAM's without the listed reads' misses), or, when its footprint
    overflows the L2 of a set model, with the atomic units' but before the walk: they could only add cycles, so it
    would not be faster (ties keep the earlier candidate)."""
    c = plan.candidates[index]
    s, m = c.schedule, plan.machine
    chain, issue, l1, l2port = cta_demands(plan, c)
    fixed = np.maximum.reduce([chain, issue, l1, np.ones_like(chain)])
    code_hits = np.zeros(s.ctas, dtype=np.int64)
    missing = None
    if s.cached_ptr is None and (s.code_block is None or m.instruction_cache == 0):
        misses = np.zeros(s.ctas, dtype=np.int64)
        start, slot = dispatch(np.maximum(fixed, l2port), m.sms * c.ctas_per_sm)
    elif not m.sm_l1 and (s.code_block is None or m.instruction_cache == 0):   # each CTA's L1 its own: every sector misses
        misses = np.diff(s.cached_ptr)
        l2port = link_cycles((s.cta_l2_sectors + misses) * m.sector * BITS_PER_BYTE, m.l2_port_bandwidth)
        start, slot = dispatch(np.maximum(fixed, l2port), m.sms * c.ctas_per_sm)
    else:                                                            # hits decided CTA by CTA on the SM it lands on
        start, slot, misses, code_hits, missing = dispatch_through_l1(plan, c, fixed)
        l2port = link_cycles((s.cta_l2_sectors + misses - code_hits) * m.sector * BITS_PER_BYTE, m.l2_port_bandwidth)
    durations = np.maximum(fixed, l2port)
    sm = slot % m.sms
    ends = np.zeros(m.sms, dtype=np.int64)
    np.maximum.at(ends, sm, start + durations)
    served = np.maximum.reduce(drains(start, sm, (issue, l1, l2port), m.sms))
    sm_cycles = int(np.maximum(ends, served).max())
    sectors = int(s.cta_l2_sectors.sum() + misses.sum() - code_hits.sum())
    cached = 0 if s.cached_ptr is None else int(s.cached_ptr[-1])
    l2_cycles = bus_cycles(sectors * m.sector * BITS_PER_BYTE, m.l2_bandwidth)
    dram_read, missed = c.dram_read_bytes, 0
    if c.l2_overflow and m.l2_ways == 0:                             # no set model: every L2 sector from DRAM
        dram_read = max(c.dram_read_bytes, sectors * m.sector - c.dram_write_bytes)
    elif c.l2_overflow:   # the listed reads' L2 misses; every other sector from DRAM (at least their footprint)
        other = sectors - int(misses.sum()) - s.listed_l2_sectors
        dram_read = max(c.dram_read_bytes - s.listed_read_bytes, other * m.sector - c.dram_write_bytes)
    unlisted = bus_cycles((dram_read + c.dram_write_bytes) * BITS_PER_BYTE, m.dram_bandwidth)   # without the walk
    if bound is not None and max(sm_cycles, l2_cycles, unlisted) >= bound:
        return None
    atomic_cycles = int(drain(start[c.atomic_cta], c.atomic_slice, c.atomic_cycles, m.l2_slices).max()) \
        if c.atomic_cta.size else 0
    if c.l2_overflow and m.l2_ways > 0:
        if bound is not None and atomic_cycles >= bound:
            return None
        if s.cached_ptr is not None and missing is None:             # every cached sector went to L2
            missing = schedule_lines(s, m.line // m.sector)[2]
        missed = l2_misses(plan, c, missing)
        dram_read += missed * m.sector
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
        instruction_cache_hits=int(code_hits.sum()), l2_misses=missed)


def fast(plan: SimtPlan, max_cycles: int | None = None) -> SimtCounters:
    best = None
    for index in range(len(plan.candidates)):
        counters = count(plan, index, None if best is None else best.cycles)
        if counters is not None and (best is None or counters.cycles < best.cycles):
            best = counters
    if max_cycles is not None and best.cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {best.cycles} cycles exceed max_cycles={max_cycles}")
    return best
