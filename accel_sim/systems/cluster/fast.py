"""Closed forms of a training step: the exact step time when every step ends in a barrier (no forward
overlap), and the two bounds every schedule lies between.

Without forward overlap each step is the same: forward, then backward, the buckets released as
backward produces them (or all at its end), the chunks crossing the stages in release order, first
come first served: a permutation flow shop. The completion of chunk j at stage s is
``c[j, s] = max(c[j, s - 1], c[j - 1, s]) + d[j, s]``, which unrolls into
``c[:, s] = D + running_max(c[:, s - 1] - D_before)`` (D the running sum of the stage's times), one
numpy pass per stage. The step ends when backward and the last chunk are both done, and the device has
updated the weights (``update_s``; device time after the barrier).

When phases of different stages share host memory (host pipelining with ``memory_bandwidth`` set), a
phase's time depends on what runs beside it: the flow shop is then evaluated as a fluid schedule,
event by event (a phase starts or ends), every running phase progressing at its max-min fair rate
(:func:`accel_sim.systems.cluster.plan.phase_rates`). The lower bound gains the host memory's busy time.
"""
from __future__ import annotations

import numpy as np

from accel_sim.systems.cluster.plan import StepPlan, phase_rates

DONE = 1e-12   # fraction of a phase left that counts as finished (rounding of the fluid steps)


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


def contended_flow_shop(plan: StepPlan, release: np.ndarray) -> float:
    """Completion of the last chunk at the last stage, first come first served in chunk order, phases
    running at once sharing host memory."""
    chunks, stages = len(release), len(plan.stage_phases)
    cap, traffic = plan.phase_cap, plan.phase_traffic
    done = np.full((chunks, stages), np.inf)
    entered = [0] * stages
    running: list[list | None] = [None] * stages          # [chunk, phase position, fraction left]
    now = 0.0
    while True:
        changed = True
        while changed:                                       # start what can start, skip empty phases
            changed = False
            for s in range(stages):
                if running[s] is None and entered[s] < chunks:
                    j = entered[s]
                    if (release[j] if s == 0 else done[j, s - 1]) <= now:
                        running[s], entered[s], changed = [j, 0, 1.0], entered[s] + 1, True
                job = running[s]
                if job is not None:
                    phases = plan.stage_phases[s]
                    while job[1] < len(phases) and cap[job[0], phases[job[1]]] <= 0 \
                            and traffic[job[0], phases[job[1]]] <= 0:
                        job[1] += 1
                    if job[1] == len(phases):
                        done[job[0], s], running[s], changed = now, None, True
        busy = [s for s in range(stages) if running[s] is not None]
        if not busy:
            if entered[0] == chunks:
                return float(done[-1, -1])
            now = max(now, float(release[entered[0]]))
            continue
        index = [(running[s][0], plan.stage_phases[s][running[s][1]]) for s in busy]
        rates = phase_rates(np.array([cap[i] for i in index]), np.array([traffic[i] for i in index]),
                            plan.memory_bandwidth)
        step = min(running[s][2] / r for s, r in zip(busy, rates))
        if running[0] is None and entered[0] < chunks:
            step = min(step, float(release[entered[0]]) - now)
        now += step
        for s, r in zip(busy, rates):
            job = running[s]
            job[2] -= r * step
            if job[2] <= DONE:
                job[1], job[2] = job[1] + 1, 1.0
                if job[1] == len(plan.stage_phases[s]):
                    done[job[0], s], running[s] = now, None


def barrier_step_s(plan: StepPlan) -> float:
    """The step time without forward overlap (every step alike: the next forward waits for all)."""
    if plan.techniques.forward_overlap:
        raise ValueError("the closed form holds for steps that end in a barrier (forward_overlap off)")
    backward_end = float(plan.backward_s.sum())
    if not len(plan.stage_s):
        comm_end = 0.0
    elif plan.memory_contended:
        comm_end = contended_flow_shop(plan, chunk_release_s(plan))
    else:
        comm_end = float(flow_shop(chunk_release_s(plan), plan.stage_s)[-1, -1])
    return float(plan.forward_s.sum()) + max(backward_end, comm_end) + plan.update_total_s


def no_overlap_s(plan: StepPlan) -> float:
    """Upper bound, and the step time with every technique off: compute, then every stage of every chunk
    (each alone), then the weight update."""
    return plan.device_busy_s + float(plan.stage_s.sum())


def perfect_overlap_s(plan: StepPlan) -> float:
    """Lower bound: the busiest resource (the device's compute and update, one communication stage, or the host
    memory at full bandwidth)."""
    stage_busy = plan.stage_s.sum(axis=0) if len(plan.stage_s) else np.zeros(1)
    return max(plan.device_busy_s, float(stage_busy.max()), plan.memory_busy_s)
