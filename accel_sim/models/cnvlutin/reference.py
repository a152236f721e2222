"""Discrete-event reference of Cnvlutin's units (SimPy), for tests and small layers.

Agents:

- one process per neuron lane. For each window (one output pixel of one group, per filter
  pass) it walks the window's ``R x S`` positions, reads its slice's neurons there from the
  neuron memory (Cnvlutin: the non-zero ones with their offsets, one per cycle, or the empty
  brick's header; the baseline: every brick slot, one per cycle), spends those cycles, then
  waits at the window :class:`~accel_sim.hardware.Barrier`: the next window starts when every
  lane is done with this one (the units share the window's neurons);
- one process per DRAM stream (inputs, weights, outputs) moving its words at ``dram.bandwidth``
  bytes per cycle after ``dram.latency`` (USER bandwidth; CALC streams take no time).

The layer ends when every process has ended. Events are per lane per window and per barrier;
MACs are counted per non-zero neuron read (the baseline: per real channel slot), times the
filters of the pass.
"""
from __future__ import annotations

import math

import numpy as np
import simpy

from accel_sim.models.cnvlutin.counters import CnvlutinCounters
from accel_sim.models.cnvlutin.plan import CnvlutinPlan, GroupWork
from accel_sim.hardware import Barrier, run_until_done
from accel_sim.hardware.recorder import COMPUTE, DRAM, Recorder

BITS_PER_BYTE = 8


class _Tally:
    """What the lanes and streams report as they work."""

    def __init__(self) -> None:
        self.slots = self.nonzeros = self.reads = self.offsets = self.macs = 0
        self.dram_read_words = self.dram_write_words = 0
        self.dram_end = 0


def _windows(work: GroupWork):
    """Every window of a group, in order: (image, y0, x0) of its top-left input position."""
    (oh, ow), (sh, sw) = work.out, work.stride
    for n in range(work.lane_nonzeros.shape[0]):
        for y in range(oh):
            for x in range(ow):
                yield n, y * sh, x * sw


def _lane(env: simpy.Environment, plan: CnvlutinPlan, lane: int, barrier: Barrier, tally: _Tally,
          recorder: Recorder | None = None):
    agent = f"lane {lane}"
    spec, depth = plan.spec, plan.slice_depth
    real_channels = max(0, min(depth, plan.channels - lane * depth))  # the lane's slice of the real channels
    for filters in plan.filters_per_pass:
        for work in plan.groups:
            r_max, s_max = work.kernel
            for n, y0, x0 in _windows(work):
                here = work.lane_nonzeros[n, lane, y0:y0 + r_max, x0:x0 + s_max]
                nonzero = int(here.sum())
                macs_before = tally.macs
                if spec.zero_skipping:
                    busy = nonzero + spec.empty_brick_cycles * int(np.count_nonzero(here == 0))
                    tally.reads += nonzero
                    tally.offsets += nonzero
                    tally.macs += nonzero * filters
                else:  # every brick slot, zeros included; padding channels hold no weights
                    busy = depth * r_max * s_max
                    tally.reads += busy
                    tally.macs += real_channels * r_max * s_max * filters
                if recorder is not None:
                    recorder.record(agent, COMPUTE, env.now, env.now + busy, f"window ({n}, {y0}, {x0})",
                                    macs=tally.macs - macs_before)
                if busy:
                    yield env.timeout(busy)
                yield barrier.put(agent)


def _count_window_contents(plan: CnvlutinPlan, tally: _Tally) -> None:
    for work in plan.groups:
        r_max, s_max = work.kernel
        for n, y0, x0 in _windows(work):
            tally.nonzeros += int(work.lane_nonzeros[n, :, y0:y0 + r_max, x0:x0 + s_max].sum())
            tally.slots += plan.spec.neuron_lanes * plan.slice_depth * r_max * s_max


def _stream(env: simpy.Environment, plan: CnvlutinPlan, words: int, tally: _Tally, write: bool,
            recorder: Recorder | None = None, name: str = ""):
    arch = plan.arch
    if write:
        tally.dram_write_words += words
    else:
        tally.dram_read_words += words
    if arch.dram.bandwidth_mode == "user":
        yield env.timeout(arch.dram.latency + math.ceil(words * arch.word_bits / BITS_PER_BYTE / arch.dram.bandwidth))
    tally.dram_end = max(tally.dram_end, int(env.now))
    if recorder is not None:
        recorder.record(name, DRAM, 0, env.now, f"{'write' if write else 'read'} {words} words",
                        dram_bytes=words * arch.word_bits / BITS_PER_BYTE)


STREAMS = ("DRAM inputs", "DRAM weights", "DRAM outputs")   # the recorder's DRAM agents


def reference(plan: CnvlutinPlan, max_cycles: int | None = None, recorder: Recorder | None = None) -> CnvlutinCounters:
    """``recorder`` (teaching traces): each lane's windows (their MACs), its waits at the window
    barrier, and the three DRAM streams."""
    env = simpy.Environment()
    tally = _Tally()
    lanes = plan.spec.neuron_lanes
    if recorder is not None:
        for lane in range(lanes):
            recorder.agent(f"lane {lane}", "pe")
        for name in STREAMS:
            recorder.agent(name, "dram")
    barrier = Barrier(env, lanes, "window", recorder)
    compute = [env.process(_lane(env, plan, lane, barrier, tally, recorder)) for lane in range(lanes)]
    layer = plan.layer
    streams = [env.process(_stream(env, plan, words, tally, name == STREAMS[2], recorder, name)) for name, words in
               zip(STREAMS, (layer.input_elements, layer.weight_elements, layer.output_elements))]
    compute_end = [0]

    def units_done():
        yield env.all_of(compute)
        compute_end[0] = int(env.now)

    done = env.all_of([env.process(units_done()), *streams])
    run_until_done(env, done, max_cycles, layer.name)
    _count_window_contents(plan, tally)
    return CnvlutinCounters(
        cycles=int(env.now), compute_cycles=compute_end[0], dram_cycles=tally.dram_end,
        window_slots=tally.slots, window_nonzeros=tally.nonzeros, neuron_reads=tally.reads,
        offset_reads=tally.offsets, macs_issued=tally.macs, dram_read_words=tally.dram_read_words,
        dram_write_words=tally.dram_write_words)
