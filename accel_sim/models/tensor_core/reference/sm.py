"""Reference, streaming multiprocessor: an SM takes CTAs from the GPU's queue and runs each through
three processes linked by stores, one event per stage of K on each.

- **loader** (cp.async): posts each stage's A and B slices to the memory system's round and waits
  for the round before posting the next; the slice is then in flight (``in_flight`` store).
- **shared memory**: writes a stage's fill through the SM's shared-memory
  :class:`~accel_sim.hardware.link.Link` from when its first bytes land (cp.async writes shared
  memory as the data arrives: PTX ISA ``cp.async``; CUDA C++ Programming Guide, "Asynchronous
  Data Copies"), and it is not done before its last bytes land; then, once the whole stage has
  landed (``cp.async.wait_group`` and a barrier, as in CUTLASS
  ``cutlass/gemm/threadblock/mma_multistage.h``), the warps' ldmatrix reads; a warp reads its
  A rows and B columns when its tile holds real outputs. With ``shared_memory_fill: registers``
  (sm70, no cp.async) the fill starts once the whole stage has landed. The wave's SMs then meet at a barrier
  (the wave runs in lockstep) and the stage goes to the tensor cores (``staged`` store).
- **tensor cores**: the CTA's warps go round robin to the SM's sub-partitions; each sub-partition
  runs its warps' MMAs back to back on its tensor core while its register file streams their
  operands (A, metadata, B, C) through its read port; the stage is done when every sub-partition
  is done with both.
After the last stage the SM writes its C tile in the memory system's write round (epilogue).

With ``loads_in_flight: unbounded`` the stores are unbounded: the kernel's ``stages`` only bound
shared memory, not the loads in flight. With ``stages`` the loader also takes a slot of the CTA's
buffer ring (a ``ring`` store of tokens) before posting stage j >= stages - 1: the tensor cores
hand in a token when a stage enters them (stage j - (stages - 1) frees the slot of load j; with one
stage, when a stage has left them).
"""
from __future__ import annotations

import simpy

from accel_sim.hardware import BytesPerCycle, Link
from accel_sim.models.tensor_core.plan import TensorCorePlan
from accel_sim.models.tensor_core.plan.mma import cycles_per_mma, mma_read_bits, mmas_per_warp, products_per_mma
from accel_sim.hardware.recorder import COMPUTE, TRANSFER, Recorder
from accel_sim.models.tensor_core.reference.memory import L2_AGENT, Request, Slice, Wave
from accel_sim.models.tensor_core.reference.tally import Tally
from accel_sim.models.tensor_core.spec import KernelTile


class Cta:
    """One C tile's K slice: its extents, the A row panel and B column panel it reads, its slice of K."""

    __slots__ = ("rows", "cols", "a_panel", "b_panel", "slice")

    def __init__(self, rows: int, cols: int, a_panel: int, b_panel: int, k_slice: int = 0):
        self.rows, self.cols, self.a_panel, self.b_panel, self.slice = rows, cols, a_panel, b_panel, k_slice


class StreamingMultiprocessor:
    def __init__(self, env: simpy.Environment, number: int, plan: TensorCorePlan, tile: KernelTile, split: int,
                 queue: simpy.Store, tally: Tally, recorder: Recorder | None = None):
        spec = plan.spec
        self.recorder = recorder
        self.cores, self.smem = f"SM {number} tensor cores", f"SM {number} shared memory"
        self.env, self.number, self.plan, self.tile, self.queue, self.tally = env, number, plan, tile, queue, tally
        self.split = split
        self.shared_memory = Link(env, f"sm{number} shared memory", BytesPerCycle(spec.shared_memory_bandwidth))
        warps = [0] * spec.tensor_cores_per_sm
        for warp in range(tile.warps):
            warps[warp % spec.tensor_cores_per_sm] += 1
        # the sub-partitions that hold warps: (their register file's read port, their warps)
        self.sub_partitions = [(Link(env, f"sm{number} sub-partition {t} register file",
                                     BytesPerCycle(spec.register_file_bandwidth)), count) for t, count in enumerate(warps) if count]
        env.process(self._run())

    def _run(self):
        while True:
            cta, wave = yield self.queue.get()
            self.tally.ctas += 1
            if self.recorder is not None:
                self.recorder.agent(self.smem, "buffer")
                self.recorder.agent(self.cores, "pe")
            yield from self._compute(cta, wave)

    def _stages(self) -> list[int]:
        """The K extent of each stage of the CTA's slice: ``tile.k`` each, the last one what is left."""
        extents, done, k = [], 0, self.plan.problem.k // self.split
        while done < k:
            extents.append(min(self.tile.k, k - done))
            done += extents[-1]
        return extents

    def _epilogue(self, cta: Cta) -> tuple[Slice, ...]:
        """What the CTA writes: its C tile; with split-K its partial tile (FP32) written unless it is the last
        slice, the running partial read unless it is the first, and C by the last slice only."""
        outputs, acc = cta.rows * cta.cols, self.plan.spec.accumulator_bits
        if self.split == 1:
            return (Slice("c", None, outputs, outputs * self.plan.bits.c_value),)
        moved = [Slice("partial", None, outputs, outputs * acc)] if cta.slice > 0 else []    # read the running sum
        if cta.slice < self.split - 1:
            return (*moved, Slice("partial", None, outputs, outputs * acc))
        return (*moved, Slice("c", None, outputs, outputs * self.plan.bits.c_value))

    def _warp_reads(self, cta: Cta) -> tuple[int, int]:
        """A rows and B columns the CTA's warps read from shared memory per unit of K."""
        tile = self.tile
        a_rows = b_cols = 0
        for row in range(0, tile.m, tile.warp_m):
            rows = min(tile.warp_m, max(0, cta.rows - row))
            for col in range(0, tile.n, tile.warp_n):
                cols = min(tile.warp_n, max(0, cta.cols - col))
                if rows and cols:
                    a_rows += rows
                    b_cols += cols
        return a_rows, b_cols

    def _compute(self, cta: Cta, wave: Wave):
        extents = self._stages()
        in_flight, staged = simpy.Store(self.env), simpy.Store(self.env)
        ring = simpy.Store(self.env) if self.plan.spec.loads_in_flight == "stages" else None
        self.env.process(self._loader(cta, wave, extents, in_flight, ring))
        self.env.process(self._shared_memory(cta, wave, extents, in_flight, staged))
        yield self.env.process(self._tensor_cores(wave, extents, staged, ring))
        write = Request(self.number, self._epilogue(cta), self.env.event(), None)
        yield wave.requests.put(write)
        yield write.served

    def _loader(self, cta: Cta, wave: Wave, extents: list[int], in_flight: simpy.Store, ring: simpy.Store | None):
        problem, bits = self.plan.problem, self.plan.bits
        ahead = max(1, self.tile.stages - 1)          # loads posted before the first slot must come back
        for stage, extent in enumerate(extents):
            if ring is not None and stage >= ahead:
                yield ring.get()
            a_slots, b_elements = cta.rows * problem.slots(extent), cta.cols * extent
            slices = (Slice("a", ("a", cta.a_panel, stage), a_slots, cta.rows * bits.a_stream(problem.slots(extent))),
                      Slice("b", ("b", cta.b_panel, stage), b_elements, bits.b_stream(b_elements)))
            request = Request(self.number, slices, self.env.event(), self.env.event(), self.env.event())
            yield wave.requests.put(request)
            yield in_flight.put(request)
            yield request.served

    def _shared_memory(self, cta: Cta, wave: Wave, extents: list[int], in_flight: simpy.Store, staged: simpy.Store):
        problem, bits = self.plan.problem, self.plan.bits
        a_rows, b_cols = self._warp_reads(cta)
        for stage, extent in enumerate(extents):
            request = yield in_flight.get()
            # cp.async: the fill is written as its bytes land; without it, once the stage is in registers
            yield request.arriving if self.plan.spec.shared_memory_fill == "async" else request.arrived
            start = self.env.now
            fill = yield self.shared_memory.put(request.bits)
            busy = fill - start
            yield request.arrived                     # cp.async.wait_group + barrier: all of the stage landed
            read_a, read_b = a_rows * problem.slots(extent), b_cols * extent
            self.tally.count("read_a", read_a)
            self.tally.count("read_b", read_b)
            a_row = bits.a_stream(problem.slots(extent))      # an A row's stage, its group scales included
            reading = self.env.now
            done = yield self.shared_memory.get(a_rows * a_row + bits.b_stream(read_b))   # ldmatrix reads
            busy += done - reading
            if self.recorder is not None:
                self.recorder.record(self.smem, TRANSFER, start, self.env.now, f"stage {stage}: fill + ldmatrix",
                                     source=L2_AGENT)
            yield wave.shared_memory_done.put(self.smem)
            self.tally.step("shared_memory", wave.number, stage, busy)
            yield staged.put(stage)

    def _sub_partition(self, register_file: Link, mmas: int):
        start = self.env.now
        math = mmas * cycles_per_mma(self.plan.spec, self.plan.problem)
        operands = register_file.get(mmas * mma_read_bits(self.plan.spec, self.plan.problem))
        yield self.env.all_of([self.env.timeout(math), operands])
        return math, operands.value - start

    def _tensor_cores(self, wave: Wave, extents: list[int], staged: simpy.Store, ring: simpy.Store | None):
        spec, problem, tile = self.plan.spec, self.plan.problem, self.tile
        for stage, extent in enumerate(extents):
            yield staged.get()
            start = self.env.now
            if ring is not None and tile.stages > 1:
                yield ring.put(stage)                  # entering: the slot of load stage + stages - 1 is free
            per_warp = mmas_per_warp(spec, problem, tile, extent)
            parts = [self.env.process(self._sub_partition(rf, warps * per_warp)) for rf, warps in self.sub_partitions]
            yield self.env.all_of(parts)
            self.tally.count("mmas", sum(warps * per_warp for _, warps in self.sub_partitions))
            if self.recorder is not None:
                mmas = sum(warps * per_warp for _, warps in self.sub_partitions)
                self.recorder.record(self.cores, COMPUTE, start, self.env.now, f"stage {stage}: {mmas} MMAs",
                                     macs=mmas * products_per_mma(spec, problem), source=self.smem)
            self.tally.step("math", wave.number, stage, max(p.value[0] for p in parts))
            self.tally.step("register_file", wave.number, stage, max(p.value[1] for p in parts))
            self.tally.step("compute", wave.number, stage, self.env.now - start)
            if ring is not None and tile.stages == 1:
                yield ring.put(stage)                  # one buffer: free when the stage has left
