"""The SIMT family's compiled loops (numba: sector lists, CTA dispatch, L1 line runs, the L1 and L2 walks), the same loops in plain Python and the numpy / heapq / cache-class paths agree (a refinement file: tools/mutation.py runs it, so a wrong fallback path is caught)."""
import numpy as np
import pytest

from accel_sim.models.simt.plan import sectors


def test_sector_lists_equal_on_every_path(monkeypatch):
    rng = np.random.default_rng(7)
    ctas = 9
    cta = np.sort(rng.integers(0, ctas, 300))
    first = np.zeros(cta.size, dtype=np.int64)
    for c in range(ctas):   # rising addresses inside a CTA, ranges that touch, overlap, or are empty
        mine = cta == c
        first[mine] = np.cumsum(rng.integers(0, 70, int(mine.sum())))
    nbytes = rng.integers(0, 100, cta.size)
    compiled = sectors.cta_sector_lists(cta, first, nbytes, 32, ctas)
    monkeypatch.setattr(sectors, "_compiled", lambda: sectors.listed_sectors)
    plain = sectors.cta_sector_lists(cta, first, nbytes, 32, ctas)
    monkeypatch.setattr(sectors, "_compiled", lambda: None)
    numpy_path = sectors.cta_sector_lists(cta, first, nbytes, 32, ctas)
    for got in (compiled, plain):
        assert all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(got, numpy_path))
    empty = sectors.cta_sector_lists(np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0), 32, 3)
    assert list(empty[0]) == [0, 0, 0, 0] and empty[1].size == 0


def test_dispatch_equal_on_every_path(monkeypatch):
    from accel_sim.models.simt import fast
    rng = np.random.default_rng(3)
    durations = rng.integers(1, 50, 500)
    durations[::7] = durations[1::7][:durations[::7].size]   # ties between slots
    compiled = fast.dispatch(durations, 12)
    monkeypatch.setattr(fast, "_compiled_dispatch", lambda: {"dispatch": fast.dispatch_keys, "lines": fast.line_runs})
    plain = fast.dispatch(durations, 12)
    monkeypatch.setattr(fast, "_compiled_dispatch", lambda: None)
    heap = fast.dispatch(durations, 12)
    assert all(np.array_equal(a, b) for got in (compiled, plain) for a, b in zip(got, heap))


@pytest.mark.parametrize("per_line", [4, 3], ids=["shift", "division"])
def test_line_runs_equal_on_every_path(monkeypatch, per_line):
    from accel_sim.models.simt import fast
    rng = np.random.default_rng(4)
    sizes = rng.integers(0, 40, 25)
    ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    sectors = np.concatenate([np.sort(rng.choice(200, n, replace=False)) for n in sizes]).astype(np.int64)
    compiled = fast.cached_lines(sectors, ptr, per_line)
    monkeypatch.setattr(fast, "_compiled_dispatch", lambda: {"dispatch": fast.dispatch_keys, "lines": fast.line_runs})
    plain = fast.cached_lines(sectors, ptr, per_line)
    monkeypatch.setattr(fast, "_compiled_dispatch", lambda: None)
    numpy_path = fast.cached_lines(sectors, ptr, per_line)
    assert all(a.dtype == b.dtype and np.array_equal(a, b) for got in (compiled, plain) for a, b in zip(got, numpy_path))


def test_l2_walk_equal_compiled_and_plain():
    from accel_sim.models.simt import fast
    rng = np.random.default_rng(11)
    tags = rng.integers(0, 60, 2000)
    masks = rng.integers(1, 16, 2000)
    popcount = np.array([bin(v).count("1") for v in range(16)], dtype=np.int64)
    compiled = fast._compiled_dispatch()["l2"](tags, masks, 5, 3, popcount)
    assert compiled == fast.l2_walk(tags, masks, 5, 3, popcount) > 0


def test_l1_walk_equal_compiled_plain_and_the_cache_classes(monkeypatch):
    """dispatch_through_l1 on a sparsert layer with a small L1 and instruction cache (evictions in both, CTAs waiting
    for slots): the compiled walk, the same walk in plain Python and the SectorCache / CodeCache loop agree."""
    from accel_sim.foundations.workload import GemmLayer
    from accel_sim.models.simt import fast
    from accel_sim.models.simt.family import FAMILY
    from tests.simt.archs import simt
    arch = simt({"sms": 2}, kernel="sparsert", sparsert_rows=(2,), sparsert_tile_n=(32,), l1_shared_memory_bytes=2048, max_ctas_per_sm=2,
                shared_memory_carveouts=(0,), instruction_cache_bytes=12288)
    layer = GemmLayer("g", m=90, k=64, n=40, weight_density=0.3)   # 90 columns of B: partial lines
    plan = FAMILY.plan(arch, layer)
    c = plan.candidates[0]
    fixed = np.maximum.reduce(list(fast.cta_demands(plan, c)[:3]) + [np.ones(c.schedule.ctas, dtype=np.int64)])
    paths, classes = _dispatch_three_ways(monkeypatch, plan, c, fixed)
    assert classes[3].sum() > 0 and 0 < (np.diff(c.schedule.cached_ptr) - classes[2]).sum() and classes[0].max() > 0
    for got in paths:
        assert all(np.array_equal(a, b) for a, b in zip(got, classes))


def test_span_sectors_shift_equals_floor_division():
    rng = np.random.default_rng(5)
    start, nbytes = rng.integers(-1000, 10**9, 5000), rng.integers(-3, 500, 5000)
    for sector in (1, 32, 64):
        end = start + np.maximum(nbytes, 1) - 1
        assert np.array_equal(sectors.span_sectors(start, nbytes, sector),
                              np.where(nbytes > 0, end // sector - start // sector + 1, 0))


def test_row_segments_by_phase_equal_row_by_row():
    """Rows' sectors looked up by their phase in a sector, and summed per owner by phase counts, equal each row's
    own span summed with np.add.at."""
    from accel_sim.models.simt.plan import spmm
    rng = np.random.default_rng(6)
    for n, vb in ((49, 4), (196, 4), (128, 2), (3, 1)):
        starts, widths = spmm._tiles(n, 32)
        rows = rng.integers(0, 500, 300)
        owner = np.sort(rng.integers(0, 7, 300))
        direct = sectors.span_sectors((rows[:, None] * n + starts[None, :]) * vb,
                                      np.broadcast_to(widths * vb, (rows.size, starts.size)), 32)
        assert np.array_equal(spmm._row_segments(rows, starts, widths, n, vb, 32), direct)
        summed = np.zeros((7, starts.size), dtype=np.int64)
        np.add.at(summed, owner, direct)
        assert np.array_equal(spmm._summed_row_segments(owner, 7, rows, starts, widths, n, vb, 32), summed)


def test_atomic_table_equal_compiled_plain_and_numpy(monkeypatch):
    """The atomic units' demands (plan/schedule.atomic_demands): the compiled table, the same loop in plain Python and
    the numpy bincount agree, on runs of consecutive sectors (the slice stepped without a division), wrapping past the
    last slice, and scattered sectors with several operations per address."""
    from types import SimpleNamespace

    from accel_sim.models.simt.plan import schedule
    rng = np.random.default_rng(11)
    cta, sector, serial = schedule.atomic_runs(np.arange(40), rng.integers(0, 500, 40), rng.integers(0, 12, 40))
    scattered = np.sort(rng.integers(0, 40, 300))
    requests = SimpleNamespace(atomic_cta=np.concatenate((cta, scattered)),
                               atomic_sector=np.concatenate((sector, rng.integers(0, 10 ** 6, 300))),
                               atomic_serial=np.concatenate((serial, rng.integers(1, 5, 300))))
    machine = SimpleNamespace(l2_slices=7, l2_atomic_cycles=3)
    compiled = schedule.atomic_demands(machine, requests)
    monkeypatch.setattr(schedule, "_compiled_table", lambda: schedule.atomic_table)
    plain = schedule.atomic_demands(machine, requests)
    monkeypatch.setattr(schedule, "_compiled_table", lambda: None)
    numpy_path = schedule.atomic_demands(machine, requests)
    assert compiled[0].size > 40
    for got in (compiled, plain):
        assert all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(got, numpy_path))


def test_drains_lindley_equal_compiled_plain_and_the_suffix_sums(monkeypatch):
    """The SMs' FIFO servers' last departures: Lindley's recursion (compiled and plain) over arrivals in order, ties
    and SMs without arrivals included, equals the sort and suffix-sum maximum; unordered arrivals take the sort."""
    from accel_sim.models.simt import fast
    rng = np.random.default_rng(12)
    start = np.sort(rng.integers(0, 400, 3000))
    start[100:140] = start[100]                                      # tied arrivals
    sm = rng.integers(0, 9, start.size)                              # SM 9 of 10 gets none
    services = (rng.integers(0, 30, start.size), rng.integers(1, 5, start.size), np.zeros(start.size, dtype=np.int64))
    compiled = fast.drains(start, sm, services, 10)
    plain = {"dispatch": fast.dispatch_keys, "lines": fast.line_runs, "drains": fast.lindley}
    monkeypatch.setattr(fast, "_compiled_dispatch", lambda: plain)
    paths = [compiled, fast.drains(start, sm, services, 10), fast.drains(start[::-1], sm[::-1], services, 10)]
    monkeypatch.setattr(fast, "_compiled_dispatch", lambda: None)
    suffix = fast.drains(start, sm, services, 10)
    assert suffix[0].max() > start.max() and suffix[0][9] == 0
    for got in paths[:2]:
        assert all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(got, suffix))
    assert all(np.array_equal(a, b) for a, b in zip(paths[2], fast.drains(start[::-1], sm[::-1], services, 10)))


@pytest.mark.parametrize("seed", range(3))
def test_l1_walk_evictions_equal_the_sector_caches(monkeypatch, seed):
    """Random sector lists through L1s of a few lines (evictions stopping inside an older CTA's lines, a CTA with more
    lines than the cache, lines re-stamped by later CTAs): the compiled walk, the plain walk and the SectorCache loop
    give the same starts, slots, misses and missed sectors."""
    from dataclasses import dataclass
    from types import SimpleNamespace

    from accel_sim.models.simt import fast

    @dataclass(eq=False)
    class Lists:                                                     # the schedule fields dispatch_through_l1 reads
        ctas: int
        cached_ptr: np.ndarray
        cached_sectors: np.ndarray
        cta_l2_sectors: np.ndarray
        code_block: None = None
        code_sectors: None = None

    rng = np.random.default_rng(seed)
    ctas = 120
    sizes = rng.integers(0, 40, ctas)
    ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    listed = np.concatenate([np.sort(rng.choice(240, n, replace=False)) for n in sizes]).astype(np.int64)
    s = Lists(ctas, ptr, listed, rng.integers(0, 6, ctas))
    m = SimpleNamespace(sms=3, sm_l1=True, line=128, sector=32, l2_port_bandwidth=64.0, instruction_cache=0)
    plan, c = SimpleNamespace(machine=m), SimpleNamespace(schedule=s, ctas_per_sm=2, l1_lines=int(rng.integers(3, 12)))
    fixed = rng.integers(1, 40, ctas).astype(np.int64)
    paths, classes = _dispatch_three_ways(monkeypatch, plan, c, fixed)
    assert 0 < (np.diff(ptr) - classes[2]).sum() < listed.size                 # hits and misses both
    for got in paths:
        assert all(np.array_equal(a, b) for a, b in zip(got, classes))


def _dispatch_three_ways(monkeypatch, plan, c, fixed):
    """``dispatch_through_l1`` compiled and as plain Python loops (the paths to compare), and through the
    SectorCache / CodeCache classes (the answer)."""
    from accel_sim.models.simt import fast
    paths = [fast.dispatch_through_l1(plan, c, fixed)]
    plain = {"dispatch": fast.dispatch_keys, "lines": fast.line_runs, "l2": fast.l2_walk, "l1": fast.l1_walk}
    monkeypatch.setattr(fast, "_compiled_dispatch", lambda: plain)
    paths.append(fast.dispatch_through_l1(plan, c, fixed))
    monkeypatch.setattr(fast, "_compiled_dispatch", lambda: None)
    return paths, fast.dispatch_through_l1(plan, c, fixed)
