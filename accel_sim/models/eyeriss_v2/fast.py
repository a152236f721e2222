"""Fast path: the window costs of every work unit as one einsum, the rounds as segment reductions.

A window costs ``max(non-zero iacts, sum over them of ceil(non-zero weights of their column / simd))``
cycles: the iact stages fetch one non-zero iact a cycle, the MAC stages take ``simd_width`` weights a
cycle (Sec. IV-A/B); an all-zero window costs ``empty_window_cycles``. A work unit costs its windows plus
the pipeline's fill. In a round every PE whose weight matrix changes waits for its weight router, which
sends the distinct matrices of its PE row one after the other (a 24-b word a cycle: data words, then
address entries); the round ends with its last PE.
"""
from __future__ import annotations

import numpy as np

from accel_sim.foundations.errors import SimulationError
from accel_sim.models.eyeriss_v2.counters import EyerissV2Counters
from accel_sim.models.eyeriss_v2.plan import EyerissV2Plan, block_words


def _by_channel_block(table: np.ndarray, axis: int, c: int, cp: int, c0: int) -> np.ndarray:
    shape = list(table.shape)
    shape[axis] = cp
    padded = np.zeros(shape, dtype=np.int64)
    index = [slice(None)] * len(shape)
    index[axis] = slice(0, c)
    padded[tuple(index)] = table
    return padded.reshape(shape[:axis] + [cp // c0, c0] + shape[axis + 1:])


def _segments(values: np.ndarray, starts: np.ndarray, fn) -> np.ndarray:
    return fn.reduceat(values, starts) if values.size else values


def fast(plan: EyerissV2Plan, max_cycles: int | None = None) -> EyerissV2Counters:
    spec, sh, c0 = plan.spec, plan.shape, plan.c0
    g_, n_, c_, h_, w_ = plan.x_nz.shape
    r_, s_, e_, f_, u_, v_ = sh.filter_rows, sh.filter_cols, sh.out_rows, sh.out_cols, sh.stride, sh.stride_w
    ncb, nmb, nfb, simd = len(plan.c_sizes), len(plan.m_sizes), len(plan.f_sizes), spec.simd_width
    cp = ncb * c0
    x = _by_channel_block(plan.x_nz.astype(np.int64), 2, c_, cp, c0)                       # (G,N,cb,k,H,W)
    windows = np.lib.stride_tricks.sliding_window_view(x, s_, axis=5)[..., ::v_, :][..., :f_, :]
    rows = np.arange(e_)[:, None] * u_ + np.arange(r_)[None, :]                            # (E,R)
    xr = windows[:, :, :, :, rows]                                                         # (G,N,cb,k,E,R,F,S)
    cnt = _by_channel_block(plan.w_cnt, 2, c_, cp, c0)                                     # (G,mb,cb,k,R,S)
    half = -(-cnt // simd)
    mac = np.einsum("gnbkerfs,gmbkrs->gmbrnef", xr, half, optimize=True)                   # (G,mb,cb,R,N,E,F)
    nnz = xr.sum(axis=(3, 7)).transpose(0, 2, 4, 1, 3, 5)[:, None]                         # (G,1,cb,R,N,E,F)
    window = np.where(nnz > 0, np.maximum(nnz, mac), spec.empty_window_cycles)
    unit = np.add.reduceat(window, np.array(plan.f_starts), axis=6) + (spec.pipeline_stages - 1)
    unit_cycles = unit.reshape(-1)
    issued = int(np.einsum("gnbkerfs,gmbkrs->", xr, cnt, optimize=True))
    idle = int(np.einsum("gnbkerfs,gmbkrs->", xr, half * simd - cnt, optimize=True))

    # weight matrices: one per (g, m-block, c-block, r), in unit order
    words = block_words(plan.w_cnt, c0, simd).reshape(-1)
    cols = np.tile(np.repeat(np.array(plan.c_sizes) * s_, r_), g_ * nmb)
    addr_bits = (cols + 1) * spec.weight_addr_bits
    load = words + -(-addr_bits // spec.noc_port_bits)
    total, pes, per_router = plan.work_units, spec.pes, spec.pes_per_weight_router
    index = np.arange(total)
    key, rnd = index // plan.units_per_weights, index // pes
    router = (index % pes) // per_router
    reload = np.ones(total, dtype=bool)
    reload[pes:] = key[pes:] != key[:-pes]
    routers, keys, rounds = pes // per_router, words.size, -(-total // pes)
    sent = np.unique(((rnd * routers + router) * keys + key)[reload])
    router_load = np.bincount(sent // keys, weights=load[sent % keys], minlength=rounds * routers).astype(np.int64)
    fetched = np.unique((rnd * keys + key)[reload]) % keys
    start = np.where(reload, router_load[rnd * routers + router], 0)
    firsts = np.arange(0, total, pes)
    cycles = int(_segments(start + unit_cycles, firsts, np.maximum).sum())
    if max_cycles is not None and cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {cycles} cycles exceed max_cycles={max_cycles}")

    # iacts: the non-zeros of each unit's ifmap row segment, sent once a round to every PE sharing them
    per_row = np.cumsum(np.pad(x.sum(axis=3), ((0, 0),) * 4 + ((1, 0),)), axis=4)          # (G,N,cb,H,W+1)
    lo = np.array(plan.f_starts) * v_
    hi = np.minimum((np.array(plan.f_starts) + np.array(plan.f_sizes) - 1) * v_ + s_, w_)
    seg = per_row[..., hi] - per_row[..., lo]                                               # (G,N,cb,H,fb)
    seg_units = np.broadcast_to(seg[:, :, :, rows].transpose(0, 2, 4, 1, 3, 5)[:, None],
                                (g_, nmb, ncb, r_, n_, e_, nfb)).reshape(-1)
    gi, _, bi, ri, ni, ei, fi = np.unravel_index(index, (g_, nmb, ncb, r_, n_, e_, nfb))
    iact_key = (((gi * n_ + ni) * ncb + bi) * h_ + ei * u_ + ri) * nfb + fi
    _, first = np.unique(rnd * (g_ * n_ * ncb * h_ * nfb) + iact_key, return_index=True)
    outputs = g_ * n_ * sh.filters * e_ * f_
    return EyerissV2Counters(
        cycles=cycles, compute_cycles=int(_segments(unit_cycles, firsts, np.maximum).sum()), rounds=rounds,
        work_units=total, pe_busy_cycles=int(unit_cycles.sum()), macs_issued=issued, simd_idle_slots=idle,
        iact_spad_reads=int(nnz.sum()) * nmb, weight_spad_reads=int(mac.sum()), weight_addr_reads=int(nnz.sum()) * nmb,
        iact_spad_writes=int(seg_units.sum()), weight_spad_writes=int(words[key[reload]].sum()),
        weight_load_words=int(load[sent % keys].sum()), psum_out_words=r_ * ncb * outputs,
        glb_iact_writes=int(plan.x_nz.sum()), glb_iact_reads=int(seg_units[first].sum()),
        glb_psum_writes=outputs * (ncb - 1), glb_psum_reads=outputs * (ncb - 1),
        dram_iact_read_bits=int(plan.x_nz.sum()) * spec.csc_pair_bits,
        dram_weight_read_bits=int((words[fetched] * spec.noc_port_bits + addr_bits[fetched]).sum()),
        dram_ofmap_write_bits=outputs * plan.arch.word_bits)
