"""Systolic refinement, part 2: numbers derived without either path.

- worked examples small enough to derive by hand: every counter, the reference's (who, what,
  when) log, and the accounting's actions and bytes (so a bug in the shared plan or in the
  accounting fails here even though both paths would agree on it);
- SCALE-Sim 3.0.0's own reports (``tests/data/scalesim``): every case on the fast path, the
  small-array CALC cases on the reference too;
- conservation laws on generated layers.
"""
from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.foundations.arch import DramSpec
from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.models.systolic.accounting import account
from accel_sim.models.systolic.counters import SystolicCounters
from accel_sim.models.systolic.family import FAMILY
from accel_sim.models.systolic.fast.demand import demand_stream
from accel_sim.models.systolic.plan.operands import role
from accel_sim.models.systolic.reference import simulate_group
from accel_sim.models.systolic.spec import BufferSpec, SystolicSpec
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer, NMSparsity
from tests.systolic._scalesim_files import case_dirs, load_case


def arch(dataflow, mode="calc", size=1024, ofmap=None, rows=2, cols=2, nm=False, block_size=None, seed=40):
    """8-bit words (sizes in bytes are words); DRAM 1 word per cycle, latency 1 in USER mode.
    ``block_size``: row-wise sparsity (SCALE-Sim OptimizedMapping true) with that BlockSize."""
    row_wise = {} if block_size is None else dict(sparse_mapping="row_wise", row_block_size=block_size, row_seed=seed)
    return ArchSpec(name="t", family="systolic", dram=DramSpec(bandwidth_mode=mode, bandwidth=1, latency=1),
                    systolic=SystolicSpec(rows=rows, cols=cols, dataflow=dataflow, ifmap_sram=BufferSpec(size),
                                          filter_sram=BufferSpec(size), ofmap_sram=BufferSpec(ofmap or size),
                                          nm_sparsity=nm or block_size is not None, **row_wise))


def counters(**fields) -> dict:
    return {"read_stall_cycles": 0, "write_stall_cycles": 0, "nm_metadata_reads": 0, **fields}


# --------------------------------------------------------------------------- worked examples
WS_CALC = (arch("ws", size=100, ofmap=8), GemmLayer("g", m=3, k=4, n=2))
# WS 2x2, k = 4 rows of filters in two row folds of 2R + C + T - 2 = 4 + 2 + 3 - 2 = 7 demand cycles: 14
# lines, last index 13. Each fold streams 3 x 2 ifmap words in and 3 x 2 partial sums out, preloads
# 2 x 2 weights. 100-word read buffers (the smallest CALC allows) have 1-word sets, 50 active: the 12
# ifmap and 8 filter words fit and are read once, filled whole at 10 words per cycle before cycle 0:
# 2 cycles for the ifmap, so the first DRAM cycle is -2.
# The 8-word output buffer drains 4 words (2 lines of C = 2) when more than half full: drains of
# 4, 4 (SCALE-Sim counts the half line of word 5 as full), then the flush 4 and 1: 13 words, the
# last drain ending in cycle 15.
WS_CALC_COUNTERS = counters(cycles=13, compute_cycles=13, cycles_incl_prefetch=15 + 2, folds=2, macs_issued=3 * 4 * 2,
                            ifmap_sram_reads=3 * 4, filter_sram_reads=4 * 2, ofmap_sram_writes=2 * 3 * 2,
                            ifmap_dram_reads=12, filter_dram_reads=8, ofmap_dram_writes=13)
WS_USER = (arch("ws", "user", size=4), GemmLayer("g", m=2, k=2, n=2))
# One fold of 2R + C + T - 2 = 6 lines. 4-word read buffers: 1-word sets, 2 resident, bursts of 2
# words (2 lines + latency 1 = 3 cycles apart, the fill ready in cycle -1, so its first line in -2).
# The filter (fetched 0, 2, 1, 3) is preloaded last row first: line 0 wants 1, 3 (burst 1 ends in
# 2: waits 1, charged 2), line 1 (cycle 3) wants 0, 2 (bursts end in 5 and 8: waits 1, 2, charged
# 2 + 4). 8 stall cycles; the ifmap's one burst landed long before its miss. Fills: 2 + 3 x 2
# filter words, 2 + 2 ifmap words. The last drain ends in 14: 14 - (-2) cycles incl. prefetch.
WS_USER_COUNTERS = counters(cycles=5 + 8, compute_cycles=5, read_stall_cycles=8, cycles_incl_prefetch=14 + 2,
                            folds=1, macs_issued=8, ifmap_sram_reads=4, filter_sram_reads=4, ofmap_sram_writes=4,
                            ifmap_dram_reads=4, filter_dram_reads=8, ofmap_dram_writes=4)
OS_CALC = (arch("os"), GemmLayer("g", m=3, k=2, n=2))
# OS: m = 3 outputs rows in 2 row folds of T + R + C - 2 = 4 lines: 8 lines. The ifmap (edge m)
# streams T x m = 6 words once, the filter (edge n) T x n = 4 words in each row fold. 1 KiB
# buffers: 10-word sets, everything fits; fills of one set each at 10 words per cycle start in
# cycle -1. The 6 outputs (3 lines of 2) drain after the last line (cycle 7) in cycles 7-9.
OS_CALC_COUNTERS = counters(cycles=7, compute_cycles=7, cycles_incl_prefetch=9 + 1, folds=2, macs_issued=12,
                            ifmap_sram_reads=6, filter_sram_reads=8, ofmap_sram_writes=6, ifmap_dram_reads=6,
                            filter_dram_reads=4, ofmap_dram_writes=6)
IS_CALC = (arch("is"), GemmLayer("g", m=3, k=2, n=2))
# IS: the ifmap (k x m = 2 x 3) preloaded in 2 column folds of 2R + C + T - 2 = 6 lines; the filter
# (edge k) streams T x k = 4 words per column fold, the outputs T x m = 6 words. Flush after the
# last line (11): 3 lines, ending in 13.
IS_CALC_COUNTERS = counters(cycles=11, compute_cycles=11, cycles_incl_prefetch=13 + 1, folds=2, macs_issued=12,
                            ifmap_sram_reads=6, filter_sram_reads=8, ofmap_sram_writes=6, ifmap_dram_reads=6,
                            filter_dram_reads=4, ofmap_dram_writes=6)
NM_CALC = (arch("ws", nm=True), GemmLayer("g", m=2, k=8, n=3, weight_sparsity=NMSparsity(2, 4)))
# 2:4 keeps reduction rows 0, 1, 4, 5: k' = 4 in 2 row folds x 2 column folds (n = 3) of 6 lines.
# The ifmap streams T x k' = 8 words per column fold; 12 kept weights (12 position indices), preloaded
# once; T x n = 6 partial sums per row fold. The 20-word filter fill (2 sets of 10) starts in -2;
# 12 outputs drain from cycle 23 in 6 lines.
NM_CALC_COUNTERS = counters(cycles=23, compute_cycles=23, cycles_incl_prefetch=28 + 2, folds=4, macs_issued=24,
                            ifmap_sram_reads=16, filter_sram_reads=12, ofmap_sram_writes=12, ifmap_dram_reads=8,
                            filter_dram_reads=12, ofmap_dram_writes=12, nm_metadata_reads=12)
ROW_CALC = (arch("ws", rows=4, cols=2, block_size=4), GemmLayer("g", m=2, k=8, n=2, weight_sparsity=NMSparsity(2, 4)))
# Row-wise, BlockSize 4, seed 40: SCALE-Sim's draws give N = 1, 2 for the two filters (the layer's 2:4 is
# ignored). Filter 0 keeps window rows 0, 4; filter 1 rows 0, 1, 4, 5: 6 weights. Packed: k' =
# ceil(8 / 8) x 4 = 4 rows (2 slots per block), one fold of 2R + C + T - 2 = 10 lines (last index 9).
# The PEs hold 6 weights: 6 x T = 12 MACs. SRAM: the (T + R - 1) = 5 skewed ifmap lines of R x BS = 16
# words (80), the 4 x 2 packed slots, T x n = 4 partial sums. DRAM: the 16 distinct ifmap words (2 sets
# of 10 at 10 per cycle: from cycle -2), the 6 weights with their 2-bit positions, 4 outputs drained
# in 2 lines of C = 2 after the last line (cycles 9, 10).
ROW_CALC_COUNTERS = counters(cycles=9, compute_cycles=9, cycles_incl_prefetch=10 + 2, folds=1, macs_issued=12,
                             ifmap_sram_reads=5 * 16, filter_sram_reads=8, ofmap_sram_writes=4, ifmap_dram_reads=16,
                             filter_dram_reads=6, ofmap_dram_writes=4, nm_metadata_reads=6)
EXAMPLES = {"ws_calc": (*WS_CALC, WS_CALC_COUNTERS), "ws_user": (*WS_USER, WS_USER_COUNTERS),
            "os_calc": (*OS_CALC, OS_CALC_COUNTERS), "is_calc": (*IS_CALC, IS_CALC_COUNTERS),
            "nm_calc": (*NM_CALC, NM_CALC_COUNTERS), "row_calc": (*ROW_CALC, ROW_CALC_COUNTERS)}


@pytest.mark.parametrize("name", EXAMPLES)
def test_worked_example_counters(name):
    spec, layer, expected = EXAMPLES[name]
    plan = FAMILY.plan(spec, layer)
    for count in (FAMILY.fast, FAMILY.reference):
        assert count(plan, None).as_dict() == expected


def test_worked_example_logs():
    """The reference's agents in time order: folds, DRAM fills, prefetch bursts and drains."""
    log = []
    simulate_group(FAMILY.plan(*WS_CALC), log=log)
    assert [tuple(e) for e in log] == [
        ("fold 0", "start", 0), ("ofmap_sram drain 1", "write start", 5), ("ofmap_sram drain 1", "write end", 6),
        ("fold 0", "end", 7), ("fold 1", "start", 7),
        ("ofmap_sram drain 2", "write start", 11), ("ofmap_sram drain 2", "write end", 12),
        ("fold 1", "end", 14), ("ofmap_sram drain 3", "write start", 13), ("ofmap_sram drain 3", "write end", 14),
        ("ofmap_sram drain 4", "write start", 15), ("ofmap_sram drain 4", "write end", 15)]
    log = []
    simulate_group(FAMILY.plan(*WS_USER), log=log)
    assert [tuple(e) for e in log] == [
        ("ifmap_sram fill", "read start", -3), ("filter_sram fill", "read start", -3),
        ("ifmap_sram fill", "read end", -1), ("filter_sram fill", "read end", -1), ("fold 0", "start", 0),
        ("filter_sram burst 1", "read start", 0), ("filter_sram burst 1", "read end", 2),
        ("filter_sram burst 2", "read start", 3), ("filter_sram burst 2", "read end", 5),
        ("filter_sram burst 3", "read start", 6), ("filter_sram burst 3", "read end", 8),
        ("ifmap_sram burst 1", "read start", 0), ("ifmap_sram burst 1", "read end", 2),
        ("ofmap_sram drain 1", "write start", 12), ("ofmap_sram drain 1", "write end", 13), ("fold 0", "end", 14),
        ("ofmap_sram drain 2", "write start", 13), ("ofmap_sram drain 2", "write end", 14)]


def actions_of(result):
    return [(a.component, a.component_class, a.action, a.count, a.bits) for a in result.actions]


def test_accounting_of_the_output_stationary_example():
    """SCALE-Sim adds rows + cols output writes per fold; both inputs move through the PEs."""
    spec, layer, expected = EXAMPLES["os_calc"]
    result = account(FAMILY.plan(spec, layer), SystolicCounters(**expected))
    assert actions_of(result) == [
        ("dram", "dram", "read", 10, 8), ("dram", "dram", "write", 6, 8),
        ("ifmap_sram", "sram", "read", 6, 8), ("ifmap_sram", "sram", "write", 6, 8),
        ("filter_sram", "sram", "read", 8, 8), ("filter_sram", "sram", "write", 4, 8),
        ("ofmap_sram", "sram", "write", 6 + (2 + 2) * 2, 8), ("ofmap_sram", "sram", "read", 6, 8),
        ("pe_array", "mult_int", "op", 12, 8), ("pe_array", "add_int", "op", 12, 32),
        ("pe_array", "register_file", "write", 24, 8)]
    assert [a.capacity_bytes for a in result.actions[2:8]] == [1024] * 6
    assert (result.cycles, result.compute_cycles, result.stall_cycles) == (7, 7, 0)
    assert (result.macs_dense, result.macs_issued, result.peak_macs_per_cycle) == (12, 12, 4)
    assert (result.dram_read_bytes, result.dram_write_bytes) == (10, 6)
    assert (result.sram_read_bytes, result.sram_write_bytes) == (6 + 8 + 6, 14 + 10)
    assert dict(result.metrics) == {"folds": 2.0, "row_folds": 2.0, "col_folds": 1.0,
                                    "mapping_efficiency": 6 / (4 * 2), "compute_utilization": 6 * 2 / (4 * 4 * 2),
                                    "cycles_incl_prefetch": 10.0}


def test_accounting_of_the_nm_example():
    """The ifmap is read M/N = 2 times per streamed word; 2-bit position indices travel with the
    weights; WS latches the streamed input and the partial sum."""
    spec, layer, expected = EXAMPLES["nm_calc"]
    result = account(FAMILY.plan(spec, layer), SystolicCounters(**expected))
    assert actions_of(result) == [
        ("dram", "dram", "read", 20, 8), ("dram", "dram", "write", 12, 8),
        ("ifmap_sram", "sram", "read", 32, 8), ("ifmap_sram", "sram", "write", 8, 8),
        ("filter_sram", "sram", "read", 12, 8), ("filter_sram", "sram", "write", 12, 8),
        ("ofmap_sram", "sram", "write", 12, 8), ("ofmap_sram", "sram", "read", 12, 8),
        ("pe_array", "mult_int", "op", 24, 8), ("pe_array", "add_int", "op", 24, 32),
        ("pe_array", "register_file", "write", 24, 8), ("pe_array", "register_file", "write", 24, 32),
        ("dram", "dram", "read", 12, 2), ("filter_sram", "sram", "write", 12, 2), ("filter_sram", "sram", "read", 12, 2)]
    assert (result.macs_dense, result.macs_issued) == (48, 24)
    assert (result.dram_read_bytes, result.dram_write_bytes) == (20 + 3, 12)
    assert (result.sram_read_bytes, result.sram_write_bytes) == (32 + 12 + 12 + 3, 12 + 20 + 3)
    assert result.metrics["mapping_efficiency"] == 4 * 3 / (4 * 4)
    assert result.metrics["compute_utilization"] == 4 * 3 * 2 / (4 * (6 + 1) * 4)


def test_row_wise_draws_are_scalesims():
    """The first N_c SCALE-Sim 3.0.0 draws (numpy legacy RandomState, reseeded per layer)."""
    cases = {(4, 40): (1, 2, 2, 2, 1, 1, 1, 2, 1, 2, 1, 2), (8, 40): (3, 4, 4, 2, 1, 1, 3, 2, 1, 4, 3, 4),
             (4, 7): (2, 1, 2, 1, 2, 2, 2, 2, 1, 2, 1, 2)}
    for (block_size, seed), draws in cases.items():
        plan = FAMILY.plan(arch("ws", rows=8, block_size=block_size, seed=seed), GemmLayer("g", m=1, k=9, n=12))
        assert plan.mapping.row_wise.kept_per_block == draws
        assert plan.mapping.row_wise.slots == block_size // 2


def test_row_wise_example_plan():
    """Packed filter (-1: idle slot), and the ifmap demand of the worked example: PE row j gets the
    4 values of window block j // 2 in line R + t + j, ordered by PE row (ifmap address 8 t + k)."""
    spec, layer, _ = EXAMPLES["row_calc"]
    plan = FAMILY.plan(spec, layer)
    assert plan.matrices.filter.tolist() == [[0, 8], [-1, 9], [4, 12], [-1, 13]]
    assert (plan.mapping.gemm.k, plan.mapping.dense_k, plan.mapping.row_folds, plan.mapping.fold_lines) == (4, 8, 1, 10)
    assert plan.metadata_bits == 2
    stream = demand_stream(plan.mapping, plan.matrices, "ifmap")
    expected = [(4, [0, 1, 2, 3]), (5, [8, 9, 10, 11, 0, 1, 2, 3]), (6, [8, 9, 10, 11, 4, 5, 6, 7]),
                (7, [12, 13, 14, 15, 4, 5, 6, 7]), (8, [12, 13, 14, 15])]
    assert stream.lines.tolist() == [line for line, words in expected for _ in words]
    assert stream.addresses.tolist() == [a for _, words in expected for a in words]


def test_accounting_of_the_row_wise_example():
    """Row-wise: ifmap reads as SCALE-Sim counts them (whole skewed lines), 2-bit block positions
    travel with the 6 kept weights, MACs only where a weight is held."""
    spec, layer, expected = EXAMPLES["row_calc"]
    result = account(FAMILY.plan(spec, layer), SystolicCounters(**expected))
    assert actions_of(result) == [
        ("dram", "dram", "read", 22, 8), ("dram", "dram", "write", 4, 8),
        ("ifmap_sram", "sram", "read", 80, 8), ("ifmap_sram", "sram", "write", 16, 8),
        ("filter_sram", "sram", "read", 8, 8), ("filter_sram", "sram", "write", 6, 8),
        ("ofmap_sram", "sram", "write", 4, 8), ("ofmap_sram", "sram", "read", 4, 8),
        ("pe_array", "mult_int", "op", 12, 8), ("pe_array", "add_int", "op", 12, 32),
        ("pe_array", "register_file", "write", 12, 8), ("pe_array", "register_file", "write", 12, 32),
        ("dram", "dram", "read", 6, 2), ("filter_sram", "sram", "write", 6, 2), ("filter_sram", "sram", "read", 8, 2)]
    assert (result.macs_dense, result.macs_issued) == (32, 12)
    assert (result.dram_read_bytes, result.dram_write_bytes, result.sram_read_bytes, result.sram_write_bytes) == (
        22 + 2, 4, 80 + 8 + 4 + 2, 4 + 22 + 2)
    assert result.metrics["mapping_efficiency"] == 6 / (4 * 2)
    assert result.metrics["compute_utilization"] == 4 * 2 * 2 / (4 * 2 * (10 + 1))


def test_nm_ifmap_reads_are_rounded_per_group():
    """3:4 on 2 groups of 7 streamed ifmap words: 2 x round(7 x 4/3) = 18, not round(14 x 4/3) = 19."""
    layer = ConvLayer("g", in_h=3, in_w=3, in_channels=4, out_channels=2, kernel_h=3, kernel_w=3, groups=2,
                      weight_sparsity=NMSparsity(3, 4))
    plan = FAMILY.plan(arch("ws", nm=True), layer)
    fields = dict(EXAMPLES["nm_calc"][2], ifmap_sram_reads=14)
    reads = [a.count for a in account(plan, SystolicCounters(**fields)).actions if a.component == "ifmap_sram"]
    assert reads[0] == 18


def test_one_of_two_layers_carry_one_metadata_bit():
    """1:2: a kept weight's position among 2 takes ceil(log2 2) = 1 bit, read with each of the
    8 x 3 / 2 = 12 kept weights, on both paths (the 2:4 example above takes 2 bits)."""
    plan = FAMILY.plan(arch("ws", nm=True), GemmLayer("g", m=2, k=8, n=3, weight_sparsity=NMSparsity(1, 2)))
    assert plan.metadata_bits == 1
    assert FAMILY.fast(plan, None).nm_metadata_reads == FAMILY.reference(plan, None).nm_metadata_reads == 12


def test_dense_and_one_to_one_layers_carry_no_metadata():
    for layer in (GemmLayer("g", m=2, k=8, n=3), GemmLayer("g", m=2, k=8, n=3, weight_sparsity=NMSparsity(1, 1))):
        plan = FAMILY.plan(arch("ws", nm=True), layer)
        assert plan.metadata_bits == 0
        assert FAMILY.fast(plan, None).nm_metadata_reads == 0
        assert len(account(plan, FAMILY.fast(plan, None)).actions) == 12


# --------------------------------------------------------------------------- plan
def test_buffers_in_words_and_dram_streams_in_whole_words():
    spec = ArchSpec(name="t", family="systolic", word_bits=16, dram=DramSpec(bandwidth_mode="user", bandwidth=3),
                    systolic=SystolicSpec(rows=4, cols=5, dataflow="os", ifmap_sram=BufferSpec(1001),
                                          filter_sram=BufferSpec(4), ofmap_sram=BufferSpec(64)))
    plan = FAMILY.plan(spec, GemmLayer("g", m=2, k=2, n=2))
    assert dict(plan.capacity_words) == {"ifmap": 500, "filter": 2, "ofmap": 32}
    assert (plan.user_bandwidth, plan.dram_words_per_cycle, plan.ofmap_line_words) == (True, 1, 1)
    slow = dataclasses.replace(spec, word_bits=8, dram=DramSpec(bandwidth_mode="user", bandwidth=0.5))
    assert FAMILY.plan(slow, GemmLayer("g", m=2, k=2, n=2)).dram_words_per_cycle == 1  # never below one word
    calc = dataclasses.replace(spec, dram=DramSpec(bandwidth_mode="calc", bandwidth=3),
                               systolic=dataclasses.replace(spec.systolic, filter_sram=BufferSpec(200)))
    assert FAMILY.plan(calc, GemmLayer("g", m=2, k=2, n=2)).ofmap_line_words == 5  # one word per column


@pytest.mark.parametrize("mode, buffers, message", [
    ("user", (BufferSpec(2), BufferSpec(2), BufferSpec(2)), None),              # one word per half: fine
    ("user", (BufferSpec(2), BufferSpec(1), BufferSpec(2)), "filter_sram.size 1 B holds fewer than 2 words"),
    ("user", (BufferSpec(2), BufferSpec(2), BufferSpec(4, double_buffered=False)), "double-buffered"),
    # CALC: SCALE-Sim's estimate buffer keeps 100 sets of words // 100; below 100 words they never fill
    ("calc", (BufferSpec(100), BufferSpec(100), BufferSpec(2)), None),          # the output buffer is not one
    ("calc", (BufferSpec(99), BufferSpec(100), BufferSpec(2)),
     r"^arch 't': systolic.ifmap_sram.size 99 B holds 99 words of 8 bits, fewer than the 100 a read buffer needs "
     "with dram.bandwidth_mode calc"),
    ("calc", (BufferSpec(100), BufferSpec(2), BufferSpec(2)), "systolic.filter_sram.size 2 B holds 2 words"),
])
def test_buffers_the_model_refuses(mode, buffers, message):
    spec = ArchSpec(name="t", family="systolic", dram=DramSpec(bandwidth_mode=mode), systolic=SystolicSpec(
        rows=2, cols=2, dataflow="ws", ifmap_sram=buffers[0], filter_sram=buffers[1], ofmap_sram=buffers[2]))
    if message is None:
        assert FAMILY.plan(spec, GemmLayer("g", m=2, k=2, n=2)).capacity_words["ofmap"] == 2
    else:
        with pytest.raises(ValueError, match=message):
            FAMILY.plan(spec, GemmLayer("g", m=2, k=2, n=2))


def test_plan_and_counters_are_frozen():
    plan = FAMILY.plan(*OS_CALC)
    records = (plan, plan.mapping, plan.mapping.dataflow, plan.matrices, role(plan.mapping, "ifmap"),
               FAMILY.fast(plan, None))
    for record in records:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, dataclasses.fields(record)[0].name, None)


# --------------------------------------------------------------------------- SCALE-Sim 3.0.0
CASES = {d.name: load_case(d) for d in case_dirs()}
LAYERS = [(name, index) for name, case in CASES.items() for index in range(len(case.layers))]
REFERENCE_CASES = ("calc_is_8x8_gemm", "calc_os_12x20_gemm", "calc_ws_16x16_nm", "calc_ws_32x8_gemm",
                   "user_ws_16x16_nm", "calc_ws_12x12_row_bs4", "user_ws_32x32_row_bs4_gemm_seed7")
SLOW_CASES = ("shipped_sparsity_alexnet_conv1",)  # 6 s on the fast path: in test_scalesim_golden.py only


def scalesim_numbers(result) -> dict[str, float]:
    counts = {(a.component, a.action): a.count for a in result.actions if a.bits == 8}
    return {"Total Cycles": result.cycles, "Stall Cycles": result.stall_cycles,
            "Total Cycles (incl. prefetch)": result.metrics["cycles_incl_prefetch"],
            "Mapping Efficiency %": result.metrics["mapping_efficiency"] * 100,
            "Compute Util %": result.metrics["compute_utilization"] * 100,
            "SRAM IFMAP Reads": counts["ifmap_sram", "read"], "SRAM Filter Reads": counts["filter_sram", "read"],
            "SRAM OFMAP Writes": counts["ofmap_sram", "write"], "DRAM IFMAP Reads": counts["ifmap_sram", "write"],
            "DRAM Filter Reads": counts["filter_sram", "write"], "DRAM OFMAP Writes": counts["dram", "write"]}


@pytest.mark.parametrize("case_name", [name for name in CASES if name not in SLOW_CASES])
def test_every_scalesim_case_on_the_fast_path(case_name):
    case = CASES[case_name]
    for index, layer in enumerate(case.layers):
        reported = {**case.compute[index], **case.access[index]}
        ours = scalesim_numbers(FAMILY.layer_result(case.arch, layer))
        assert ours == pytest.approx({key: reported[key] for key in ours}, rel=1e-9, abs=0.5), (case_name, index)


@pytest.mark.parametrize("case_name", REFERENCE_CASES)
def test_small_scalesim_cases_on_the_reference(case_name):
    case = CASES[case_name]
    for index, layer in enumerate(case.layers):
        reported = case.compute[index]
        result = FAMILY.layer_result(case.arch, layer, reference=True)
        assert (result.cycles, result.stall_cycles) == (reported["Total Cycles"], reported["Stall Cycles"])


# --------------------------------------------------------------------------- conservation laws
layers = st.one_of(
    st.builds(lambda h, c, k, r, s, pad, groups, nm: ConvLayer(
        "conv", in_h=h, in_w=h + 1, in_channels=c * groups, out_channels=k * groups, kernel_h=r, kernel_w=r,
        stride_h=s, stride_w=s, pad_top=pad, pad_bottom=pad, pad_left=pad, pad_right=pad, groups=groups,
        weight_sparsity=nm),
        st.integers(3, 12), st.integers(1, 8), st.integers(1, 20), st.integers(1, 3), st.integers(1, 3),
        st.integers(0, 1), st.integers(1, 3), st.sampled_from([None, NMSparsity(2, 4), NMSparsity(1, 4)])),
    st.builds(lambda m, k, n: GemmLayer("gemm", m=m, k=k, n=n), st.integers(1, 60), st.integers(1, 60),
              st.integers(1, 60)),
)


def touched(size, kernel, stride, pad, outputs):
    return len({i for o in range(outputs) for i in range(o * stride - pad, o * stride - pad + kernel) if 0 <= i < size})


@settings(max_examples=60, deadline=None, derandomize=True)
@given(layer=layers, rows=st.integers(1, 16), cols=st.integers(2, 16), dataflow=st.sampled_from(["os", "ws", "is"]),
       size=st.sampled_from([256, 2048, 65536]), nm=st.booleans())
def test_conservation_laws(layer, rows, cols, dataflow, size, nm):
    spec = arch(dataflow, size=size, rows=rows, cols=cols, nm=nm and dataflow == "ws")
    plan = FAMILY.plan(spec, layer)
    c = FAMILY.fast(plan, None)
    result = FAMILY.account(plan, c)
    kept = plan.mapping.gemm.k / plan.mapping.dense_k
    assert result.macs_issued + result.macs_skipped == result.macs_dense == layer.macs
    assert c.macs_issued == layer.macs * kept
    assert c.cycles >= math.ceil(c.macs_issued / (rows * cols)) and c.cycles == c.compute_cycles
    assert c.compute_cycles == plan.mapping.groups * (plan.mapping.folds * plan.mapping.fold_lines - 1)
    assert c.ofmap_sram_writes >= layer.output_elements and c.ofmap_dram_writes >= layer.output_elements
    assert c.filter_dram_reads >= layer.weight_elements * kept and c.filter_sram_reads >= layer.weight_elements * kept
    if plan.mapping.nm is None and isinstance(layer, ConvLayer):
        inputs = (touched(layer.in_h, layer.kernel_h, layer.stride_h, layer.pad_top, layer.out_h)
                  * touched(layer.in_w, layer.kernel_w, layer.stride_w, layer.pad_left, layer.out_w) * layer.in_channels)
        assert c.ifmap_dram_reads >= inputs
    elif plan.mapping.nm is None:
        assert c.ifmap_dram_reads >= layer.m * layer.k


@settings(max_examples=30, deadline=None, derandomize=True)
@given(layer=layers, rows_blocks=st.sampled_from([(2, 2), (4, 4), (8, 4), (8, 8), (16, 8)]), cols=st.integers(2, 16),
       size=st.sampled_from([256, 65536]), seed=st.integers(0, 1000))
def test_row_wise_conservation_laws(layer, rows_blocks, cols, size, seed):
    """Row-wise: issued + skipped = dense MACs, each filter keeps N_c of every BS window rows, the
    packed operand has ceil(k / 2BS) BS rows, every kept weight is read from DRAM once."""
    rows, block_size = rows_blocks
    plan = FAMILY.plan(arch("ws", size=size, rows=rows, cols=cols, block_size=block_size, seed=seed), layer)
    c = FAMILY.fast(plan, None)
    result = FAMILY.account(plan, c)
    k, n = plan.mapping.dense_k, plan.mapping.gemm.n
    draws = plan.mapping.row_wise.kept_per_block
    assert len(draws) == n and all(1 <= d <= block_size // 2 for d in draws)
    kept = sum(1 for d in draws for j in range(k) if j % block_size < d)
    assert result.macs_issued + result.macs_skipped == result.macs_dense == layer.macs
    assert c.macs_issued == plan.mapping.groups * plan.mapping.t * kept
    assert plan.mapping.gemm.k == math.ceil(k / (2 * block_size)) * block_size
    assert c.cycles >= math.ceil(c.macs_issued / (rows * cols)) and c.cycles == c.compute_cycles
    assert c.filter_sram_reads == plan.mapping.groups * plan.mapping.gemm.k * n
    assert c.ofmap_sram_writes >= layer.output_elements and c.ofmap_dram_writes >= layer.output_elements
    if size == 65536:  # everything fits: every kept weight fetched once, every input word once
        assert c.filter_dram_reads == plan.mapping.groups * kept == c.nm_metadata_reads
