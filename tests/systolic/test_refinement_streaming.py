"""``systolic.operand_fetch: streaming``: the fast path and the SimPy reference agree on every
counter on generated layers and arrays; hand-worked timelines; conservation laws (cycles cover
compute and every stream's words / bandwidth; an operand that fits half its buffer is read once,
any other once per use); the choice refused where it does not apply."""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.models.systolic.family import FAMILY
from accel_sim.foundations.workload import ConvLayer, GemmLayer, NMSparsity
from tests.systolic.test_refinement import layers, make_arch


def streaming(arch):
    return dataclasses.replace(arch, systolic=dataclasses.replace(arch.systolic, operand_fetch="streaming"))


def both(arch, layer):
    plan = FAMILY.plan(arch, layer)
    return plan, FAMILY.fast(plan), FAMILY.reference(plan)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(layer=layers, rows=st.integers(1, 8), cols=st.integers(1, 8), dataflow=st.sampled_from(["os", "ws", "is"]),
       bandwidth=st.integers(1, 12), latency=st.integers(0, 30), word_bits=st.sampled_from([8, 16]),
       words=st.tuples(*[st.integers(2, 400)] * 3), nm=st.booleans())
def test_fast_path_and_reference_agree_on_every_counter(layer, rows, cols, dataflow, bandwidth, latency, word_bits,
                                                       words, nm):
    arch = streaming(make_arch(rows, cols, dataflow, "user", bandwidth, latency, word_bits, words, nm))
    plan, fast, reference = both(arch, layer)
    assert fast == reference
    # conservation: cycles cover the compute and each stream's words at its width
    mapping, bw = plan.mapping, plan.dram_words_per_cycle
    assert fast.cycles == fast.compute_cycles + fast.read_stall_cycles + fast.write_stall_cycles
    assert fast.read_stall_cycles >= 0 and fast.write_stall_cycles >= 0
    for words_read in (fast.ifmap_dram_reads, fast.filter_dram_reads):
        assert fast.cycles >= words_read / bw
    assert fast.macs_issued == mapping.macs_issued_per_group * mapping.groups
    g = mapping.gemm
    footprint = {"ifmap": g.m * g.k * g.groups, "filter": g.k * g.n * g.groups}
    reads = {"ifmap": fast.ifmap_dram_reads, "filter": fast.filter_dram_reads}
    for operand, words_read in reads.items():
        if plan.resident[operand]:
            assert words_read == footprint[operand]
        else:
            assert footprint[operand] <= words_read <= {"ifmap": fast.ifmap_sram_reads,
                                                        "filter": fast.filter_sram_reads}[operand]
    assert fast.ofmap_dram_writes == g.m * g.n * g.groups


@pytest.mark.parametrize(("bandwidth", "expected"), [
    # 1 x 8 x 8 GEMV on a 4 x 4 WS array, 11-line folds (c0 r0, c0 r1, c1 r0, c1 r1); 16-word filter
    # blocks re-fetched (64-word filter, 32-word halves), the 8-word ifmap resident; latency 1.
    # 4 words/cycle: blocks ready at 5, 9, 21 (waits for fold 0 to free its half, 16), 32 (waits
    # for fold 1, 27); folds end 16, 27, 38, 49; outputs (4 words, 1 cycle) drained by 28 and 50.
    (4, dict(cycles=50, compute_cycles=43, read_stall_cycles=5, write_stall_cycles=2)),
    # 1 word/cycle: DRAM-bound; filter blocks ready 17, 33, 49, 65; folds end 28, 44, 60, 76; last
    # drain 76 + 4 = 80 = 64 filter words + 1 latency + 11 lines + 4 drain.
    (1, dict(cycles=80, compute_cycles=43, read_stall_cycles=32, write_stall_cycles=5)),
])
def test_worked_gemv_timeline(bandwidth, expected):
    arch = streaming(make_arch(4, 4, "ws", "user", bandwidth, 1, 8, (16, 64, 64)))
    plan, fast, reference = both(arch, GemmLayer("gemv", m=1, k=8, n=8))
    assert plan.resident == {"ifmap": True, "filter": False}
    for counters in (fast, reference):
        assert {key: getattr(counters, key) for key in expected} == expected
        assert (counters.ifmap_dram_reads, counters.filter_dram_reads, counters.ofmap_dram_writes) == (8, 64, 8)


def test_decode_gemv_takes_its_weight_bytes_over_the_bandwidth():
    """A 4096 x 4096 projection at m = 1 on the 128 x 128 array (32 B/cycle): its weights once, its
    time within 0.1 % of 16 MiB / 32 B (SCALE-Sim's USER mode: 8 reads of the weights)."""
    arch = streaming(make_arch(128, 128, "ws", "user", 32, 1, 8, (6144 * 1024, 6144 * 1024, 2048 * 1024)))
    counters = FAMILY.fast(FAMILY.plan(arch, GemmLayer("proj", m=1, k=4096, n=4096)))
    assert counters.filter_dram_reads == 4096 * 4096
    bound = 4096 * 4096 / 32
    assert bound <= counters.cycles <= 1.001 * bound


def test_operand_reuse_across_folds_follows_residency():
    """WS, m = 30, k = n = 8 on 4 x 4: the ifmap (240 words) fits a 512-word buffer's half and is
    read once; in a 64-word buffer each row-fold block is fetched again in every column fold."""
    layer = GemmLayer("g", m=30, k=8, n=8)
    for ifmap_words, reads in ((512, 240), (64, 480)):
        arch = streaming(make_arch(4, 4, "ws", "user", 4, 1, 8, (ifmap_words, 400, 400)))
        _, fast, reference = both(arch, layer)
        assert fast.ifmap_dram_reads == reference.ifmap_dram_reads == reads


def test_streaming_needs_user_bandwidth_and_refuses_row_wise_sparsity():
    with pytest.raises(ValueError, match="operand_fetch 'streaming' needs dram.bandwidth_mode 'user'"):
        FAMILY.plan(streaming(make_arch(4, 4, "ws", "calc")), GemmLayer("g", m=1, k=4, n=4))
    with pytest.raises(ValueError, match="not sparse_mapping 'row_wise'"):
        streaming(make_arch(4, 4, "ws", "user", block_size=4))
    assert make_arch(4, 4, "ws", "user").systolic.operand_fetch == "scalesim"  # the default stays SCALE-Sim's


def test_every_fold_refetching_both_operands_frees_both_halves_at_once():
    """1 x 1 IS array, 2-word buffers: both read operands fetch a block before every fold; the
    array hands back both finished halves when a fold ends, before waiting for either new block
    (found by a generated case: the reference once returned the filter's half only after the
    ifmap block had arrived). By hand: 2-line folds, 1-word blocks at 1 word/cycle, latency 2; a
    block loads once the fold two back has ended, so folds end 5, 7, 10, 12, ..., 40, 42 and the
    last output (1 word) drains by 43."""
    arch = streaming(make_arch(1, 1, "is", "user", 1, 2, 8, (2, 2, 2)))
    layer = ConvLayer("conv", in_h=3, in_w=3, in_channels=1, out_channels=1, kernel_h=2, kernel_w=2)
    plan, fast, reference = both(arch, layer)
    assert plan.resident == {"ifmap": False, "filter": False}
    assert fast == reference
    assert fast.cycles == 43


@pytest.mark.parametrize("filter_words", [64, 4000])   # re-fetched (not resident) / resident
@pytest.mark.parametrize(("k", "n"), [(12, 8), (8, 12), (20, 4), (4, 20)])
def test_each_stationary_weight_block_is_fetched_once(k, n, filter_words):
    """WS: every fold uses its own filter block, so the filter's DRAM reads are its k x n words
    exactly, resident or not (3 row folds x 2 column folds and the like on a 4 x 4 array)."""
    arch = streaming(make_arch(4, 4, "ws", "user", 4, 1, 8, (400, filter_words, 400)))
    plan, fast, reference = both(arch, GemmLayer("g", m=2, k=k, n=n))
    assert plan.resident["filter"] == (filter_words > 2 * k * n)
    assert fast.filter_dram_reads == reference.filter_dram_reads == k * n


def test_grouped_2_4_conv_counts_metadata_for_every_group():
    """Layer-wise 2:4 on a WS array, 2 groups: the condensed filter streams once per group and
    its position metadata is read once per kept weight of every group."""
    arch = streaming(make_arch(4, 4, "ws", "user", 4, 1, 8, (400, 400, 400), nm=True))
    layer = ConvLayer("conv", in_h=5, in_w=5, in_channels=8, out_channels=6, kernel_h=3, kernel_w=3, groups=2,
                      weight_sparsity=NMSparsity(2, 4))
    plan, fast, reference = both(arch, layer)
    assert fast == reference
    kept = plan.mapping.kept_weights_per_group
    assert kept == (4 * 9 // 4) * 2 * 3   # per group: k = 4 x 9 = 36 rows, 2 of every 4 kept, 3 filters
    assert fast.nm_metadata_reads == kept * 2 and fast.filter_dram_reads == kept * 2
