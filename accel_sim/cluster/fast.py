"""Closed forms of a training step: the exact step time when every step ends in a barrier (no forward
overlap), and the two bounds every schedule lies between.

Without forward overlap each step is the same: forward, then backward, the buckets released as
backward produces them (or all at its end), the chunks crossing the stages in release order, first
come first served: a permutation flow shop. The completion of chunk j at stage s is
``c[j, s] = max(c[j, s - 1], c[j - 1, s]) + d[j, s]``, which unrolls into
``c[:, s] = D + running_max(c[:, s - 1] - D_before)`` (D the running sum of the stage's times), one
numpy pass per stage. The step ends when backward and the last chunk are both done.
"""
from __future__ import annotations

import numpy as np

from accel_sim.cluster.plan import StepPlan


def chunk_release_s(plan: StepPlan) -> np.ndarray:
    """When each chunk may enter its first stage, from the start of backward."""
    return plan.bucket_ready_s()[plan.chunk_bucket]


def flow_shop(release: np.ndarray, stage_s: np.ndarray) -> np.ndarray:
    """Completion time of each chunk at each stage, first come first served in chunk order."""
    done = np.empty_like(stage_s)
    previous = release
    for s in range(stage_s.shape[1]):
        running = np.cumsum(stage_s[:, s])
        before = running - stage_s[:, s]
        done[:, s] = running + np.maximum.accumulate(previous - before)
        previous = done[:, s]
    return done


def barrier_step_s(plan: StepPlan) -> float:
    """The step time without forward overlap (every step alike: the next forward waits for all)."""
    if plan.techniques.forward_overlap:
        raise ValueError("the closed form holds for steps that end in a barrier (forward_overlap off)")
    backward_end = float(plan.backward_s.sum())
    comm_end = float(flow_shop(chunk_release_s(plan), plan.stage_s)[-1, -1]) if len(plan.stage_s) else 0.0
    return float(plan.forward_s.sum()) + max(backward_end, comm_end)


def no_overlap_s(plan: StepPlan) -> float:
    """Upper bound, and the step time with every technique off: compute, then every stage of every chunk."""
    return plan.compute_s + float(plan.stage_s.sum())


def perfect_overlap_s(plan: StepPlan) -> float:
    """Lower bound: the busiest resource (the device's compute, or one communication stage)."""
    stage_busy = plan.stage_s.sum(axis=0) if len(plan.stage_s) else np.zeros(1)
    return max(plan.compute_s, float(stage_busy.max()))
