"""Discrete-event reference of Eyeriss v2 (SimPy), for tests and small layers.

Agents, round by round (a round deals the next ``pes`` work units to the PEs):

- the **weight routers** (one per PE row of a cluster): each sends, one after the other, the distinct
  CSC weight matrices its PEs must load this round (a 24-b word a cycle: data words, then address
  entries), then signals its row;
- the **PEs**: each keeps the weight matrix it last loaded; a PE whose next work unit needs another
  waits for its router, then slides its iact window along its ofmap columns, one event per work unit
  (the windows are walked one by one here, from the CSC operands: non-zero iacts and, for each, the
  non-zero weights of its column, ``simd_width`` a cycle);
- the **control** starts a round when every PE of the last one is done.

Every access is counted where it happens.
"""
from __future__ import annotations

import numpy as np
import simpy

from accel_sim.hardware import run_until_done
from accel_sim.hardware.recorder import BARRIER, COMPUTE, TRANSFER, Recorder
from accel_sim.models.eyeriss_v2.counters import EyerissV2Counters
from accel_sim.models.eyeriss_v2.plan import EyerissV2Plan


class _Model:
    def __init__(self, plan: EyerissV2Plan, recorder: Recorder | None = None) -> None:
        self.recorder = recorder
        self.plan, self.spec, self.sh = plan, plan.spec, plan.shape
        self.c_starts = np.cumsum((0,) + plan.c_sizes[:-1])
        self.n = dict.fromkeys(("compute", "busy", "issued", "idle", "iact_reads", "weight_reads", "iact_writes",
                                "weight_writes", "load_words", "glb_iact_reads", "dram_weight_bits", "units",
                                "rounds"), 0)
        self.held: dict[int, tuple] = {}

    def units(self):
        sh, p = self.sh, self.plan
        for g in range(sh.groups):
            for mb in range(len(p.m_sizes)):
                for cb in range(len(p.c_sizes)):
                    for r in range(sh.filter_rows):
                        for n in range(sh.images):
                            for e in range(sh.out_rows):
                                for fb in range(len(p.f_sizes)):
                                    yield g, mb, cb, r, n, e, fb

    def matrix(self, g: int, mb: int, cb: int, r: int) -> tuple[int, int]:
        """(data words, address bits) of one CSC weight matrix."""
        c = int(self.c_starts[cb])
        cnt = self.plan.w_cnt[g, mb, c:c + self.plan.c_sizes[cb], r]
        words = int(sum(-(-int(v) // self.spec.simd_width) for v in cnt.reshape(-1)))
        return words, (cnt.size + 1) * self.spec.weight_addr_bits

    def unit_cycles(self, g: int, mb: int, cb: int, r: int, n: int, e: int, fb: int) -> int:
        p, sh, spec = self.plan, self.sh, self.spec
        c = int(self.c_starts[cb])
        row = p.x_nz[g, n, c:c + p.c_sizes[cb], e * sh.stride + r]
        cnt = p.w_cnt[g, mb, c:c + p.c_sizes[cb], r]
        cycles = spec.pipeline_stages - 1
        for f in range(p.f_starts[fb], p.f_starts[fb] + p.f_sizes[fb]):
            window = row[:, f * sh.stride_w:f * sh.stride_w + sh.filter_cols]
            weights = cnt[window]
            macs = int(sum(-(-int(v) // spec.simd_width) for v in weights))
            self.n["issued"] += int(weights.sum())
            self.n["idle"] += macs * spec.simd_width - int(weights.sum())
            self.n["iact_reads"] += int(window.sum())
            self.n["weight_reads"] += macs
            cycles += max(int(window.sum()), macs) if window.any() else spec.empty_window_cycles
        return cycles

    def segment(self, g: int, cb: int, n: int, h: int, fb: int) -> int:
        p, sh = self.plan, self.sh
        c = int(self.c_starts[cb])
        lo = p.f_starts[fb] * sh.stride_w
        hi = min((p.f_starts[fb] + p.f_sizes[fb] - 1) * sh.stride_w + sh.filter_cols, sh.width)
        return int(p.x_nz[g, n, c:c + p.c_sizes[cb], h, lo:hi].sum())


def _router(env: simpy.Environment, model: _Model, matrices: list[tuple[int, int]], done: simpy.Event, index: int):
    for words, addr_bits in matrices:
        load = words + -(-addr_bits // model.spec.noc_port_bits)
        model.n["load_words"] += load
        yield env.timeout(load)
        if model.recorder is not None:
            model.recorder.record(f"weight router {index}", TRANSFER, env.now - load, env.now, f"{load} weight words")
    done.succeed()


def _pe(env: simpy.Environment, model: _Model, unit: tuple, wait: simpy.Event | None, spent: list[int],
        index: int = 0, router: int | None = None, ends: list | None = None):
    start = env.now
    if wait is not None:
        yield wait
    issued = model.n["issued"]
    cycles = model.unit_cycles(*unit)
    spent.append(cycles)
    recorder = model.recorder
    if recorder is not None:
        if env.now > start:
            recorder.stall(f"PE {index}", start, env.now, "weights from its router", 0)
        recorder.record(f"PE {index}", COMPUTE, env.now, env.now + cycles, "unit g{} m{} c{} r{} n{} e{} f{}".format(*unit),
                        macs=model.n["issued"] - issued, source="" if router is None else f"weight router {router}")
    yield env.timeout(cycles)
    if ends is not None:
        ends.append((index, env.now))


def _round(model: _Model, batch: list[tuple]) -> tuple[dict[int, list], list[int | None]]:
    """What the routers send this round and which router (or none) each PE waits for; counts the loads."""
    spec, sh = model.spec, model.sh
    sends: dict[int, list] = {}
    fetched, shared, waits = set(), set(), []
    for pe, (g, mb, cb, r, n, e, fb) in enumerate(batch):
        matrix_key, router = (g, mb, cb, r), pe // spec.pes_per_weight_router
        if model.held.get(pe) == matrix_key:
            waits.append(None)
        else:
            model.held[pe] = matrix_key
            words, addr_bits = model.matrix(*matrix_key)
            model.n["weight_writes"] += words
            if matrix_key not in fetched:
                fetched.add(matrix_key)
                model.n["dram_weight_bits"] += words * spec.noc_port_bits + addr_bits
            queue = sends.setdefault(router, [])
            if matrix_key not in [k for k, _ in queue]:
                queue.append((matrix_key, (words, addr_bits)))
            waits.append(router)
        iact_key = (g, cb, n, e * sh.stride + r, fb)
        count = model.segment(*iact_key)
        model.n["iact_writes"] += count
        if iact_key not in shared:
            shared.add(iact_key)
            model.n["glb_iact_reads"] += count
    return sends, waits


def _control(env: simpy.Environment, model: _Model):
    units = list(model.units())
    model.n["units"] = len(units)
    for first in range(0, len(units), model.spec.pes):
        batch = units[first:first + model.spec.pes]
        sends, waits = _round(model, batch)
        done = {router: env.event() for router in sends}
        for router, queue in sends.items():
            env.process(_router(env, model, [m for _, m in queue], done[router], router))
        spent: list[int] = []
        ends: list = []
        yield env.all_of([env.process(_pe(env, model, unit, None if w is None else done[w], spent, pe, w, ends))
                          for pe, (unit, w) in enumerate(zip(batch, waits))])
        if model.recorder is not None:
            for pe, end in ends:
                if end < env.now:
                    model.recorder.record(f"PE {pe}", BARRIER, end, env.now, "wait for the round's slowest PE")
        model.n["compute"] += max(spent)
        model.n["busy"] += sum(spent)
        model.n["rounds"] += 1


def reference(plan: EyerissV2Plan, max_cycles: int | None = None,
              recorder: Recorder | None = None) -> EyerissV2Counters:
    """``recorder`` (teaching traces): each router's weight loads, each PE's work units (their MACs),
    its waits for weights and for the round's slowest PE (no counter counts these: shown as waits).
    DRAM is not timed by this reference (its bits are counted from the plan): no DRAM events."""
    env = simpy.Environment()
    model = _Model(plan, recorder)
    if recorder is not None:
        for pe in range(plan.spec.pes):
            recorder.agent(f"PE {pe}", "pe")
        for router in range(-(-plan.spec.pes // plan.spec.pes_per_weight_router)):
            recorder.agent(f"weight router {router}", "network")
    done = env.process(_control(env, model))
    run_until_done(env, done, max_cycles, plan.layer.name)
    n, sh = model.n, plan.shape
    x_nonzero = int(plan.x_nz.sum())
    outputs = sh.groups * sh.images * sh.filters * sh.out_rows * sh.out_cols
    blocks = len(plan.c_sizes)
    return EyerissV2Counters(
        cycles=int(env.now), compute_cycles=n["compute"], rounds=n["rounds"], work_units=n["units"],
        pe_busy_cycles=n["busy"], macs_issued=n["issued"], simd_idle_slots=n["idle"],
        iact_spad_reads=n["iact_reads"], weight_spad_reads=n["weight_reads"], weight_addr_reads=n["iact_reads"],
        iact_spad_writes=n["iact_writes"], weight_spad_writes=n["weight_writes"], weight_load_words=n["load_words"],
        psum_out_words=sh.filter_rows * blocks * outputs, glb_iact_writes=x_nonzero,
        glb_iact_reads=n["glb_iact_reads"], glb_psum_writes=outputs * (blocks - 1),
        glb_psum_reads=outputs * (blocks - 1), dram_iact_read_bits=x_nonzero * plan.spec.csc_pair_bits,
        dram_weight_read_bits=n["dram_weight_bits"], dram_ofmap_write_bits=outputs * plan.arch.word_bits)
