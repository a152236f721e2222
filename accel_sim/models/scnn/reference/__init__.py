"""Discrete-event reference of the SCNN family (SimPy): for tests and small layers.

Hardware agents and where they live:

- per PE, a Cartesian-product multiplier array whose products of one step go through a
  :class:`~accel_sim.hardware.ScatterCrossbar` into A accumulator banks (:mod:`.products`
  lists every product, its output and its bank with numpy; one event per PE and group), or a
  dense dot-product array (:mod:`.dense`);
- two accumulator buffers per PE, a per-group :class:`~accel_sim.hardware.Barrier` and one drain
  unit (halo exchange, barrier, PPU; :mod:`.drain`), run by :mod:`.array`;
- one DRAM :class:`~accel_sim.hardware.Link` loading each pass's inputs and streaming weights,
  partial sums and outputs during its compute (:mod:`.dram`).

Written from the dataflow, not from the fast path's algebra: it imports only the family's
spec, plan and counters and the shared hardware blocks. A layer is its conv groups, then
images, then passes (temporal tile, channel chunk) one after the other; the time of each pass
is what the processes take.
"""
from __future__ import annotations

import numpy as np
import simpy

from accel_sim.foundations.errors import SimulationError
from accel_sim.hardware.recorder import Recorder
from accel_sim.models.scnn.counters import SCNNCounters
from accel_sim.models.scnn.plan import Plan
from accel_sim.models.scnn.reference.array import PeArray
from accel_sim.models.scnn.reference.dense import DenseWork, dense_pe_work
from accel_sim.models.scnn.reference.drain import DrainUnit, Ownership, ownership
from accel_sim.models.scnn.reference.dram import DramTraffic
from accel_sim.models.scnn.reference.products import PeProducts, chunk_weights, pe_products


PASS_AGENT = "pass control"   # the recorder's agent for the passes' waits on DRAM


class _Layer:
    """The agents of one layer run and what they count beyond the shared blocks."""

    def __init__(self, env: simpy.Environment, plan: Plan, recorder: Recorder | None = None):
        self.env = env
        self.plan = plan
        self.recorder = recorder
        if recorder is not None:
            recorder.agent(PASS_AGENT, "control")
        self.owners: Ownership = ownership(plan)
        self.drain_unit = DrainUnit(env, plan, self.owners)
        self.array = PeArray(env, plan, self.drain_unit, recorder)
        self.dram = DramTraffic(env, plan, self.owners, recorder)
        self.compute_cycles = self.load_stall = self.stream_stall = 0
        self.in_plane = 0          # Cartesian products whose output lies in the plane
        self.cartesian_products = 0  # Cartesian products computed (out-of-plane ones included)
        self.dense_products = 0    # dense designs: multiplier products (every window tap)
        self.nonzero_pairs = 0     # dense designs: products of two non-zeros
        self.dense_writes = 0      # dense designs: outputs written, complete, into the accumulators
        self.iaram_reads = self.fifo_writes = self.fifo_overflow = 0
        self.iaram_write_bits: list[int] = []   # per (conv group, image)
        self.oaram_write_bits: list[int] = []

    def _pe_work(self, image: int, conv_group: int, temporal_tile: int, chunk: int,
                 weights) -> list[PeProducts | DenseWork]:
        plan, spec, tiling = self.plan, self.plan.spec, self.plan.tiling
        work: list[PeProducts | DenseWork] = []
        for pe in range(spec.pes):
            if plan.dcnn:
                iy = (temporal_tile // tiling.temporal_cols) * spec.pe_rows + pe // spec.pe_cols
                ix = (temporal_tile % tiling.temporal_cols) * spec.pe_cols + pe % spec.pe_cols
                rows = range(int(tiling.rows.own_lo[iy]), int(tiling.rows.own_hi[iy]))
                cols = range(int(tiling.cols.own_lo[ix]), int(tiling.cols.own_hi[ix]))
                dense = dense_pe_work(plan, image, conv_group, rows, cols, chunk)
                self.dense_products += dense.products
                self.nonzero_pairs += dense.nonzero_pairs
                self.iaram_reads += dense.activation_reads
                work.append(dense)
            else:
                products = pe_products(plan, image, conv_group, temporal_tile, chunk, pe, weights)
                self.in_plane += products.in_plane
                self.cartesian_products += products.products
                self.iaram_reads += products.activation_reads
                self.fifo_writes += weights.fifo_entries
                work.append(products)
        return work

    def _pass(self, image: int, conv_group: int, temporal_tile: int, chunk: int, weights):
        env, plan = self.env, self.plan
        last = chunk == plan.tiling.channel_chunks - 1
        start = env.now
        load = self.dram.load_inputs(image, conv_group, temporal_tile, chunk)
        if load is not None:
            yield load
        compute_start = env.now
        stream = self.dram.stream(image, conv_group, temporal_tile, chunk)
        work = self._pe_work(image, conv_group, temporal_tile, chunk, weights)
        channels = int(plan.tiling.channel_bounds[chunk + 1] - plan.tiling.channel_bounds[chunk])
        yield env.process(self.array.run_pass(temporal_tile, work, completes_outputs=last, channels=channels))
        compute_end = env.now
        yield stream
        self.compute_cycles += int(compute_end - compute_start)
        self.load_stall += int(compute_start - start)
        self.stream_stall += int(env.now - compute_end)
        if self.recorder is not None:
            if compute_start > start:
                self.recorder.stall(PASS_AGENT, start, compute_start, "input tiles from DRAM")
            if env.now > compute_end:
                self.recorder.stall(PASS_AGENT, compute_end, env.now, "weights / partial sums / outputs streaming")
        if last:
            self.oaram_write_bits[-1] += int(plan.output_bits[image, conv_group, temporal_tile].sum())
            if plan.dcnn:   # each owned output of every channel written once, complete
                self.dense_writes += int(self.owners.owned[temporal_tile].sum()) * plan.view.out_channels

    def run(self):
        plan, tiling = self.plan, self.plan.tiling
        for conv_group in range(plan.view.groups):
            chunks = [None if plan.dcnn else chunk_weights(plan, conv_group, chunk)
                      for chunk in range(tiling.channel_chunks)]
            for image in range(plan.view.batch):
                self.iaram_write_bits.append(0)
                self.oaram_write_bits.append(0)
                written = self.dram.iaram_write_bits
                for temporal_tile in range(tiling.temporal_tiles):
                    for chunk in range(tiling.channel_chunks):
                        if temporal_tile == 0 and chunks[chunk] is not None:
                            self.fifo_overflow += chunks[chunk].overflow_blocks
                        yield self.env.process(self._pass(image, conv_group, temporal_tile, chunk, chunks[chunk]))
                self.iaram_write_bits[-1] = self.dram.iaram_write_bits - written

    def counters(self) -> SCNNCounters:
        crossbars = self.array.crossbars
        transfers = sum(int(x.bank_writes.sum()) for x in crossbars)
        steps = sum(x.steps for x in crossbars) + self.array.dense_beats   # a dense beat is a step
        busy = sum(x.busy_cycles for x in crossbars) + self.array.dense_beats + self.array.slot_cycles
        dcnn, gated = self.plan.dcnn, self.plan.traits.gate_zero_operands
        products = self.dense_products if dcnn else self.cartesian_products
        return SCNNCounters(
            compute_cycles=self.compute_cycles, input_load_stall_cycles=self.load_stall,
            dram_stream_stall_cycles=self.stream_stall, barrier_idle_cycles=self.array.barrier_idle,
            group_cycles=self.array.group_cycles, pe_busy_cycles=busy, steps=steps,
            bank_conflict_cycles=sum(x.conflict_cycles for x in crossbars), products=products,
            macs_issued=products if dcnn else self.in_plane,
            multiplier_ops=self.nonzero_pairs if gated else products,
            crossbar_transfers=transfers, accumulator_adds=products if dcnn else transfers, accumulator_reads=transfers,
            accumulator_writes=self.dense_writes if dcnn else transfers,
            iaram_reads=self.iaram_reads, iaram_write_bits=tuple(self.iaram_write_bits),
            oaram_write_bits=tuple(self.oaram_write_bits),
            weight_fifo_reads=steps * self.plan.spec.mult_i if dcnn else steps,
            weight_fifo_writes=self.fifo_writes, weight_fifo_overflow_blocks=self.fifo_overflow,
            psum_oaram_words=self.dram.psum_oaram_words, halo_link_words=self.drain_unit.link_words,
            spilled_partial_sums=self.drain_unit.spilled_words, ppu_outputs=self.drain_unit.ppu_outputs,
            dram_read_bits=self.dram.bus.counter.reads, dram_write_bits=self.dram.bus.counter.writes)


def reference(plan: Plan, max_cycles: int | None = None, recorder: Recorder | None = None) -> SCNNCounters:
    """``recorder`` (teaching traces): each PE's batches of steps (their MACs) and bank conflicts,
    its waits at the group barriers, the drains, the passes' DRAM stalls and bursts."""
    env = simpy.Environment()
    layer = _Layer(env, plan, recorder)
    done = env.process(layer.run())
    if max_cycles is None:
        env.run(until=done)
    else:
        env.run(until=env.any_of([done, env.timeout(max_cycles + 1)]))
        if not done.triggered:
            raise SimulationError(f"{plan.layer.name}: the reference passed the max_cycles guard {max_cycles}")
    return layer.counters()


def reference_outputs(plan: Plan) -> np.ndarray:
    """The layer's outputs after ReLU (batch, groups, Kg, out_h, out_w), summed from every in-plane
    product the Cartesian PEs compute (each partial sum goes to its owner: the halo exchange)."""
    view, tiling = plan.view, plan.tiling
    out = np.zeros((view.batch, view.groups, view.out_channels, view.out_h, view.out_w))
    for conv_group in range(view.groups):
        for chunk in range(tiling.channel_chunks):
            weights = chunk_weights(plan, conv_group, chunk)
            for image in range(view.batch):
                for temporal_tile in range(tiling.temporal_tiles):
                    for pe in range(plan.spec.pes):
                        k, oy, ox, value = pe_products(plan, image, conv_group, temporal_tile, chunk, pe,
                                                       weights).outputs
                        np.add.at(out[image, conv_group], (k, oy, ox), value)
    return np.maximum(out, 0.0)
