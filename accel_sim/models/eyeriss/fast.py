"""Fast path: closed forms over the loop nest of the passes, vectorised over the blocks.

A pass takes ``ceil(weights / filter_gin_words)`` cycles to ramp up (its weights into the filter
spads) and then ``n x ceil(f / t) x ceil(c / r) x F x S`` cycles of MACs (each PE steps through its
``p x q`` primitives, one MAC a cycle), unless the ifmap GIN is slower: it multicasts each ifmap value
of the pass once (``n x c x`` window rows ``x W`` values) at ``ifmap_gin_words`` a cycle (16 b, JSSC 2017
Sec. V-B); the PEs' FIFOs overlap the delivery with the MACs, so the compute phase lasts the longer of
the two. Its filters come
from DRAM meanwhile, so the pass lasts the longer of that and the DRAM fetch. Before each block of channels the array waits for its ifmaps from DRAM, after the last
block of channels of a block of filters for its ofmaps to go to DRAM (the chip overlaps neither,
JSSC 2017 Sec. VI-A).
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from accel_sim.foundations.errors import SimulationError
from accel_sim.models.eyeriss.counters import EyerissCounters
from accel_sim.models.eyeriss.plan import EyerissPlan, blocks, window_rows


def _bus_cycles(plan: EyerissPlan, bits: np.ndarray) -> np.ndarray:
    return np.ceil(bits / 8 / plan.bus_bytes_per_cycle).astype(np.int64)


def _block_sums(table: np.ndarray, axis: int, sizes: tuple[int, ...]) -> np.ndarray:
    starts = np.cumsum((0,) + sizes[:-1])
    return np.add.reduceat(table, starts, axis=axis)


def fast(plan: EyerissPlan, max_cycles: int | None = None) -> EyerissCounters:
    spec, shape, mp, word = plan.spec, plan.shape, plan.mapping, plan.arch.word_bits
    images = np.array(blocks(shape.images, mp.n))
    channels = np.array(blocks(shape.channels, mp.q * mp.r))
    filter_blocks = blocks(shape.filters, mp.m)
    filters = np.array([f for size in filter_blocks for f in blocks(size, mp.p * mp.t)])
    rs = shape.filter_rows * shape.filter_cols
    repeat = shape.groups * len(plan.strips)
    weights = filters[:, None] * channels[None, :] * rs                                   # (fb, cb)
    fill = -(-weights // spec.filter_gin_words)
    per_pe = -(-filters // mp.t)[:, None] * -(-channels // mp.r)[None, :]
    compute = images[:, None, None] * per_pe[None] * shape.out_cols * shape.filter_cols   # (ib, fb, cb)
    fetch = _bus_cycles(plan, weights * word)
    processing = pass_cycles = network_wait = 0
    for rows, strips in Counter(plan.strips).items():
        ifmap_words = images[:, None, None] * channels[None, None, :] * window_rows(shape, rows) * shape.width
        work = np.maximum(compute, -(-ifmap_words // spec.ifmap_gin_words))
        busy = fill[None] + work
        processing += shape.groups * strips * int(busy.sum())
        pass_cycles += shape.groups * strips * int(np.maximum(busy, fetch[None]).sum())
        network_wait += shape.groups * strips * int((work - compute).sum())
    tiles = _block_sums(_block_sums(plan.ifmap_bits, 1, tuple(images)), 2, tuple(channels))
    ifmap_load = len(filter_blocks) * int(_bus_cycles(plan, tiles).sum())
    dumps = _block_sums(_block_sums(plan.ofmap_bits, 1, tuple(images)), 2, filter_blocks)
    ofmap_dump = int(_bus_cycles(plan, dumps).sum())
    cycles = pass_cycles + ifmap_load + ofmap_dump
    if max_cycles is not None and cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {cycles} cycles exceed max_cycles={max_cycles}")
    window = sum(window_rows(shape, rows) for rows in plan.strips) * shape.width       # values of a plane, all strips
    n_images, n_filter_blocks = shape.images, len(filters)
    psums = shape.groups * shape.images * shape.filters * shape.out_rows * shape.out_cols
    gated = int(plan.zero_uses.sum()) * shape.filters if spec.zero_gating else 0
    sets_fed = -(-filters // mp.p)[:, None] * channels[None, :]                           # (fb, cb)
    accumulate = shape.filter_rows * -(-channels // mp.q) - 1                             # (cb,)
    rows_total = shape.out_rows
    return EyerissCounters(
        cycles=cycles, processing_cycles=processing, network_wait_cycles=network_wait,
        filter_wait_cycles=pass_cycles - processing,
        ifmap_load_cycles=ifmap_load, ofmap_dump_cycles=ofmap_dump, passes=repeat * compute.size,
        macs_issued=plan.layer.macs - gated, macs_gated=gated,
        dram_ifmap_read_bits=len(filter_blocks) * int(plan.ifmap_bits.sum()),
        dram_filter_read_bits=repeat * len(images) * int(weights.sum()) * word,
        dram_ofmap_write_bits=int(plan.ofmap_bits.sum()),
        glb_ifmap_writes=len(filter_blocks) * shape.groups * n_images * shape.channels * window,
        glb_ifmap_reads=n_filter_blocks * shape.groups * n_images * shape.channels * window,
        glb_filter_words=repeat * len(images) * int(weights.sum()),
        glb_psum_reads=psums * len(channels),
        glb_psum_writes=psums * len(channels),
        ifmap_spad_writes=shape.groups * n_images * shape.width * shape.filter_rows * rows_total
        * int(sets_fed.sum()),
        filter_spad_writes=shape.groups * len(images) * rows_total * int(weights.sum()),
        local_link_transfers=shape.groups * n_images * rows_total * shape.out_cols
        * int((filters[:, None] * accumulate[None, :]).sum()))
