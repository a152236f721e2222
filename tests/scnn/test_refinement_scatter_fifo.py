"""Refinement of the FIFO scatter network (scnn.scatter: fifo / fifo_unbounded): the fast path's recursion
and the SimPy reference against a cycle-by-cycle count of the stated semantics, fast path vs reference on
generated layers for several depths, conservation laws (bounds, monotone in depth)."""
import dataclasses

import numpy as np
import pytest
import simpy

from accel_sim.models.scnn.family import FAMILY
from accel_sim.models.scnn.fast.scatter_fifo import lindley_runs
from accel_sim.models.scnn.reference.scatter_fifo import FifoScatter
from tests.scnn._layers import small_case

UNBOUNDED = None


def cycle_by_cycle(load: np.ndarray, depth: int | None) -> int:
    """The spec's words, one cycle at a time: products of the current step enter their bank's FIFO while
    the bank holds at most depth + 1 (its FIFO and the product it adds this cycle); each bank adds one
    product per cycle; the next step issues in the cycle after the current one's last product entered;
    the batch ends when every bank is empty."""
    banks = load.shape[1]
    queued = np.zeros(banks, dtype=np.int64)
    cycle, step = 0, 0
    pending = load[0].copy() if len(load) else np.zeros(banks, dtype=np.int64)
    while step < len(load) or queued.any():
        if step < len(load):
            room = pending if depth is None else np.minimum(pending, depth + 1 - queued)
            queued += room
            pending -= room
        queued = np.maximum(queued - 1, 0)
        cycle += 1
        if step < len(load) and not pending.any():
            step += 1
            if step < len(load):
                pending = load[step].copy()
    return cycle


def fast_cycles(load: np.ndarray, depth: int | None) -> int:
    """The fast path's recursion on one sequence of steps."""
    q = np.zeros(load.shape[1], dtype=np.int64)
    if depth is None:
        q = lindley_runs(load.astype(np.int64) - 1, np.array([0]), q[None])[0]
        return len(load) + int(q.max(initial=0))
    cycles = 0
    for n in load:
        d = max(1, int((q + n - depth).max()))
        q = np.maximum(0, q + n - d)
        cycles += d
    return cycles + int(q.max(initial=0))


def reference_cycles(load: np.ndarray, depth: int | None) -> int:
    env = simpy.Environment()
    scatter = FifoScatter(env, load.shape[1], depth)
    done = scatter.put(load)
    env.run(until=done)
    return done.value


def random_loads(rng, steps: int, banks: int, products: int) -> np.ndarray:
    """Steps of up to ``products`` products over ``banks`` banks, skewed (some banks hot), some steps empty."""
    hot = rng.dirichlet(np.full(banks, 0.3))
    load = np.stack([np.bincount(rng.choice(banks, rng.integers(0, products + 1), p=hot), minlength=banks)
                     for _ in range(steps)])
    return load.astype(np.int64)


@pytest.mark.parametrize("depth", [0, 1, 2, 5, UNBOUNDED])
def test_recursion_and_reference_equal_a_cycle_by_cycle_count(depth):
    rng = np.random.default_rng(7 if depth is None else depth)
    for _ in range(25):
        load = random_loads(rng, int(rng.integers(1, 30)), int(rng.choice([2, 4, 8])), 8)
        expected = cycle_by_cycle(load, depth)
        assert fast_cycles(load, depth) == expected, (load.tolist(), depth)
        assert reference_cycles(load, depth) == expected, (load.tolist(), depth)


def test_depth_zero_is_serialise_and_unbounded_is_the_bank_bound():
    """A 3 x 3 dense step of the paper's order puts 3 of its 16 products on one bank: serialised it takes 3
    cycles; with unbounded FIFOs a long run of such steps takes one cycle each once the banks keep up."""
    load = np.zeros((6, 32), dtype=np.int64)
    load[:, 0] = 3
    load[:, 1:14] = 1
    assert cycle_by_cycle(load, 0) == fast_cycles(load, 0) == 18
    # bank 0 gets 18 products at one per cycle: the run ends when it has added them all
    assert fast_cycles(load, UNBOUNDED) == 18
    load[:, 0] = [3, 0, 0, 3, 0, 0]   # the hot bank idles every other step: the FIFO absorbs the bursts
    assert fast_cycles(load, UNBOUNDED) == 6 and fast_cycles(load, 0) == 10 and fast_cycles(load, 1) == 8


def lindley_direct(x: np.ndarray, q0: np.ndarray) -> np.ndarray:
    q = q0.copy()
    for row in x:
        q = np.maximum(0, q + row)
    return q


def test_lindley_runs_equal_the_recursion_run_by_run():
    rng = np.random.default_rng(3)
    x = rng.integers(-1, 3, (40, 5))
    starts = np.array([0, 7, 8, 25])
    q0 = rng.integers(0, 4, (4, 5))
    ends = list(starts[1:]) + [40]
    expected = [lindley_direct(x[s:e], q0[r]) for r, (s, e) in enumerate(zip(starts, ends))]
    assert lindley_runs(x.copy(), starts, q0).tolist() == np.array(expected).tolist()


VARIANTS = ({"scatter": "fifo", "scatter_fifo_depth": 0}, {"scatter": "fifo", "scatter_fifo_depth": 1},
            {"scatter": "fifo", "scatter_fifo_depth": 4}, {"scatter": "fifo_unbounded"},
            {"scatter": "fifo", "scatter_fifo_depth": 2, "barrier": "group_channel"},
            {"scatter": "fifo_unbounded", "out_of_plane": "slot_only", "bank_mapping": "dnnsim_xor"},
            # serialise costs this one by XOR code classes (fast/bank_codes.py): the FIFO path must not
            {"scatter": "fifo", "scatter_fifo_depth": 2, "bank_mapping": "dnnsim_xor"},
            {"scatter": "fifo", "scatter_fifo_depth": 3, "accumulator_banks": 12},   # not a power of two
            # slot_only with the additive hashes: banks from the products' coordinates (products.segment_loads)
            {"scatter": "fifo", "scatter_fifo_depth": 1, "out_of_plane": "slot_only"},
            {"scatter": "serialise", "out_of_plane": "slot_only"})


def variant(arch, **choices):
    return dataclasses.replace(arch, scnn=dataclasses.replace(arch.scnn, **choices))


@pytest.mark.parametrize("choices", VARIANTS, ids=lambda c: "-".join(f"{v}" for v in c.values()))
def test_fast_equals_reference_on_generated_layers(choices):
    conflicts = 0
    for seed in range(12):
        arch, layer = small_case(seed, "scnn" if seed % 4 else "scnn_sparse_a")
        arch = variant(arch, **choices)
        assert FAMILY.refinement(arch, layer) == [], (seed, layer, arch.scnn)
        conflicts += FAMILY.counters(arch, layer)[1].bank_conflict_cycles > 0
    assert conflicts >= 3


def test_cycles_between_the_bank_bound_and_serialise_and_monotone_in_depth():
    for seed in range(30):
        arch, layer = small_case(seed, "scnn")
        counts = [FAMILY.counters(variant(arch, **c), layer)[1] for c in (
            {"scatter": "serialise"}, {"scatter": "fifo", "scatter_fifo_depth": 1},
            {"scatter": "fifo", "scatter_fifo_depth": 3}, {"scatter": "fifo_unbounded"})]
        serialise = counts[0]
        busy = [c.pe_busy_cycles for c in counts]
        assert busy == sorted(busy, reverse=True), (seed, busy)
        assert [c.compute_cycles for c in counts] == sorted((c.compute_cycles for c in counts), reverse=True)
        for c in counts:   # the scatter network changes time only
            assert (c.steps, c.products, c.crossbar_transfers, c.macs_issued) == \
                (serialise.steps, serialise.products, serialise.crossbar_transfers, serialise.macs_issued)
            assert c.pe_busy_cycles >= c.steps
            assert c.pe_busy_cycles * arch.scnn.accumulator_banks >= c.crossbar_transfers
            assert c.bank_conflict_cycles == c.pe_busy_cycles - c.steps
        assert FAMILY.counters(variant(arch, scatter="fifo", scatter_fifo_depth=0), layer)[1] == serialise


def test_depth_0_equals_serialise_where_serialise_takes_a_shortcut():
    """Under serialise these specs are costed by shortcuts that sum step costs (XOR code classes, the
    border split of slot_only, per-segment bank algebra for group_channel, bank loads counted step by
    step beyond 32 banks); the FIFO path runs every step in order (beyond 32 banks in the loops' product
    loop). A FIFO of depth 0 is serialise, so the two paths must agree."""
    for seed in range(8):
        arch, layer = small_case(seed, "scnn")
        for choices in ({"bank_mapping": "dnnsim_xor"}, {"out_of_plane": "slot_only"}, {"barrier": "group_channel"},
                        {"accumulator_banks": 48}):
            serialise = variant(arch, scatter="serialise", **choices)
            assert FAMILY.counters(variant(serialise, scatter="fifo", scatter_fifo_depth=0), layer)[1] == \
                FAMILY.counters(serialise, layer)[1], (seed, choices)


def test_chunk_and_block_sizes_change_no_count(monkeypatch):
    """The FIFO path cuts a segment's steps into chunks (queues carry over) and gathers a finite depth's
    loads in blocks of steps: one I-vector per chunk and one step per block give the same counters."""
    from accel_sim.models.scnn.fast import products, scatter_fifo
    cases = [small_case(seed, "scnn") for seed in range(6)]
    choices = ({"scatter": "fifo", "scatter_fifo_depth": 2}, {"scatter": "fifo_unbounded"})
    expected = [FAMILY.counters(variant(arch, **c), layer)[1] for arch, layer in cases for c in choices]
    monkeypatch.setattr(scatter_fifo, "FIFO_PRODUCTS", 1)
    monkeypatch.setattr(scatter_fifo, "STEP_BLOCK_ENTRIES", 1)
    monkeypatch.setattr(products, "MAX_PRODUCTS", 1)
    assert [FAMILY.counters(variant(arch, **c), layer)[1] for arch, layer in cases for c in choices] == expected


def test_dnnsim_stride_phases_run_in_the_references_order(monkeypatch):
    """With stride_phases dnnsim the fast path numbers a channel's phases by y % stride, the reference by
    (y + pad) % stride; with FIFOs the order of steps matters, so the FIFO path runs them in the reference's
    order. Layers where that order changes the cycles (stride 2, pad 1; DNNsim's xor hash). (small_case seeds 7
    and 59 differed with serialise too, from the truncation of outputs below -1, not from this order:
    test_refinement_stride_phases.py.)"""
    from accel_sim.models.scnn.fast import scatter_fifo
    cases = [small_case(seed, "scnn") for seed in (41, 46, 63)]
    archs = [variant(arch, stride_phases="dnnsim", bank_mapping="dnnsim_xor", scatter="fifo", scatter_fifo_depth=1)
             for arch, _ in cases]
    for arch, (_, layer) in zip(archs, cases):
        assert FAMILY.refinement(arch, layer) == [], layer
    ordered = [FAMILY.counters(arch, layer)[1] for arch, (_, layer) in zip(archs, cases)]
    monkeypatch.setattr(scatter_fifo, "phase_order", lambda plan, n_seg: None)
    ascending = [FAMILY.counters(arch, layer)[1] for arch, (_, layer) in zip(archs, cases)]
    assert all(a.pe_busy_cycles != b.pe_busy_cycles for a, b in zip(ordered, ascending))
