"""A kernel as a schedule of warp work (pure data) and the occupancy it allows.

CTAs are numbered in launch order; each has warps, each warp a sequence of instruction groups
(a loop iteration batch, a block, a main-loop stage). A group costs issue cycles on its warp's
scheduler and exposes dependent latency (the loads its next instructions wait for). Memory traffic
is per CTA: bytes through the SM's L1 / shared memory and 32-byte sectors through its L2 port (the
L1 keeps what the CTA already fetched: a sector the CTA requested before is an L1 hit). A kernel may
also list, per CTA, the distinct sectors of its read-only loads (``cached_sectors``): those go
through the SM's L1 data cache shared by the CTAs resident on the SM, and only its misses reach the
L2 port (the counting paths decide hits, since which CTAs share an SM is decided at run time).
DRAM moves the kernel's compulsory footprint when it fits the L2; past it the counting paths walk an L2 model over
the reads the plan lists (plan/l2.py). A kernel that adds into memory with
atomics lists its atomic requests (one warp instruction's atomics to one sector: the CTA, the sector,
the operations on its most-updated address); :func:`atomic_demands` turns them into each CTA's demand
on each L2 slice's atomic unit. A kernel of generated code (one code block per CTA row block) lists each CTA's
block and the block's sectors: the SM's instruction cache may hold it for the SM's later CTAs (the counting paths
decide, as for the L1).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from accel_sim.foundations.compiled import compiled_loop
from accel_sim.foundations.errors import InputError
from accel_sim.models.simt.plan.l2 import GemmReads
from accel_sim.models.simt.plan.machine import Machine


@dataclass(frozen=True, eq=False)
class AtomicRequests:
    """A kernel's atomic requests, one per warp instruction and sector it adds into, CTA-major: the CTA, the sector
    (global sector number of the array added into), the operations on its most-updated address (>= 1)."""

    cta: np.ndarray
    sector: np.ndarray
    serial: np.ndarray


@dataclass(frozen=True, eq=False)
class AtomicRuns:
    """Atomic requests in runs of consecutive sectors, one operation per address: ``count[i]`` sectors from
    ``first[i]`` for CTA ``run_cta[i]`` (CTA-major). The requests one by one (:func:`atomic_runs`) are listed only when
    read: :func:`atomic_demands` counts each run's requests per L2 slice in closed form."""

    run_cta: np.ndarray
    first: np.ndarray
    count: np.ndarray

    @cached_property
    def listed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return atomic_runs(self.run_cta, self.first, self.count)

    @cached_property
    def _demands(self) -> dict:
        return {}

    def demands(self, slices: int) -> tuple[np.ndarray, np.ndarray] | None:
        """:func:`run_demands` on ``slices`` slices, kept: the plans sharing the schedule (what-ifs of the L2, warm-L2
        twins) ask again."""
        if slices not in self._demands:
            self._demands[slices] = run_demands(self, slices)
        return self._demands[slices]

    @property
    def cta(self) -> np.ndarray:
        return self.listed[0]

    @property
    def sector(self) -> np.ndarray:
        return self.listed[1]

    @property
    def serial(self) -> np.ndarray:
        return self.listed[2]


@dataclass(frozen=True, eq=False)
class Schedule:
    kernel: str
    threads_per_cta: int
    registers_per_thread: int
    shared_memory_per_cta: int      # bytes
    warp_cta: np.ndarray            # (warps,) CTA of each warp, non-decreasing (launch order)
    group_warp: np.ndarray          # (groups,) warp of each instruction group, non-decreasing
    group_issue: np.ndarray         # (groups,) scheduler issue cycles
    group_latency: np.ndarray       # (groups,) exposed dependent latency, cycles
    cta_l1_bytes: np.ndarray        # (ctas,) bytes through L1 / shared memory
    cta_l2_sectors: np.ndarray      # (ctas,) sectors through the SM's L2 port (reads, stores, atomics)
    dram_read_bytes: int
    dram_write_bytes: int
    dense_operand_bytes: int        # of dram_read_bytes: B (the activations), L2-resident when the L2 is warm
    fmas: int                       # CUDA-core multiply-adds executed (lane operations)
    tensor_macs: int                # tensor-core MACs executed (padding included)
    products: int                   # products with stored operand values (<= the dense layer's MACs)
    atomics: int                    # atomic sector transactions at L2 (inside cta_l2_sectors)
    tensor_core: bool               # runs on the tensor cores (peak rate) rather than the CUDA cores
    cached_ptr: np.ndarray | None = None       # (ctas + 1,) bounds of each CTA's run in cached_sectors
    cached_sectors: np.ndarray | None = None   # read-only load sectors through the SM's L1, distinct and sorted per
    #                                            CTA (global sector numbers); not in cta_l2_sectors (only misses are)
    atomic: AtomicRequests | AtomicRuns | None = None   # the atomic requests, listed or in runs (atomic_cta, ...)
    code_block: np.ndarray | None = None       # (ctas,) the generated code each CTA runs (an index into code_sectors)
    code_sectors: np.ndarray | None = None     # (codes,) sectors of each code block (inside cta_l2_sectors: a CTA whose
    #                                            code the SM's instruction cache holds fetches none of it)
    gemm_reads: GemmReads | None = None        # a dense GEMM's A and B tile reads (inside cta_l2_sectors), listed for
    #                                            the L2 model when the footprint overflows the L2 (plan/l2.py)
    gemm_l2_sectors: int = 0                   # of cta_l2_sectors' sum, the sectors of gemm_reads
    in_flight_bytes_per_cta: int = 0           # bytes of loads a CTA keeps in flight at once, where the kernel's
    #                                            model states it (dense_gemv: one iteration's); 0: not stated

    @property
    def atomic_cta(self) -> np.ndarray | None:
        """(requests,) CTA of each atomic request (one warp instruction, one sector), CTA-major; None: no atomics."""
        return None if self.atomic is None else self.atomic.cta

    @property
    def atomic_sector(self) -> np.ndarray | None:
        """(requests,) each atomic request's sector (global sector number of the array added into)."""
        return None if self.atomic is None else self.atomic.sector

    @property
    def atomic_serial(self) -> np.ndarray | None:
        """(requests,) operations on each atomic request's most-updated address (>= 1)."""
        return None if self.atomic is None else self.atomic.serial

    @property
    def listed_read_bytes(self) -> int:
        """Bytes of dram_read_bytes whose sectors the schedule lists for the L2 model: A and B of a dense GEMM, B
        of a kernel with read-only loads through the L1, none otherwise."""
        if self.gemm_reads is not None:
            return self.dram_read_bytes
        return self.dense_operand_bytes if self.cached_ptr is not None else 0

    @property
    def listed_l2_sectors(self) -> int:
        """Of cta_l2_sectors' sum, the sectors the L2 model looks up from the plan's lists (GEMM tiles, atomics)."""
        return self.gemm_l2_sectors + self.atomics

    @property
    def ctas(self) -> int:
        return int(self.cta_l1_bytes.size)

    @property
    def warps(self) -> int:
        return int(self.warp_cta.size)

    def longest_warp_cycles(self) -> int:
        """The longest chain of issue and exposed latency of one warp: no launch order or CTA placement
        ends the kernel sooner."""
        return int(np.bincount(self.group_warp, weights=self.group_issue + self.group_latency,
                               minlength=self.warps).max())


def occupancy(m: Machine, schedule: Schedule, where: str) -> int:
    """Resident CTAs per SM: the smallest of the CTA, thread, register and shared-memory limits.
    A CTA that cannot fit one SM is an input error naming the limit."""
    threads, smem = schedule.threads_per_cta, schedule.shared_memory_per_cta
    if threads > m.max_threads_per_cta or threads > m.max_threads:
        raise InputError.single(where, "simt.threads_per_cta", f"kernel {schedule.kernel} needs {threads} threads "
                                f"per CTA; the SM allows {min(m.max_threads_per_cta, m.max_threads)}")
    if smem > m.shared_memory:
        raise InputError.single(where, "simt", f"kernel {schedule.kernel} needs {smem} bytes of shared memory "
                                f"per CTA; the SM has {m.shared_memory}")
    registers = threads * schedule.registers_per_thread
    if registers > m.registers:
        raise InputError.single(where, "simt", f"kernel {schedule.kernel} needs {registers} registers per CTA; "
                                f"the SM has {m.registers}")
    limits = [m.max_ctas, m.max_threads // threads, m.registers // registers]
    if smem:
        limits.append(m.shared_memory // smem)
    return min(limits)


def l1_lines(m: Machine, schedule: Schedule, resident: int) -> int:
    """Lines of the SM's L1 data cache while ``resident`` CTAs of the kernel share it: the combined array less the
    smallest shared-memory carveout holding their shared memory (their shared memory itself when none does)."""
    need = resident * schedule.shared_memory_per_cta
    carveout = next((c for c in m.carveouts if c >= need), need)
    return max(0, m.l1_shared_memory - carveout) // m.line


def atomic_demands(m: Machine, schedule: Schedule) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each CTA's demand on each L2 slice's atomic unit: ``(cta, slice, cycles)`` per pair with requests, CTA-major
    then slice. A request goes to slice ``sector % l2_slices`` and holds its atomic unit ``l2_atomic_cycles`` per
    operation on its most-updated address (the operations on one address are serialised)."""
    runs = getattr(schedule, "atomic", None)
    if isinstance(runs, AtomicRuns):                        # before the requests are listed: maybe they need not be
        demands = runs.demands(m.l2_slices)
        if demands is not None:
            pairs, operations = demands
            return pairs // m.l2_slices, pairs % m.l2_slices, operations * m.l2_atomic_cycles
    cta, sector, serial = schedule.atomic_cta, schedule.atomic_sector, schedule.atomic_serial
    if cta is None or cta.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    cta = np.asarray(cta, dtype=np.int64)
    kernel = _compiled_table()
    keys = (int(cta.max()) + 1) * m.l2_slices                  # above every (cta, slice) key
    if kernel is not None and keys <= ATOMIC_TABLE_PER_REQUEST * cta.size:
        # one compiled pass: each key's requests and operations (whole numbers: the float sums' exact values)
        requests, operations = kernel(cta, np.asarray(sector, dtype=np.int64), np.asarray(serial, dtype=np.int64),
                                      m.l2_slices, keys)
        pairs = np.flatnonzero(requests)
        return pairs // m.l2_slices, pairs % m.l2_slices, operations[pairs] * m.l2_atomic_cycles
    key = cta * m.l2_slices + np.asarray(sector) % m.l2_slices
    weights = np.asarray(serial, dtype=np.float64) * m.l2_atomic_cycles
    keys = int(key.max()) + 1
    if keys <= ATOMIC_TABLE_PER_REQUEST * key.size:
        # a table of every (cta, slice) key: the present keys in order, each one's sum added in request order
        # (as np.unique's sort and a bincount over its inverse give them, without the sort)
        pairs = np.flatnonzero(np.bincount(key, minlength=keys))
        cycles = np.bincount(key, weights=weights, minlength=keys)[pairs]
    else:
        pairs, inverse = np.unique(key, return_inverse=True)
        cycles = np.bincount(inverse, weights=weights)
    return pairs // m.l2_slices, pairs % m.l2_slices, cycles.round().astype(np.int64)


def run_demands(runs: AtomicRuns, slices: int) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`atomic_demands`' present ``cta * slices + slice`` keys, rising, and their requests (one operation each),
    counted per run in closed form: a run of ``count`` sectors from ``first`` puts ``count // slices`` on every slice
    and one more on each of the ``count % slices`` slices from ``first``'s on. None when the runs are too short for
    that to beat listing the requests (more (run, slice) pairs or (CTA, slice) keys than ATOMIC_TABLE_PER_REQUEST per
    request)."""
    cta = np.asarray(runs.run_cta, dtype=np.int64).ravel()
    first = np.asarray(runs.first, dtype=np.int64).ravel()
    count = np.asarray(runs.count, dtype=np.int64).ravel()
    requests = int(count.sum())
    if cta.size == 0 or requests == 0 or max(cta.size, int(cta.max()) + 1) * slices > ATOMIC_TABLE_PER_REQUEST * requests:
        return None
    offset = np.arange(slices, dtype=np.int32)[None, :] - (first % slices).astype(np.int32)[:, None]
    offset[offset < 0] += slices                                     # each slice's first sector's place in the run
    per_slice = (offset < (count % slices).astype(np.int32)[:, None]).astype(np.int64)
    per_slice += (count // slices)[:, None]
    keys = cta[:, None] * slices + np.arange(slices, dtype=np.int64)[None, :]
    if bool(np.all(cta[1:] > cta[:-1])):                             # a run per CTA: its keys are its own, rising
        present = per_slice > 0
        return keys[present], per_slice[present]
    table = np.bincount(keys.ravel(), weights=per_slice.ravel(), minlength=(int(cta.max()) + 1) * slices)
    pairs = np.flatnonzero(table)
    return pairs, table[pairs].astype(np.int64)                      # whole numbers: the float sums are exact


def atomic_table(cta: np.ndarray, sector: np.ndarray, serial: np.ndarray, slices: int, keys: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Per (cta, slice) key ``cta * slices + sector % slices`` below ``keys``: its requests and the operations on their
    most-updated addresses, summed; the loop numba compiles (plain Python too). A sector after its predecessor (runs
    of consecutive sectors) takes the next slice without a division."""
    requests = np.zeros(keys, dtype=np.int64)
    operations = np.zeros(keys, dtype=np.int64)
    at = 0
    for i in range(cta.size):
        if i > 0 and sector[i] == sector[i - 1] + 1:
            at = at + 1 if at + 1 < slices else 0
        else:
            at = sector[i] % slices
        key = cta[i] * slices + at
        requests[key] += 1
        operations[key] += serial[i]
    return requests, operations


def _compiled_table():
    """:func:`atomic_table` compiled by numba (:func:`compiled_loop`), or None when numba is not installed."""
    return compiled_loop(atomic_table)


ATOMIC_TABLE_PER_REQUEST = 4   # atomic_demands tables the (cta, slice) keys when there are at most this many per request


def atomic_runs(cta: np.ndarray, first: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Atomic requests of runs of consecutive sectors, one operation per address: ``count[i]`` sectors from
    ``first[i]`` for CTA ``cta[i]``, as ``(cta, sector, serial)`` per request."""
    count = np.asarray(count, dtype=np.int64).ravel()
    total = int(count.sum())
    # request i of run r is sector first[r] + (i - the run's first request): one repeat of first less that start
    sector = np.repeat(np.asarray(first, dtype=np.int64).ravel() - (np.cumsum(count) - count), count)
    sector += np.arange(total, dtype=np.int64)
    return np.repeat(np.asarray(cta, dtype=np.int64).ravel(), count), sector, np.ones(total, dtype=np.int64)


def ceil_div(a: np.ndarray, b: int) -> np.ndarray:
    return -(-np.asarray(a, dtype=np.int64) // b)


def per_cta(values: np.ndarray, cta: np.ndarray, ctas: int) -> np.ndarray:
    """Sum of per-item ``values`` by CTA (integers)."""
    return np.bincount(np.asarray(cta, dtype=np.int64), weights=np.asarray(values, dtype=np.float64),
                       minlength=ctas).round().astype(np.int64)
