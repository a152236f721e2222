"""Degenerate steps of the cluster model, worked by hand on both paths (the closed forms of
:mod:`accel_sim.systems.cluster.fast` and the SimPy model): a step with no layers, and a bucket of layers
without weights, whose one chunk moves no bytes. Named test_refinement_* so that
`python tools/mutation.py cluster` runs it against mutants of the plan and the fast path."""
import numpy as np
import pytest

from accel_sim.systems.cluster.fast import barrier_step_s, no_overlap_s, perfect_overlap_s
from accel_sim.systems.cluster.plan import Fabric, StepPlan, Techniques, plan_step
from accel_sim.systems.cluster.reference import run_reference


def test_a_step_without_layers_has_no_bucket_and_takes_no_time():
    empty = np.zeros(0)
    plan = StepPlan(forward_s=empty, backward_s=empty, layer_bucket=np.zeros(0, dtype=int),
                    chunk_bucket=np.zeros(0, dtype=int), stage_s=np.zeros((0, 3)), techniques=Techniques(True, False, True),
                    parts_s=np.zeros((0, 3)))
    assert plan.buckets == 0
    assert barrier_step_s(plan) == perfect_overlap_s(plan) == no_overlap_s(plan) == 0.0
    assert run_reference(plan, steps=2).step_s == 0.0


@pytest.mark.parametrize("memory_bandwidth", [None, 1e9])
def test_a_bucket_without_bytes_still_pays_its_copy_latencies(memory_bandwidth):
    """Two layers, forward and backward 1 s each; layer 1 has 1 B of gradient, layer 0 none (buckets of
    1 B: layer 1 alone, then layer 0 in an empty bucket). 2 hosts of 2 devices, PCIe 1 B/s + 0.25 s a copy,
    adds 1 B/s, ring network 1 B/s; host memory, when modelled, never binds.

    Chunk 0 (1 B): copies 0.25 + 1 = 1.25 s (2 B of host memory each); local sum one add of 1 B: 1 s;
    ring: 2 steps of 0.5 B (1 s) and an add of 0.5 B (0.5 s): reduction 2.5 s. Chunk 1 (0 B): its copies
    are the latency alone, 0.25 s each with no host-memory bytes; its reduction is empty.
    Backward overlap releases chunk 0 after layer 1's backward (1 s), chunk 1 after layer 0's (2 s).
    Chunk 0: copy 1..2.25, reduction 2.25..4.75, copy back 4.75..6. Chunk 1: copy 2.25..2.5 (the copy
    stage is busy until 2.25), reduction done at 4.75 (after chunk 0's), copy back 6..6.25.
    Step: forward 2 + 6.25 = 8.25 s."""
    fabric = Fabric(4, 2, 1.0, 0.25, 1.0, 1.0, 0.0, "ring", memory_bandwidth=memory_bandwidth)
    plan = plan_step([1, 1], [1, 1], [0, 1], fabric, Techniques(True, False, True), 1, 1)
    assert plan.chunk_bucket.tolist() == [0, 1] and plan.layer_bucket.tolist() == [1, 0]
    assert plan.stage_s.tolist() == [[1.25, 2.5, 1.25], [0.25, 0.0, 0.25]]
    assert plan.phase_traffic.tolist() == [[2.0, 3.0, 3.5, 2.0], [0.0, 0.0, 0.0, 0.0]]
    assert barrier_step_s(plan) == pytest.approx(8.25, rel=1e-12)
    assert run_reference(plan, steps=1).step_s == pytest.approx(8.25, rel=1e-12)
    assert run_reference(plan, steps=3).step_s == pytest.approx(8.25, rel=1e-12)
