"""The PE array in one pass, reference (SimPy): PEs, per-group barriers, double-buffered drains.

Per pass, every PE runs the output-channel groups in order. For group ``g`` a PE takes one of
its two accumulator buffers (paper, Table 3: double-buffered; a :class:`simpy.Store` of two
tokens per PE), computes (Cartesian designs: its steps through its
:class:`~accel_sim.hardware.ScatterCrossbar` into the A banks; dense designs: its dot
products), then waits at the group's :class:`~accel_sim.hardware.Barrier` for every other PE.
At the barrier the group's buffers go to the one drain unit (:class:`.drain.DrainUnit`, groups
in order), which gives each PE its buffer back when the drain is over, while the PEs go on
with the next group in their other buffer. The pass's compute ends with the last drain.
"""
from __future__ import annotations

import numpy as np
import simpy

from accel_sim.hardware import Barrier
from accel_sim.hardware.recorder import BUSY, COMPUTE, CONFLICT, Recorder
from accel_sim.hardware.scatter_crossbar import ScatterCrossbar
from accel_sim.models.scnn.plan import Plan
from accel_sim.models.scnn.reference.dense import DenseWork
from accel_sim.models.scnn.reference.drain import DrainUnit
from accel_sim.models.scnn.reference.products import PeProducts
from accel_sim.models.scnn.reference.scatter_fifo import scatter_network

DRAIN_AGENT = "drain unit"   # the recorder's agent for the halo exchange and PPU of each group
BUFFERS = 2   # accumulator buffers per PE (1 with DNNsim's serial halo charge: no overlap)


class PeArray:
    def __init__(self, env: simpy.Environment, plan: Plan, drain_unit: DrainUnit, recorder: Recorder | None = None):
        self.env = env
        self.plan = plan
        spec = plan.spec
        self.recorder = recorder
        if recorder is not None:
            recorder.agent(DRAIN_AGENT, "control")
            for pe in range(spec.pes):
                recorder.agent(f"PE {pe}", "pe")
        self.crossbars = [scatter_network(env, spec, f"pe{pe} crossbar") for pe in range(spec.pes)]
        self.group_done = Barrier(env, spec.pes, name="group done", recorder=recorder)
        self.per_channel = spec.barrier == "group_channel"
        self.buffers = 1 if spec.halo_charge == "largest_region_serial" else BUFFERS
        self.drain_unit = drain_unit
        self.barrier_idle = 0     # PE-cycles waiting at group barriers
        self.group_cycles = 0     # cycles from a group's start to its barrier, summed
        self.dense_beats = 0      # dense designs: busy cycles of the dot products
        self.slot_cycles = 0      # steps whose products all left the plane (slot_only): a cycle, no bank

    def _compute(self, pe: int, group: int, work: PeProducts | DenseWork, channel: int | None = None,
                 macs: int = 0):
        """The PE's batch of steps (a process body); recorded, with ``macs``: the recorder's share of
        the PE's pass MACs for this batch."""
        if self.recorder is None:
            return self._work(pe, group, work, channel)
        return self._recorded_work(pe, group, work, channel, macs)

    def _recorded_work(self, pe: int, group: int, work: PeProducts | DenseWork, channel: int | None, macs: int):
        start, conflicts = self.env.now, self.crossbars[pe].conflict_cycles
        yield from self._work(pe, group, work, channel)
        conflicts = self.crossbars[pe].conflict_cycles - conflicts
        label = f"group {group}" + ("" if channel is None else f" channel {channel}")
        self.recorder.record(f"PE {pe}", COMPUTE, start, self.env.now - conflicts, label, macs=macs)
        if conflicts:
            self.recorder.record(f"PE {pe}", CONFLICT, self.env.now - conflicts, self.env.now,
                                 f"bank conflicts {label}", stall=conflicts, cause="products on one bank")

    def _work(self, pe: int, group: int, work: PeProducts | DenseWork, channel: int | None = None):
        if isinstance(work, DenseWork):
            self.dense_beats += work.beats
            yield self.env.timeout(work.beats)
        else:
            loads = work.steps_of(group, channel, self.plan.view.stride_h * self.plan.view.stride_w)
            yield self.crossbars[pe].put(loads, f"pe{pe} group {group}")
            # the multiplier array issues one step per cycle at least, even when no product reaches a bank
            # (a FIFO scatter network times such steps itself)
            unbanked = int((loads.max(axis=1, initial=0) == 0).sum()) * isinstance(self.crossbars[pe], ScatterCrossbar)
            if unbanked:
                self.slot_cycles += unbanked
                yield self.env.timeout(unbanked)

    def _meet(self, arrived: float, pe: int = 0):
        yield self.group_done.put(f"PE {pe}")
        self.barrier_idle += int(self.env.now - arrived)

    def _pe(self, pe: int, work: PeProducts | DenseWork, buffers: simpy.Store, drains: simpy.Store,
            channels: int):
        shares = iter(self._mac_shares(work, channels) if self.recorder is not None else [])
        for group in range(self.plan.tiling.out_groups):
            buffer = yield buffers.get()
            start = self.env.now
            if self.per_channel:   # DNNsim: every PE meets after each (group, input channel)
                for channel in range(channels):
                    yield self.env.process(self._compute(pe, group, work, channel, next(shares, 0)))
                    yield self.env.process(self._meet(self.env.now, pe))
            else:
                yield self.env.process(self._compute(pe, group, work, None, next(shares, 0)))
                yield self.env.process(self._meet(self.env.now, pe))
            if pe == 0:
                self.group_cycles += int(self.env.now - start)
            yield drains.put((group, pe, buffer))

    def _mac_shares(self, work: PeProducts | DenseWork, channels: int) -> list[int]:
        """For the recorder: the PE's MACs of the pass (in-plane products; dense designs: every
        product) over its batches of steps in order, in proportion to their products into the banks
        (a dense PE's beats are the same in every group), whole numbers adding up to the pass's."""
        groups = range(self.plan.tiling.out_groups)
        units = [(g, c) for g in groups for c in range(channels)] if self.per_channel else [(g, None) for g in groups]
        if isinstance(work, DenseWork):
            total, weights = work.products, np.ones(len(units), dtype=np.int64)
        else:
            classes = self.plan.view.stride_h * self.plan.view.stride_w
            total = work.in_plane
            weights = np.array([int(work.steps_of(g, c, classes).sum()) for g, c in units], dtype=np.int64)
        whole = int(weights.sum()) or 1
        return np.diff(np.concatenate(([0], np.cumsum(weights))) * total // whole).tolist()

    def _drains(self, temporal_tile: int, buffers: list[simpy.Store], drains: simpy.Store,
                completes_outputs: bool):
        channels = self.plan.tiling.group_channels(self.plan.view.out_channels)
        pes = self.plan.spec.pes
        for group in range(self.plan.tiling.out_groups):
            returned = []
            for _ in range(pes):
                returned.append((yield drains.get()))
            start = self.env.now
            yield self.env.process(self.drain_unit.drain(temporal_tile, int(channels[group]), completes_outputs))
            if self.recorder is not None:
                self.recorder.record(DRAIN_AGENT, BUSY, start, self.env.now, f"drain group {group}")
            for _, pe, buffer in returned:
                yield buffers[pe].put(buffer)

    def run_pass(self, temporal_tile: int, work: list[PeProducts | DenseWork], completes_outputs: bool,
                 channels: int = 1):
        """A process computing one pass of ``channels`` input channels; it ends with the last
        group's drain."""
        pes = self.plan.spec.pes
        buffers = []
        for _ in range(pes):
            store = simpy.Store(self.env, capacity=self.buffers)
            store.items.extend(range(self.buffers))
            buffers.append(store)
        drains = simpy.Store(self.env)
        for pe in range(pes):
            self.env.process(self._pe(pe, work[pe], buffers[pe], drains, channels))
        yield self.env.process(self._drains(temporal_tile, buffers, drains, completes_outputs))
