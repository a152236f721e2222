"""The training cluster as a discrete-event model (SimPy): one device's compute, its gradient chunks
through the communication stages, and the next step's forward waiting for its weights.

Agents: the **device** (a process running forward layers 1..L, then backward L..1, releasing each
bucket when backward has produced it, or every bucket at the end of backward without backward
overlap), one **chunk** process per gradient chunk, and one port per communication stage (device ->
host PCIe copy, host reduction and network all-reduce, host -> device copy; one combined stage
without host pipelining), each a :class:`Port` (one chunk at a time, served in the order and with the
events of a :class:`simpy.PriorityResource` of capacity 1). Data parallelism makes the devices identical,
so one device and its stages stand for all of them (the all-reduce's cost for ``N`` devices is in the
reduction stage's time, the devices behind one PCIe switch share its uplink in the copy times).

The **host memory** is an agent of its own (:class:`HostMemory`) when stages can run at once (host
pipelining) and its bandwidth is modelled: every phase of a stage (copy, local sum, all-reduce) asks it
for its bytes; the phases running together share the bandwidth max-min fairly, their rates recomputed
whenever one starts or ends. A copy of one chunk thus slows the CPU's adds of another: the contention
the flow-shop closed form cannot see.

Without forward overlap, step k + 1's forward waits for every chunk of step k (a barrier) and the
stages serve chunks first come, first served. With forward overlap, layer i's forward of step k + 1
waits only for the bucket holding layer i's gradient, and the stages serve first the chunk the next
forward needs first (lowest layer, then earliest step): the priority order Fujitsu's press release
(August 2016, SWoPP 2016; https://www.eetindia.co.in/fujitsu-uses-gpu-parallelisation-to-speed-deep-learning/)
describes for the data "needed at the start of the next learning process".

:func:`accel_sim.hardware.link.Link` is not used: its port is first come first served and rounds to
whole cycles, while these stages need priorities and times in seconds.

Events are per layer and per chunk per stage (per phase with host memory), never per byte.
"""
from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass

import numpy as np
import simpy
from simpy.events import NORMAL, Event, Timeout

from accel_sim.systems.cluster.plan import StepPlan, phase_rates

DONE = 1e-12   # fraction of a phase left that counts as finished (rounding of the fluid steps)


class Port:
    """A communication stage: one chunk at a time, the waiting chunks served lowest priority number first,
    then earliest request, then first come (the order of :class:`simpy.PriorityResource`, and its events: a
    request is granted by an event of its own, a release is an event that hands the stage on when processed).
    Without the general resource's bookkeeping (get queue, users list, the queue re-sorted on every request),
    and without a release event when nobody waits (it would find the stage free with nobody waiting, or taken
    by a request made since: a no-op; the other events keep their order)."""

    __slots__ = ("env", "busy", "waiting", "keys")

    def __init__(self, env: simpy.Environment):
        self.env, self.busy = env, False
        self.waiting: list[Event] = []                 # requests not yet granted, in service order
        self.keys: list[tuple[int, float]] = []        # their (priority, time requested)

    def request(self, priority: int) -> Event:
        env = self.env
        slot = Event(env)
        if not self.busy and not self.waiting:        # free: granted at once
            self.busy = True
            return slot.succeed()
        key = (priority, env.now)
        at = bisect_right(self.keys, key)              # after every request of the same key: first come
        self.keys.insert(at, key)
        self.waiting.insert(at, slot)
        self._grant()
        return slot

    def release(self) -> None:
        self.busy = False
        if self.waiting:   # else the release event would find the stage taken by then, or nobody waiting
            handed_on = Event(self.env)
            handed_on.callbacks.append(self._grant)
            handed_on.succeed()

    def _grant(self, _event: Event | None = None) -> None:
        if not self.busy and self.waiting:
            self.busy = True
            del self.keys[0]
            self.waiting.pop(0).succeed()


class HostMemory:
    """The host's DRAM: running phases share ``bandwidth`` max-min fairly (a phase never faster than its
    own link or CPU allows); each phase's rate changes whenever a phase starts or ends."""

    def __init__(self, env: simpy.Environment, bandwidth: float):
        self.env, self.bandwidth = env, bandwidth
        self.running: list[list] = []          # [fraction left, (cap s, traffic bytes), done event]
        self.since = 0.0
        self._wake_event: Timeout | None = None   # the planned wake; an older one is stale
        # rates of each set of running (cap, traffic): a step's chunks repeat a few sets many times
        self._rates_of: dict[tuple[tuple[float, float], ...], list[float]] = {}
        self._current: list[float] | None = None   # the rates of the running set, until it changes

    def phase(self, cap: float, traffic: float) -> Event:
        done = Event(self.env)
        if cap <= 0 and traffic <= 0:
            return done.succeed()
        self._settle()                           # phases done by now end now, not dropped unannounced
        self.running.append([1.0, (cap, traffic), done])
        self._current = None
        self._plan_next()
        return done

    def _rates(self) -> list[float]:
        rates = self._current
        if rates is None:
            key = tuple([p[1] for p in self.running])
            rates = self._rates_of.get(key)
            if rates is None:   # phase_rates is a pure function of the running phases' caps and traffic
                rates = self._rates_of[key] = phase_rates(np.array([cap for cap, _ in key]),
                                                          np.array([traffic for _, traffic in key]),
                                                          self.bandwidth).tolist()
            self._current = rates
        return rates

    def _settle(self) -> None:
        """Bring every running phase to now; end (and drop) the ones that are done, in running order."""
        env = self.env
        now, since = env.now, self.since
        self.since = now
        if not self.running:
            return
        elapsed, left, ended = now - since, [], False
        # what is left lasts less than the clock can tell apart at this time (a float's spacing)
        spacing = math.ulp(now)
        for p, rate in zip(self.running, self._rates()):
            fraction = p[0]
            due = since + fraction / rate <= now      # planned to end by now (no rounding left)
            p[0] = fraction = fraction - rate * elapsed
            if due or fraction <= DONE or fraction / rate <= spacing:
                p[2].succeed()
                ended = True
            else:
                left.append(p)
        if ended:
            self.running, self._current = left, None

    def _plan_next(self) -> None:
        if self.running:
            soonest = min([p[0] / rate for p, rate in zip(self.running, self._rates())])
            wake = self._wake_event = Timeout(self.env, soonest)
            wake.callbacks.append(self._wake)
        else:
            self._wake_event = None

    def _wake(self, event: Event) -> None:
        if event is self._wake_event:           # else a phase started or ended since: planned again then
            self._settle()
            self._plan_next()


@dataclass(frozen=True)
class ReferenceRun:
    step_end_s: tuple[float, ...]        # when each step's backward and communication were all done
    log: tuple[tuple[str, str, float], ...]  # (who, what, when) for tests

    @property
    def step_s(self) -> float:
        """Steady-state time per step: the mean distance between step ends (the first step alone if one)."""
        ends = self.step_end_s
        return ends[0] if len(ends) == 1 else (ends[-1] - ends[0]) / (len(ends) - 1)


def run_reference(plan: StepPlan, steps: int = 4, log: bool = False) -> ReferenceRun:
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    env = simpy.Environment()
    layers, buckets, chunks = len(plan.forward_s), plan.buckets, len(plan.stage_s)
    ports = [Port(env) for _ in range(plan.stage_s.shape[1])]
    memory = HostMemory(env, plan.memory_bandwidth) if plan.memory_contended else None
    first_layer = plan.bucket_first_layer().tolist()
    chunks_of = [np.flatnonzero(plan.chunk_bucket == b).tolist() for b in range(buckets)]
    weights_ready = [[env.event() for _ in range(buckets)] for _ in range(steps)]
    comm_done = [env.event() for _ in range(steps)]     # every chunk of the step back, backward done
    ends: list[float] = [-1.0] * steps
    update = np.zeros(layers) if plan.update_s is None else plan.update_s
    entries: list[tuple[str, str, float]] = []
    forward_overlap = plan.techniques.forward_overlap
    # the plan's tables as Python numbers, read once (the same values float() / int() of each element gives)
    forward_s, backward_s = plan.forward_s.tolist(), plan.backward_s.tolist()
    layer_bucket, update_s = plan.layer_bucket.tolist(), update.tolist()
    update_total = float(update.sum())
    chunk_bucket = plan.chunk_bucket.tolist()
    if memory is None:
        work = [[(stage,) for stage in row] for row in plan.stage_s.tolist()]   # per chunk, per stage: its time
    else:   # per chunk, per stage: its phases' (cap, traffic)
        cap, traffic = plan.phase_cap.tolist(), plan.phase_traffic.tolist()
        work = [[tuple((cap[j][phase], traffic[j][phase]) for phase in phases) for phases in plan.stage_phases]
                for j in range(chunks)]

    def note(who: str, what: str) -> None:
        if log:
            entries.append((who, what, float(env.now)))

    def chunk(k: int, j: int, bucket_left: list[int], step_left: list[int], backward_done: simpy.Event):
        b = chunk_bucket[j]
        priority = k * layers + first_layer[b] if forward_overlap else 0
        for s, (port, stage) in enumerate(zip(ports, work[j])):
            yield port.request(priority)
            if log:
                note(f"chunk{k}.{j}", f"stage{s} start")
            if memory is None:
                yield Timeout(env, stage[0])
            else:
                for phase in stage:
                    yield memory.phase(*phase)
            port.release()
        if log:
            note(f"chunk{k}.{j}", "done")
        bucket_left[b] -= 1
        if bucket_left[b] == 0:
            weights_ready[k][b].succeed()
        step_left[0] -= 1
        if step_left[0] == 0:
            yield backward_done
            finish_communication(k)

    def release(k: int, b: int, bucket_left, step_left, backward_done) -> None:
        for j in chunks_of[b]:
            env.process(chunk(k, j, bucket_left, step_left, backward_done))

    def finish_communication(k: int) -> None:
        if forward_overlap and steps > 1:
            ends[k] = float(env.now)      # the weights are updated layer by layer during the next forward
        comm_done[k].succeed()

    def update_weights(k: int, i: int | None = None):
        """The optimizer's update of step ``k``: every layer at once after a barrier, or layer ``i`` when its
        own bucket is back (forward overlap)."""
        if i is None:
            yield comm_done[k]
            if update_total > 0:
                yield Timeout(env, update_total)
            ends[k] = float(env.now)
        else:
            yield weights_ready[k][layer_bucket[i]]
            if update_s[i] > 0:
                yield Timeout(env, update_s[i])
            if i == layers - 1 and steps == 1:
                ends[k] = float(env.now)  # one step alone: it ends when its last weights are updated

    def device():
        for k in range(steps):
            if k > 0 and not forward_overlap:
                yield from update_weights(k - 1)
            for i in range(layers):
                if k > 0 and forward_overlap:
                    yield from update_weights(k - 1, i)
                yield Timeout(env, forward_s[i])
            note("device", f"step{k} forward done")
            bucket_left = [len(c) for c in chunks_of]
            step_left = [chunks]
            backward_done = env.event()
            for i in range(layers - 1, -1, -1):
                yield Timeout(env, backward_s[i])
                b = layer_bucket[i]
                if plan.techniques.backward_overlap and i == first_layer[b]:
                    release(k, b, bucket_left, step_left, backward_done)
            note("device", f"step{k} backward done")
            if not plan.techniques.backward_overlap:
                for b in range(buckets):
                    release(k, b, bucket_left, step_left, backward_done)
            backward_done.succeed()
            if chunks == 0:
                for b in range(buckets):
                    weights_ready[k][b].succeed()
                finish_communication(k)
        if not forward_overlap:
            yield from update_weights(steps - 1)
        elif steps == 1:
            for i in range(layers):
                yield from update_weights(0, i)

    env.process(device())
    env.run()
    if not all(e.triggered for e in comm_done) or min(ends) < 0:
        raise RuntimeError("cluster model ended before every step finished")
    return ReferenceRun(tuple(ends), tuple(entries))
