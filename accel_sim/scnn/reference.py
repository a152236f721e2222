"""Per-cycle reference of the SCNN PE array (small layers only: Python loops per product).

Written from the dataflow, not from the fast path's algebra:

- per pass (temporal tile, then channel chunk: the chunk's channels only), each PE walks its
  tile in the paper's loop order (channel, phase, I-vector, F-vector),
  forms the F x I products, computes every product's output coordinate and its bank with
  :func:`accel_sim.scnn.bank_mapping.bank_of`, and lets the crossbar deliver one product per
  bank per cycle until the step's products are all accumulated (real partial sums, so the
  functional result can be checked);
- barriers, the double-buffered accumulators, the drain unit and DRAM streaming run as
  SimPy processes (:func:`simpy_tile_timing`), an independent implementation of
  :func:`accel_sim.scnn.timeline.tile_timing`.
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np
import simpy

from accel_sim.arch.spec import ArchSpec
from accel_sim.errors import SimulationError
from accel_sim.scnn.bank_mapping import bank_of
from accel_sim.scnn.plan import LayerPlan, plan_layer
from accel_sim.scnn.timeline import TileTiming
from accel_sim.workload.layer import Layer


def _pe_group_cycles(plan: LayerPlan, image: int, conv_group: int, iy: int, ix: int, group: int,
                     channels: range, accumulator: np.ndarray | None) -> int:
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    rows, cols = tiling.rows, tiling.cols
    wmask, amask = plan.weight_mask[conv_group], plan.input_mask[image, conv_group]
    weights, inputs = plan.weights[conv_group], plan.inputs[image, conv_group]
    sh, sw = view.stride_h, view.stride_w
    k_lo, k_hi = group * tiling.kc, min((group + 1) * tiling.kc, view.out_channels)
    cycles = 0
    for c in channels:
        for ph_y in range(min(sh, view.r)):
            for ph_x in range(min(sw, view.s)):
                acts = [(y, x) for y in range(rows.lo[iy], rows.hi[iy]) for x in range(cols.lo[ix], cols.hi[ix])
                        if amask[c, y, x] and (y + view.pad_top) % sh == ph_y and (x + view.pad_left) % sw == ph_x]
                if spec.weight_order == "rs_then_k":
                    taps = [(k, r, s) for k in range(k_lo, k_hi) for r in range(view.r) for s in range(view.s)]
                else:
                    taps = [(k, r, s) for r in range(view.r) for s in range(view.s) for k in range(k_lo, k_hi)]
                ws = [(k, r, s) for k, r, s in taps if wmask[k, c, r, s] and r % sh == ph_y and s % sw == ph_x]
                for i0 in range(0, len(acts), spec.mult_i):
                    for f0 in range(0, len(ws), spec.mult_f):
                        pending: dict[int, list] = defaultdict(list)
                        for k, r, s in ws[f0:f0 + spec.mult_f]:
                            for y, x in acts[i0:i0 + spec.mult_i]:
                                oy = (y + view.pad_top - r) // sh - rows.acc_lo[iy]
                                ox = (x + view.pad_left - s) // sw - cols.acc_lo[ix]
                                if not (0 <= oy < tiling.acc_h and 0 <= ox < tiling.acc_w):
                                    raise SimulationError(f"product outside the accumulator region: {(oy, ox)}")
                                bank = bank_of(spec, tiling, k - k_lo, int(oy), int(ox))
                                pending[bank].append((k - k_lo, int(oy), int(ox),
                                                      float(weights[k, c, r, s]) * float(inputs[c, y, x])))
                        while any(pending.values()):   # one crossbar cycle: one product per bank
                            cycles += 1
                            for queue in pending.values():
                                if queue:
                                    k_l, oy, ox, value = queue.pop(0)
                                    if accumulator is not None:
                                        accumulator[k_l, oy, ox] += value
    return cycles


def reference_busy(plan: LayerPlan, image: int, conv_group: int,
                   outputs: np.ndarray | None = None) -> np.ndarray:
    """Busy cycles (passes, PEs, groups), per cycle; a pass is one (temporal tile, channel chunk).
    With ``outputs`` (Kg, out_h, out_w), every pass's accumulated partial sums are exchanged
    (halos) and added into it."""
    spec, tiling = plan.spec, plan.tiling
    busy = np.zeros((tiling.passes, spec.pes, tiling.out_groups), dtype=np.int64)
    bounds = tiling.channel_bounds
    for ty in range(tiling.temporal_rows):
        for tx in range(tiling.temporal_cols):
            for chunk in range(tiling.channel_chunks):
                t = (ty * tiling.temporal_cols + tx) * tiling.channel_chunks + chunk
                channels = range(int(bounds[chunk]), int(bounds[chunk + 1]))
                for py in range(spec.pe_rows):
                    for px in range(spec.pe_cols):
                        iy, ix = ty * spec.pe_rows + py, tx * spec.pe_cols + px
                        for g in range(tiling.out_groups):
                            acc = np.zeros((tiling.kc, tiling.acc_h, tiling.acc_w)) if outputs is not None else None
                            busy[t, py * spec.pe_cols + px, g] = _pe_group_cycles(plan, image, conv_group, iy, ix,
                                                                                  g, channels, acc)
                            if outputs is not None and acc is not None:
                                _exchange(outputs, acc, g * tiling.kc, tiling.rows.acc_lo[iy],
                                          tiling.cols.acc_lo[ix])
    return busy


def _exchange(outputs: np.ndarray, acc: np.ndarray, k0: int, oy0: int, ox0: int) -> None:
    """Halo exchange: every in-plane partial sum goes to the output it belongs to."""
    kc = min(acc.shape[0], outputs.shape[0] - k0)
    for oy in range(acc.shape[1]):
        for ox in range(acc.shape[2]):
            y, x = oy0 + oy, ox0 + ox
            if 0 <= y < outputs.shape[1] and 0 <= x < outputs.shape[2]:
                outputs[k0:k0 + kc, y, x] += acc[:kc, oy, ox]


def reference_outputs(arch: ArchSpec, layer: Layer) -> np.ndarray:
    """The layer's outputs after ReLU (batch, groups, Kg, out_h, out_w), from the reference's
    accumulators (Cartesian designs)."""
    plan = plan_layer(arch, layer)
    view = plan.view
    out = np.zeros((view.batch, view.groups, view.out_channels, view.out_h, view.out_w))
    for b in range(view.batch):
        for g in range(view.groups):
            reference_busy(plan, b, g, out[b, g])
    return np.maximum(out, 0.0)


def simpy_tile_timing(busy: np.ndarray, drain: np.ndarray, load: int, stream: int) -> TileTiming:
    """One temporal tile as SimPy processes: PEs per group, a barrier (AllOf), two accumulator
    buffers (a Store of two tokens), one drain unit (a Resource) and the DRAM stream."""
    env = simpy.Environment()
    buffers = simpy.Store(env, capacity=2)
    buffers.items.extend(["buffer0", "buffer1"])
    drain_unit = simpy.Resource(env, capacity=1)
    record = {"idle": 0, "groups": 0, "start": 0, "end": 0}

    def pe(cycles: int):
        yield env.timeout(cycles)
        return env.now

    def drain_group(g: int, token: str):
        with drain_unit.request() as request:
            yield request
            yield env.timeout(int(drain[g]))
        yield buffers.put(token)

    def controller():
        yield env.timeout(load)
        record["start"] = env.now
        drains = []
        for g in range(busy.shape[1]):
            token = yield buffers.get()
            begin = env.now
            finished = yield simpy.AllOf(env, [env.process(pe(int(busy[p, g]))) for p in range(busy.shape[0])])
            record["idle"] += sum(env.now - f for f in finished.values())
            record["groups"] += env.now - begin
            drains.append(env.process(drain_group(g, token)))
        yield simpy.AllOf(env, drains)
        record["end"] = env.now

    def dram():
        yield env.timeout(load)
        yield env.timeout(stream)

    done = simpy.AllOf(env, [env.process(controller()), env.process(dram())])
    env.run(until=done)
    compute = record["end"] - record["start"]
    return TileTiming(int(compute), int(env.now) - int(compute), int(record["idle"]), int(record["groups"]))
