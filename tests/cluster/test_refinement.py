"""The cluster's discrete-event model (SimPy) against its closed forms (the fast path) and bounds on generated
cases, and both against timelines and phase costs worked by hand. Named test_refinement so that
`python tools/mutation.py cluster` runs it against mutants of the plan and the fast path."""
import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.systems.cluster.fast import barrier_step_s, flow_shop, no_overlap_s, perfect_overlap_s
from accel_sim.systems.cluster.plan import TOPOLOGIES, Fabric, StepPlan, Techniques, assign_buckets, fair_shares, plan_step
from accel_sim.systems.cluster.reference import run_reference

REL = 1e-9


@st.composite
def cases(draw, forward_overlap=None, host_pipelining=None, one_host=False):
    layers = draw(st.integers(1, 6))
    times = st.floats(1e-4, 5e-2)
    forward = draw(st.lists(times, min_size=layers, max_size=layers))
    backward = draw(st.lists(times, min_size=layers, max_size=layers))
    grads = draw(st.lists(st.integers(1, 50_000_000), min_size=layers, max_size=layers))
    devices = draw(st.sampled_from([2, 3, 8] if one_host else [1, 2, 3, 8, 64]))
    fabric = Fabric(devices=devices, devices_per_host=devices if one_host else draw(st.integers(1, 8)),
                    pcie_bandwidth=draw(st.floats(1e9, 2e10)), pcie_latency=draw(st.floats(0, 1e-4)),
                    reduce_bandwidth=draw(st.floats(5e9, 5e10)), network_bandwidth=draw(st.floats(1e9, 2e10)),
                    network_latency=draw(st.floats(0, 1e-5)), topology=draw(st.sampled_from(TOPOLOGIES)),
                    memory_bandwidth=draw(st.floats(5e9, 2e11) if one_host else st.one_of(st.none(), st.floats(5e9, 2e11))),
                    devices_per_switch=draw(st.integers(1, 8)))
    fo = draw(st.booleans()) if forward_overlap is None else forward_overlap
    pipelining = draw(st.booleans()) if host_pipelining is None else host_pipelining
    techniques = Techniques(draw(st.booleans()), fo, pipelining)
    total = sum(grads)
    bucket = draw(st.integers(1, total))
    chunk = draw(st.integers(max(1, total // 40), total))
    update = draw(st.one_of(st.none(), st.lists(st.floats(0, 1e-2), min_size=layers, max_size=layers)))
    return plan_step(forward, backward, grads, fabric, techniques, bucket, chunk, update)


@settings(max_examples=60, deadline=None)
@given(cases(forward_overlap=False), st.integers(1, 3))
def test_simpy_equals_the_closed_form_when_steps_end_in_a_barrier(plan, steps):
    assert run_reference(plan, steps).step_s == pytest.approx(barrier_step_s(plan), rel=REL)


@settings(max_examples=40, deadline=None)
@given(cases(forward_overlap=False, host_pipelining=True), st.integers(1, 3))
def test_simpy_equals_the_fluid_closed_form_when_phases_share_host_memory(plan, steps):
    assert run_reference(plan, steps).step_s == pytest.approx(barrier_step_s(plan), rel=REL)


def test_nanosecond_phases_late_in_a_step_finish_on_the_simpy_clock():
    """Host-memory phases of about 1 ns at t = 0.31 s (hypothesis found it): the fraction a phase has left after its
    planned end can exceed the rounding threshold when the time it stands for is below a float's spacing at that
    time; the phase counts as done then, and the step ends as the closed form says (it ended early before)."""
    def rows(*values):
        return np.tile(np.array(values), (5, 1))
    stage = rows(7.40497572e-10, 2.57194513e-09, 7.40497572e-10)
    plan = StepPlan(forward_s=np.full(5, 0.03125), backward_s=np.full(5, 0.03125), layer_bucket=np.arange(5)[::-1],
                    chunk_bucket=np.arange(5), stage_s=stage,
                    techniques=Techniques(backward_overlap=False, forward_overlap=False, host_pipelining=True),
                    parts_s=stage.copy(), phase_cap=rows(7.40497572e-10, 4e-10, 1.46666667e-09, 7.40497572e-10),
                    phase_traffic=rows(3.0, 6.0, 4.66666667, 3.0), memory_bandwidth=5428496244.0)
    assert run_reference(plan, 1).step_s == pytest.approx(barrier_step_s(plan), rel=REL)


def test_a_phase_done_when_another_starts_ends_then():
    """Host memory, hypothesis' example: a chunk's phase whose end falls within a float's spacing of the moment the
    next chunk's phase starts is done at that moment; it was dropped from the running phases without its event, and
    the model stalled ("ended before every step finished")."""
    def rows(first, rest):
        return np.array([first] + [rest] * 3)
    stage = rows([2e-09, 1.2e-09, 2e-09], [9.99999999e-10, 6e-10, 9.99999999e-10])
    plan = StepPlan(forward_s=np.full(4, 0.03125), backward_s=np.full(4, 0.03125), layer_bucket=np.arange(4)[::-1],
                    chunk_bucket=np.arange(4), stage_s=stage,
                    techniques=Techniques(backward_overlap=False, forward_overlap=False, host_pipelining=True),
                    parts_s=stage.copy(), phase_cap=rows([2e-09, 4e-10, 0, 2e-09], [9.99999999e-10, 2e-10, 0, 9.99999999e-10]),
                    phase_traffic=rows([4.0, 6.0, 0.0, 4.0], [2.0, 3.0, 0.0, 2.0]), memory_bandwidth=5e9)
    assert run_reference(plan).step_s == pytest.approx(barrier_step_s(plan), rel=REL)


@settings(max_examples=40, deadline=None)
@given(cases(forward_overlap=False, host_pipelining=True, one_host=True))
def test_simpy_equals_the_fluid_closed_form_on_one_host(plan):
    """One host: the all-reduce phase is empty, so a reduction stage ends the moment its local sum does and the
    stage must take its next chunk at that instant."""
    assert run_reference(plan).step_s == pytest.approx(barrier_step_s(plan), rel=REL)


@settings(max_examples=60, deadline=None)
@given(cases())
def test_every_schedule_lies_between_perfect_overlap_and_no_overlap(plan):
    step = run_reference(plan).step_s
    assert perfect_overlap_s(plan) * (1 - REL) <= step <= no_overlap_s(plan) * (1 + REL)
    # the lower bound is the busiest resource: the device (compute and update), any one stage over every
    # chunk, or host memory
    update = 0.0 if plan.update_s is None else float(plan.update_s.sum())
    busiest = max([plan.compute_s + update] + [float(plan.stage_s[:, s].sum()) for s in range(plan.stage_s.shape[1])])
    memory = 0.0 if plan.memory_bandwidth is None else float(plan.phase_traffic.sum()) / plan.memory_bandwidth
    assert perfect_overlap_s(plan) == pytest.approx(max(busiest, memory), rel=REL)


@settings(max_examples=40, deadline=None)
@given(cases(forward_overlap=False, host_pipelining=True))
def test_sharing_host_memory_never_speeds_a_step_up(plan):
    """The same step with a host memory that never binds is no slower than with the shared one."""
    free = dataclasses.replace(plan, memory_bandwidth=None,
                               stage_s=np.stack([plan.phase_cap[:, list(p)].sum(axis=1) for p in plan.stage_phases],
                                                axis=1))
    assert run_reference(plan).step_s >= run_reference(free).step_s * (1 - REL)


@settings(max_examples=40, deadline=None)
@given(cases())
def test_no_technique_is_the_sum_of_stages(plan):
    off = plan_step(plan.forward_s, plan.backward_s, np.ones(len(plan.forward_s)), Fabric(
        4, 2, 1e9, 1e-5, 1e10, 1e9, 1e-6, "ring"), Techniques(), 1, 1)
    expected = off.compute_s + float(off.parts_s.sum())
    assert run_reference(off).step_s == pytest.approx(expected, rel=REL)
    updated = dataclasses.replace(off, update_s=np.full(len(off.forward_s), 1e-3))
    assert run_reference(updated).step_s == pytest.approx(expected + 1e-3 * len(off.forward_s), rel=REL)
    assert no_overlap_s(off) == pytest.approx(expected, rel=REL)


@settings(max_examples=30, deadline=None)
@given(cases())
def test_one_device_is_pure_compute_the_perfect_overlap(plan):
    one = plan_step(plan.forward_s, plan.backward_s, np.full(len(plan.forward_s), 1e6),
                    Fabric(1, 1, 1e9, 1e-5, 1e10, 1e9, 1e-6, "tree"), plan.techniques, 1e6, 1e5)
    step = run_reference(one).step_s
    assert step == pytest.approx(one.compute_s, rel=REL) and step == pytest.approx(perfect_overlap_s(one), rel=REL)


def test_flow_shop_matches_its_recurrence():
    rng = np.random.default_rng(1)
    release, stages = np.sort(rng.random(30)), rng.random((30, 3))
    done = np.zeros_like(stages)
    for j, s in itertools.product(range(30), range(3)):
        ready = release[j] if s == 0 else done[j, s - 1]
        done[j, s] = max(ready, done[j - 1, s] if j else 0.0) + stages[j, s]
    np.testing.assert_allclose(flow_shop(release, stages), done, rtol=1e-12)


def test_hand_timeline_of_two_pipelined_chunks():
    """Two layers (forward 1, 2 s; backward 3, 4 s), one bucket of 2 bytes in 2 chunks, each stage 1 s."""
    fabric = Fabric(2, 1, 1.0, 0.0, 1.0, 1.0, 0.0, "ring")   # 1 B/s PCIe; 2 hosts: reduce = 2 x (0.5 / 1) + 0.5 / 1
    plan = plan_step([1, 2], [3, 4], [1, 1], fabric, Techniques(True, False, True), 2, 1)
    assert plan.stage_s.tolist() == [[1.0, 1.5, 1.0], [1.0, 1.5, 1.0]]
    run = run_reference(plan, steps=1, log=True)
    starts = [(who, what, when) for who, what, when in run.log if who.startswith("chunk")]
    # forward ends at 3; backward of layer 2 (4 s) then layer 1 (3 s) ends at 10: the bucket holds both
    assert starts == [("chunk0.0", "stage0 start", 10.0), ("chunk0.0", "stage1 start", 11.0),
                      ("chunk0.1", "stage0 start", 11.0), ("chunk0.0", "stage2 start", 12.5),
                      ("chunk0.1", "stage1 start", 12.5), ("chunk0.0", "done", 13.5),
                      ("chunk0.1", "stage2 start", 14.0), ("chunk0.1", "done", 15.0)]
    assert run.step_s == 15.0 == barrier_step_s(plan)


def test_the_update_waits_for_its_own_layer_with_forward_overlap():
    """Two layers, each its own bucket (one stage: 1 s copy there, 1 s back), update 0.5 s per layer.

    Barrier: forward 2 + backward 2, the buckets released as produced (layer 1 at 1 s into backward, layer
    0 at 2 s), 2 s each in turn: the second back at 5 s after backward started; then 1 s of updates:
    2 + 5 + 1 = 8 s a step. With forward overlap the update of layer 0 and its forward wait only for layer
    0's bucket, served first.
    """
    fabric = Fabric(2, 1, 1.0, 0.0, 1e9, 1e9, 0.0, "ring")
    kwargs = dict(forward_s=[1, 1], backward_s=[1, 1], gradient_bytes=[1, 1], fabric=fabric, bucket_bytes=1,
                  chunk_bytes=1, update_s=[0.5, 0.5])
    barrier = plan_step(techniques=Techniques(True, False, False), **kwargs)
    assert barrier.stage_s[:, 0] == pytest.approx([2.0, 2.0], rel=1e-6)
    assert barrier_step_s(barrier) == pytest.approx(8.0, rel=1e-6)
    assert run_reference(barrier, steps=3).step_s == pytest.approx(8.0, rel=1e-6)
    assert run_reference(barrier, steps=1).step_s == pytest.approx(8.0, rel=1e-6)
    # layer 1's gradient ten times larger, pipelined in 1-byte chunks: layer 0's chunk overtakes them
    pipelined = dict(kwargs, gradient_bytes=[1, 10])
    fifo = plan_step(techniques=Techniques(True, False, True), **pipelined)
    prio = run_reference(plan_step(techniques=Techniques(True, True, True), **pipelined), steps=6).step_s
    assert perfect_overlap_s(fifo) * (1 - REL) <= prio < barrier_step_s(fifo) - 0.5


def test_forward_overlap_serves_the_first_layer_first():
    """Layer 0's small gradient overtakes layer 1's big one, so the next forward starts earlier."""
    fabric = Fabric(2, 1, 1.0, 0.0, 1e9, 1e9, 0.0, "ring")
    kwargs = dict(forward_s=[1, 1], backward_s=[1, 1], gradient_bytes=[1, 10], fabric=fabric, bucket_bytes=1,
                  chunk_bytes=1)
    fifo = run_reference(plan_step(techniques=Techniques(True, False, True), **kwargs), steps=4).step_s
    prio = run_reference(plan_step(techniques=Techniques(True, True, True), **kwargs), steps=4).step_s
    assert prio < fifo


def test_gradient_bytes_scale_the_communication_stages():
    fabric = Fabric(16, 4, 15.75e9, 0.0, 25.6e9, 12.5e9, 0.0, "ring")
    bytes32 = np.array([4e6, 8e6])
    full = fabric.reduce_time(bytes32)
    np.testing.assert_allclose(fabric.reduce_time(bytes32 / 2), full / 2)
    np.testing.assert_allclose(fabric.reduce_time(bytes32 / 4), full / 4)
    # ring: 3 local adds, then 2 (H - 1) steps of 1/H of the data and (H - 1) adds of 1/H
    expected = 3 * 4e6 / 25.6e9 + 2 * 3 * (1e6 / 12.5e9) + 3 * 1e6 / 25.6e9
    assert full[0] == pytest.approx(expected)


def test_hand_timeline_of_two_stages_sharing_host_memory():
    """One device, 1 B/s PCIe behind a switch of 2 devices, host memory 4 B/s.

    Two hosts of two devices, gradient of one layer, 2 bytes in 2 chunks of 1 byte. Per chunk: copies
    2 s of link (two devices share the uplink), 2 B of host memory each; local sum: one add of 1 B at
    1 B/s, 3 B of memory; ring among 2 hosts: 2 steps of 0.5 B at 1 B/s + one add of 0.5 B = 1.5 s,
    memory 2 x 2 x 0.5 + 3 x 0.5 = 3.5 B. Alone every phase is link or CPU bound (memory 4 B/s).
    """
    fabric = Fabric(4, 2, 1.0, 0.0, 1.0, 1.0, 0.0, "ring", memory_bandwidth=4.0, devices_per_switch=2)
    plan = plan_step([1], [1], [2], fabric, Techniques(True, False, True), 2, 1)
    assert plan.phase_cap.tolist() == [[2.0, 1.0, 1.5, 2.0]] * 2
    assert plan.phase_traffic.tolist() == [[2.0, 3.0, 3.5, 2.0]] * 2
    assert plan.stage_s.tolist() == [[2.0, 2.5, 2.0]] * 2
    # backward ends at 2 (forward 1, backward 1). Chunk 0 copies 2..4. At 4 chunk 1's copy (demand 1 B/s)
    # and chunk 0's local sum (3 B/s) run together: 4 B/s, both at full speed; the sum ends at 5, then
    # the ring (3.5 / 1.5 = 2.33 B/s) beside the copy (1 B/s): full speed again, the copy ends at 6, the
    # ring at 6.5; chunk 1's sum 6.5..7.5 beside chunk 0's return copy (1 B/s) 6.5..8.5; chunk 1's ring
    # 7.5..9 and return copy 9..11. Nothing waits for memory: 11 s, as the flow shop says.
    assert barrier_step_s(plan) == pytest.approx(1 + 10.0)
    assert run_reference(plan, steps=1).step_s == pytest.approx(11.0)
    # At 2 B/s the memory binds: the sum (3 B) and the copy (demand 1 B/s) share it, 1 + 1 B/s...
    slow = plan_step([1], [1], [2], dataclasses.replace(fabric, memory_bandwidth=2.0), Techniques(True, False, True),
                     2, 1)
    assert slow.stage_s.tolist() == [[2.0, 3.25, 2.0]] * 2        # alone: sum 1.5 s, ring 1.75 s
    step = run_reference(slow, steps=1).step_s
    assert step == pytest.approx(barrier_step_s(slow), rel=REL)
    # host memory is the busiest resource: 2 chunks x (2 + 3 + 3.5 + 2) B at 2 B/s = 10.5 s
    assert perfect_overlap_s(slow) == pytest.approx(10.5) and step >= 10.5
    assert step > 1 + float(flow_shop(np.array([1.0, 1.0]), slow.stage_s)[-1, -1]) - 1e-9


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.floats(0, 1e3), st.just(float("inf"))), min_size=1, max_size=6), st.floats(1e-3, 1e3))
def test_fair_shares_are_max_min_fair(demand, bandwidth):
    demand = np.array(demand)
    share = fair_shares(demand, bandwidth)
    assert (share <= demand * (1 + REL)).all() and share.sum() <= bandwidth * (1 + REL)
    unmet = share < demand * (1 - REL)
    if unmet.any():   # bandwidth all given out, every unmet phase holding the largest share
        assert share.sum() == pytest.approx(bandwidth, rel=1e-9)
        assert share[unmet].min() == pytest.approx(share.max(), rel=1e-9)


def test_devices_behind_one_switch_share_its_uplink():
    base = dict(devices=16, devices_per_host=4, pcie_bandwidth=10.0, pcie_latency=0.5, reduce_bandwidth=1.0,
                network_bandwidth=1.0, network_latency=0.0, topology="ring")
    own, pair, four, eight = (Fabric(**base, devices_per_switch=k).copy_time(np.array([10.0])) for k in (1, 2, 4, 8))
    assert (own[0], pair[0], four[0], eight[0]) == (1.5, 2.5, 4.5, 4.5)   # never more sharers than the host has


def test_buckets_fill_in_backward_order():
    assert assign_buckets(np.array([5, 5, 5, 5]), 10).tolist() == [1, 1, 0, 0]
    assert assign_buckets(np.array([1, 1, 30]), 10).tolist() == [1, 1, 0]


def test_phases_by_hand_for_each_topology():
    """8 devices, 2 per host (4 hosts), 6 B of gradient; PCIe 4 B/s + 0.25 s, adds 2 B/s, network 3 B/s +
    0.5 s. Copies 0.25 + 6 / 4 = 1.75 s, 2 devices x 6 B of host memory; local sum one add of 6 B: 3 s,
    3 x 6 B. Ring: 6 steps of 1.5 B (6 x (0.5 + 0.5) s) and 3 adds of 1.5 B (2.25 s), 2 x 2 x 3 x 1.5 B moved;
    tree: 2 levels, 4 steps of 6 B (4 x 2.5 s) and 2 adds of 6 B (6 s); parameter server: 2 latencies,
    2 x 3 gradients of 6 B over one link (12 s) and 3 adds of 6 B (9 s)."""
    expected = {"ring": (8.25, 18 + 3 * 4.5), "tree": (16.0, 24 + 3 * 12), "parameter_server": (22.0, 36 + 3 * 18)}
    for topology, (network_s, network_bytes) in expected.items():
        cap, traffic = Fabric(8, 2, 4.0, 0.25, 2.0, 3.0, 0.5, topology, devices_per_switch=1).phases(np.array([6.0]))
        assert cap.tolist() == [[1.75, 3.0, network_s, 1.75]]
        assert traffic.tolist() == [[12.0, 18.0, network_bytes, 12.0]]


def test_a_chunk_released_while_the_reduction_runs_starts_its_copy_at_once():
    """Host memory modelled (but never binding), backward overlap, one bucket per layer of 1 B; 2 hosts of
    2 devices: copy 1 s, reduction 1 s local sum + 1.5 s ring, copy back 1 s. Forward 0..2; layer 2's
    backward 2..3 releases chunk A, layer 1's 3..4.5 chunk B. A: copy 3..4, reduce 4..6.5, back 6.5..7.5.
    B's copy starts at its release (4.5, during A's reduction) and ends 5.5; its reduction waits for A's:
    6.5..9, back 9..10."""
    fabric = Fabric(4, 2, 1.0, 0.0, 1.0, 1.0, 0.0, "ring", memory_bandwidth=1e9, devices_per_switch=1)
    plan = plan_step([1, 1], [1.5, 1], [1, 1], fabric, Techniques(True, False, True), 1, 1)
    assert plan.stage_s.tolist() == [[1.0, 2.5, 1.0]] * 2
    assert barrier_step_s(plan) == pytest.approx(10.0)
    assert run_reference(plan, steps=1).step_s == pytest.approx(10.0)
