"""Reference, memory system: the L2 (its tags and one read path shared by all SMs), DRAM and the SM ports.

The SMs of a wave load each stage together: the memory system gathers one request per SM (a
*round*), then moves the round at once on :class:`~accel_sim.hardware.link.Link` s running
concurrently: the L2 path (every request's bits at the L2 bandwidth), each SM's port to L2 (its
own bits) and DRAM (the bits of the operand slices the L2 does not hold yet, at the round's rate:
:mod:`..plan.dram_rate`). The round ends when
all of them are done; then the SMs post the next stage. The data streams into shared memory over
the round, ``memory_latency`` cycles late: its first bytes land that long after the round starts
(``arriving``), its last that long after the round ends (``arrived``). The L2 keeps a tag per operand slice it has read (an
A row panel or B column panel over one stage of K); when A and B do not fit the L2 together, the
next wave's slices displace them (the tags are dropped when a wave ends). The epilogue is a
write round: every SM's C tile (with split-K, its FP32 partial tile written and, after the first
slice, the running one read; the last slice writes C) through its port and the L2 path.
"""
from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import simpy

from accel_sim.hardware import Barrier, BytesPerCycle, Link
from accel_sim.hardware.recorder import TRANSFER, Recorder
from accel_sim.models.tensor_core.plan import TensorCorePlan
from accel_sim.models.tensor_core.plan.dram_rate import round_rate
from accel_sim.models.tensor_core.spec import KernelTile
from accel_sim.models.tensor_core.reference.tally import Tally


L2_AGENT = "L2"   # the recorder's agent for the L2 rounds


@dataclass(frozen=True)
class Slice:
    """Part of an operand one SM moves in a round: an A or B slice read, or its C tile written."""

    operand: str          # "a", "b" (read), "c" (written) or "partial" (split-K partial tiles read and written)
    tag: Hashable         # what the L2 holds: the panel over one stage of K (reads)
    count: int            # A slots, B or C elements
    bits: int


@dataclass
class Request:
    """One SM's part of a round; a read's data starts landing in shared memory (``arriving``)
    ``memory_latency`` after the round starts and has all landed (``arrived``) that long after it ends."""

    sm: int
    slices: tuple[Slice, ...]
    served: simpy.Event           # the round is done: the SM may post its next request
    arrived: simpy.Event | None   # None: a write
    arriving: simpy.Event | None = None

    @property
    def bits(self) -> int:
        return sum(s.bits for s in self.slices)


class Wave:
    """The CTAs launched together, one per SM: their SMs share every round and finish each
    stage's shared-memory work together (a barrier: the wave runs in lockstep)."""

    def __init__(self, env: simpy.Environment, number: int, parties: int, recorder: Recorder | None = None):
        self.number = number
        self.parties = parties
        self.requests = simpy.Store(env)
        self.shared_memory_done = Barrier(env, parties, f"wave {number} shared memory", recorder)
        self.finished = env.event()


class MemorySystem:
    def __init__(self, env: simpy.Environment, plan: TensorCorePlan, tally: Tally, tile: KernelTile,
                 recorder: Recorder | None = None):
        spec = plan.spec
        self.spec = spec
        self.tile = tile            # the kernel running (its DRAM rate)
        self.env = env
        self.recorder = recorder
        if recorder is not None:
            recorder.agent(L2_AGENT, "buffer")
        self.tally = tally
        self.latency = spec.memory_latency
        self.keeps_tags = plan.l2_resident
        self.tags: set[Hashable] = set()
        self.l2 = Link(env, "l2", BytesPerCycle(spec.l2_bandwidth))
        self.dram = Link(env, "dram", BytesPerCycle(spec.dram_bandwidth), recorder=recorder)   # bits
        self.ports = [Link(env, f"sm{number} port", BytesPerCycle(spec.l2_to_sm_bandwidth)) for number in range(spec.sms)]

    def open_wave(self, number: int, parties: int) -> Wave:
        wave = Wave(self.env, number, parties, self.recorder)
        self.tally.waves += 1
        self.env.process(self._serve(wave))
        return wave

    def _gather(self, wave: Wave):
        requests = []
        for _ in range(wave.parties):
            requests.append((yield wave.requests.get()))
        return requests

    def _miss(self, tag: Hashable) -> bool:
        if tag in self.tags:
            return False
        self.tags.add(tag)
        return True

    def _serve(self, wave: Wave):
        stage = 0
        while True:
            requests = yield self.env.process(self._gather(wave))
            start = self.env.now
            moves = Link.put if requests[0].arrived is None else Link.get   # C tiles out, or operands in
            ports = [moves(self.ports[r.sm], r.bits, "round") for r in requests]
            l2 = moves(self.l2, sum(r.bits for r in requests), "round")
            if requests[0].arrived is None:     # the epilogue
                yield self.env.all_of([l2, *ports])
                if self.recorder is not None:
                    self.recorder.record(L2_AGENT, TRANSFER, start, self.env.now, "C tiles written")
                for r in requests:
                    for s in r.slices:
                        self.tally.count(s.operand, s.count)
                break
            self.env.process(self._begin(requests))
            dram_bits = 0
            for r in requests:
                for s in r.slices:
                    self.tally.count(f"fill_{s.operand}", s.count)
                    if self._miss(s.tag):
                        self.tally.count(f"dram_{s.operand}", s.count)
                        dram_bits += s.bits
            if dram_bits:   # the round's rate: sustained, or what its bytes in flight reach (plan.dram_rate)
                self.dram.rate = BytesPerCycle(round_rate(self.spec, self.tile, dram_bits))
            dram = self.dram.get(dram_bits, "round")
            yield self.env.all_of([l2, dram, *ports])
            self.tally.step("l2", wave.number, stage, max(p.value for p in [l2, *ports]) - start)
            if self.recorder is not None:
                self.recorder.record(L2_AGENT, TRANSFER, start, max(p.value for p in [l2, *ports]),
                                     f"wave {wave.number} stage {stage} operands")
            self.tally.step("dram", wave.number, stage, dram.value - start)
            for r in requests:
                r.served.succeed()
            self.env.process(self._land(requests))
            stage += 1
        if not self.keeps_tags:
            self.tags.clear()
        for r in requests:
            r.served.succeed()
        wave.finished.succeed()

    def _begin(self, requests: list[Request]):
        yield self.env.timeout(self.latency)
        for r in requests:
            if r.arriving is not None:
                r.arriving.succeed()

    def _land(self, requests: list[Request]):
        yield self.env.timeout(self.latency)
        for r in requests:
            r.arrived.succeed()
