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

import simpy

from accel_sim.hardware import Barrier
from accel_sim.hardware.scatter_crossbar import ScatterCrossbar
from accel_sim.models.scnn.plan import Plan
from accel_sim.models.scnn.reference.dense import DenseWork
from accel_sim.models.scnn.reference.drain import DrainUnit
from accel_sim.models.scnn.reference.products import PeProducts
from accel_sim.models.scnn.reference.scatter_fifo import scatter_network

BUFFERS = 2   # accumulator buffers per PE (1 with DNNsim's serial halo charge: no overlap)


class PeArray:
    def __init__(self, env: simpy.Environment, plan: Plan, drain_unit: DrainUnit):
        self.env = env
        self.plan = plan
        spec = plan.spec
        self.crossbars = [scatter_network(env, spec, f"pe{pe} crossbar") for pe in range(spec.pes)]
        self.group_done = Barrier(env, spec.pes, name="group done")
        self.per_channel = spec.barrier == "group_channel"
        self.buffers = 1 if spec.halo_charge == "largest_region_serial" else BUFFERS
        self.drain_unit = drain_unit
        self.barrier_idle = 0     # PE-cycles waiting at group barriers
        self.group_cycles = 0     # cycles from a group's start to its barrier, summed
        self.dense_beats = 0      # dense designs: busy cycles of the dot products
        self.slot_cycles = 0      # steps whose products all left the plane (slot_only): a cycle, no bank

    def _compute(self, pe: int, group: int, work: PeProducts | DenseWork, channel: int | None = None):
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

    def _meet(self, arrived: float):
        yield self.group_done.put()
        self.barrier_idle += int(self.env.now - arrived)

    def _pe(self, pe: int, work: PeProducts | DenseWork, buffers: simpy.Store, drains: simpy.Store,
            channels: int):
        for group in range(self.plan.tiling.out_groups):
            buffer = yield buffers.get()
            start = self.env.now
            if self.per_channel:   # DNNsim: every PE meets after each (group, input channel)
                for channel in range(channels):
                    yield self.env.process(self._compute(pe, group, work, channel))
                    yield self.env.process(self._meet(self.env.now))
            else:
                yield self.env.process(self._compute(pe, group, work))
                yield self.env.process(self._meet(self.env.now))
            if pe == 0:
                self.group_cycles += int(self.env.now - start)
            yield drains.put((group, pe, buffer))

    def _drains(self, temporal_tile: int, buffers: list[simpy.Store], drains: simpy.Store,
                completes_outputs: bool):
        channels = self.plan.tiling.group_channels(self.plan.view.out_channels)
        pes = self.plan.spec.pes
        for group in range(self.plan.tiling.out_groups):
            returned = []
            for _ in range(pes):
                returned.append((yield drains.get()))
            yield self.env.process(self.drain_unit.drain(temporal_tile, int(channels[group]), completes_outputs))
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
