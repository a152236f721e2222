"""Systolic refinement, part 3: the CALC read buffer (SCALE-Sim's estimate buffer) on streams small
enough to follow by hand (both paths), and the fast path's block walk against its own epoch scan
on explicit streams."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.foundations.arch import DramSpec
from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.models.systolic.fast.estimate_buffer import block_walk_reads, epoch_scan_reads, previous_occurrence
from accel_sim.models.systolic.family import FAMILY
from accel_sim.models.systolic.reference import simulate_group
from accel_sim.models.systolic.reference.read_buffers import EstimatingReadBuffer
from accel_sim.models.systolic.spec import BufferSpec, SystolicSpec
from accel_sim.foundations.workload import ConvLayer, GemmLayer


def test_previous_occurrence():
    assert previous_occurrence(np.array([5, 1, 5, 5, 1, 2])).tolist() == [-1, -1, 0, 2, 1, -1]


def test_epoch_scan_by_hand():
    """Epochs of 3 new words: 0 1 (0 hits) 2 | 1 3 -> 3 + 2 reads; a word seen in the last epoch
    is new again in the next one: 0 1 2 | 0 1 2 -> 6."""
    assert epoch_scan_reads(np.array([0, 1, 0, 2, 1, 3]), 3) == 5
    assert epoch_scan_reads(np.array([0, 1, 2, 0, 1, 2]), 3) == 6
    assert epoch_scan_reads(np.array([0, 1, 0, 1, 0, 1]), 3) == 2  # never fills an epoch


def test_reference_buffer_by_hand():
    """200 words: 100 sets of 2, the window holds 50 sets (100 words) and then forgets them all.
    A duplicate in the open set is a hit; the 101st word starts a new window, in which the 100
    words read before are new again."""
    buffer = EstimatingReadBuffer("b", 200, 8, 300)
    buffer.line(np.array([-1, 7, 7, -1]), 4)
    assert (buffer.fetched.reads, buffer.first_request_line, buffer.slides) == (1, 4, 0)
    buffer.line(np.arange(100), 5)  # 7 is held: 99 new, the window (50 sets) is full and slides
    assert (buffer.fetched.reads, buffer.slides) == (100, 1)
    buffer.line(np.arange(100, 0, -1), 6)  # all 100 new again, a second slide
    assert (buffer.fetched.reads, buffer.slides) == (200, 2)
    buffer.line(np.array([0, 0, 1]), 7)
    assert buffer.fetched.reads == 202


@settings(max_examples=200, deadline=None, derandomize=True)
@given(blocks=st.lists(st.tuples(st.integers(1, 40), st.integers(1, 4)), min_size=1, max_size=6),
       epoch=st.integers(1, 60), shuffle=st.integers(0, 2**32 - 1))
def test_block_walk_is_the_epoch_scan_of_repeated_blocks(blocks, epoch, shuffle):
    """Disjoint blocks of distinct words, each swept in the same (arbitrary) order several times."""
    rng = np.random.default_rng(shuffle)
    parts, first = [], 0
    for words, repeats in blocks:
        order = rng.permutation(words) + first
        parts += [order] * repeats
        first += words
    assert block_walk_reads(blocks, epoch) == epoch_scan_reads(np.concatenate(parts), epoch)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(sweep=st.lists(st.integers(0, 30), min_size=1, max_size=80), repeats=st.integers(1, 4),
       epoch=st.integers(1, 40))
def test_epoch_scan_of_a_repeated_sweep_is_the_scan_of_the_whole_stream(sweep, repeats, epoch):
    """A sweep scanned ``repeats`` times over from two copies equals the scan of the stream written out."""
    addresses = np.array(sweep)
    assert epoch_scan_reads(addresses, epoch, repeats) == epoch_scan_reads(np.tile(addresses, repeats), epoch)


def calc_arch(dataflow, rows, cols, ifmap, filters, ofmap=4096, **systolic):
    return ArchSpec(name="t", family="systolic", dram=DramSpec(bandwidth_mode="calc"),
                    systolic=SystolicSpec(rows=rows, cols=cols, dataflow=dataflow, ifmap_sram=BufferSpec(ifmap),
                                          filter_sram=BufferSpec(filters), ofmap_sram=BufferSpec(ofmap), **systolic))


def test_output_stationary_filter_blocks_by_hand():
    """OS 2x2, GEMM m=3, k=10, n=6: the filter streams in 3 column-fold blocks of 10 x 2 = 20 words,
    each swept once per row fold (2). A 100-word buffer remembers 50 words. Blocks 0 and 1 fit the
    first window (40 words, second sweeps hit); block 2's first 10 words fill it, the next window
    takes block 2's other 10 words and, in the second sweep, its first 10 again, then holds the
    whole block: 20 + 20 + 30 = 70 reads (the footprint is 60)."""
    plan = FAMILY.plan(calc_arch("os", 2, 2, 4096, 100), GemmLayer("g", m=3, k=10, n=6))
    for count in (FAMILY.fast, FAMILY.reference):
        assert count(plan, None).filter_dram_reads == 70


def test_row_wise_ifmap_first_request_sets_the_first_calc_fill():
    """Row-wise WS (BlockSize 4) on 8 rows: a fold takes 2R = 16 window rows, 4 blocks of 4. With
    4 channels and padding 1, blocks 0-2 (kernel row 0) are padding for the whole first output row
    and block 3 (kernel (1, 0), x = -1) at t = 0: the first request is t = 1, block 3, in line
    R + t + 3 BS/2 = 15. The 256-word ifmap overflows its 500-word buffer (5-word sets, 50 active):
    its first fill, the 50 prefetch sets at 10 words per cycle, starts 25 cycles before, in -10,
    earlier than the 27-weight filter's (3 sets of 10 words, from -3)."""
    arch = calc_arch("ws", 8, 2, 500, 1000, ofmap=400, nm_sparsity=True, sparse_mapping="row_wise",
                     row_block_size=4)
    layer = ConvLayer("c", in_h=8, in_w=8, in_channels=4, out_channels=2, kernel_h=3, kernel_w=3, pad_top=1,
                      pad_bottom=1, pad_left=1, pad_right=1)
    plan = FAMILY.plan(arch, layer)
    fast, reference = FAMILY.fast(plan, None), FAMILY.reference(plan, None)
    assert fast == reference
    assert plan.mapping.kept_weights_per_group == 27
    log = []
    simulate_group(plan, log=log)
    last_drain = max(entry.when for entry in log if entry.what == "write end")
    assert fast.cycles_incl_prefetch == last_drain + 10
