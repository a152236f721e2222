"""DLU refinement: fast path == SimPy reference field by field, worked examples derived by hand
(so a bug in the shared plan fails too), and accounting against hand-counted actions and the
conservation laws."""
import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim import load_arch
from accel_sim.models.dlu import fast as dlu_fast
from accel_sim.models.dlu.accounting import account, mac_actions
from accel_sim.models.dlu.counters import DLUCounters
from accel_sim.models.dlu.family import FAMILY
from accel_sim.models.dlu.plan import block_shape
from accel_sim.models.dlu.reference import reference
from accel_sim.foundations.errors import SimulationError
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.workload import ConvLayer, GemmLayer

# 2 units x 2 elements x 2 lanes of 32 bits: 8 MAC units at fp32, 16 at int16, 32 at int8
SMALL = {"dlu.processing_units": 2, "dlu.elements_per_unit": 2, "dlu.simd_lanes": 2, "dlu.local_memory": "1 KiB"}
DATA_TYPES = ["fp32", "fp16", "int16", "int8", "int4", "ternary", "binary"]


def small(**overrides):
    return load_arch("dlu", dict(SMALL, **{f"dlu.{k}" if "." not in k else k: v for k, v in overrides.items()}))


layers = st.one_of(
    st.builds(lambda m, k, n: GemmLayer("g", m=m, k=k, n=n), st.integers(1, 24), st.integers(1, 64), st.integers(1, 40)),
    st.builds(lambda h, c, k, r, g: ConvLayer("c", in_h=h, in_w=h, in_channels=c * g, out_channels=k * g,
                                              kernel_h=r, kernel_w=r, groups=g),
              st.integers(3, 6), st.integers(1, 4), st.integers(1, 6), st.integers(1, 3), st.integers(1, 3)),
)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(layer=layers, data_type=st.sampled_from(DATA_TYPES), mode=st.sampled_from(["calc", "user"]),
       bandwidth=st.sampled_from([1, 2, 2.5, 4, 7, 16]), latency=st.integers(0, 12), stats_rate=st.integers(1, 5),
       stats_latency=st.integers(0, 3), memory=st.sampled_from(["256 B", "512 B", "4 KiB", "64 KiB"]),
       split=st.booleans(), statistics=st.booleans(), units=st.integers(1, 3), readout_rate=st.integers(1, 5),
       accumulator=st.sampled_from([32, 40]))
def test_fast_path_equals_reference_field_by_field(layer, data_type, mode, bandwidth, latency, stats_rate,
                                                   stats_latency, memory, split, statistics, units, readout_rate,
                                                   accumulator):
    arch = small(data_type=data_type, **{"dram.bandwidth_mode": mode, "dram.bandwidth": bandwidth,
                                         "dram.latency": latency}, stats_results_per_cycle=stats_rate,
                 stats_latency=stats_latency, local_memory=memory, split_by_sign=split, statistics=statistics,
                 processing_units=units, readout_words_per_cycle=readout_rate, accumulator_bits=accumulator)
    assert FAMILY.refinement(arch, layer) == []
    check_laws(arch, layer, FAMILY.layer_result(arch, layer))


@settings(derandomize=True, max_examples=25, deadline=None)
@given(layer=layers, data_type=st.sampled_from(DATA_TYPES), mode=st.sampled_from(["calc", "user"]),
       memory=st.sampled_from(["256 B", "512 B", "4 KiB"]), statistics=st.booleans())
def test_fast_path_summed_a_few_tiles_at_a_time_equals_the_reference(layer, data_type, mode, memory, statistics):
    """The fast path sums the steps a few row blocks at a time (``CHUNK_TILES``), carrying the pipeline's lag
    from one pass to the next: passes of 1, 2, 3 and 5 tiles (fewer than a row block has, so one row block a
    pass) give the reference's counters, field by field."""
    arch = small(data_type=data_type, **{"dram.bandwidth_mode": mode, "dram.bandwidth": 2.5, "dram.latency": 3},
                 local_memory=memory, statistics=statistics)
    for tiles in (1, 2, 3, 5):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(dlu_fast, "CHUNK_TILES", tiles)
            assert FAMILY.refinement(arch, layer) == [], tiles


def check_laws(arch, layer, result):
    """Dense datapath: every MAC issued; time, traffic and the split of cycles obey their bounds."""
    assert result.macs_issued == result.macs_dense == layer.macs and result.macs_skipped == 0
    assert result.cycles >= math.ceil(layer.macs / result.peak_macs_per_cycle)
    assert result.cycles == result.compute_cycles + result.stall_cycles and result.stall_cycles >= 0
    bits = arch.dlu.bits
    assert result.dram_read_bytes >= math.ceil(layer.weight_elements * bits / 8)
    assert result.dram_read_bytes >= math.ceil(layer.gemm().m * layer.gemm().k * layer.gemm().groups * bits / 8)
    assert result.dram_write_bytes == math.ceil(layer.output_elements * bits / 8)
    assert result.sram_write_bytes == result.dram_read_bytes <= result.sram_read_bytes
    if arch.dram.bandwidth_mode == "user":
        assert result.cycles >= math.ceil(result.dram_write_bytes / arch.dram.bandwidth)
    else:
        assert result.stall_cycles == 0


# Worked example: int16 on SMALL with 64 B per unit. m=1, k=16, n=8: one 1 x 8 block; 2 x 64 B =
# 1024 bits, a tile may use 512: chunks of 512 // ((1 + 8) x 16) = 3, so 6 tiles (5 x 3 + 1).
# Weights (2048 bits) are not resident, the inputs (256 bits) are. DRAM 4 B/cycle, latency 3:
# a load of 8 x 3 weights (48 B) takes 3 + 12 = 15, the last (8 x 1, 16 B) 3 + 4 = 7.
# Steps: 15 x 5 (loads 0-4, with computes of 3), 7 (load 5), 1 (compute 5), then the drain of the
# completed block: statistics 2 + ceil(4 results per unit / 16) = 3, write-back 16 B / 4 = 4.
# Readout: 2 units x 32 counters at 1 per cycle = 64.
WORKED = {"dram.latency": 3, "dram.bandwidth": 4, "dlu.data_type": "int16", "dlu.local_memory": "64 B"}
WORKED_LAYER = GemmLayer("g", m=1, k=16, n=8)
WORKED_COUNTERS = DLUCounters(
    cycles=15 * 5 + 7 + 1 + 4 + 64, compute_cycles=3 * 5 + 1 + 3 + 64,
    load_stall_cycles=15 + 12 * 4 + (7 - 3), writeback_stall_cycles=4 - 3, readout_cycles=64,
    tiles=6, macs=128, operand_reads=9 * 16, input_fill_words=16, weight_fill_words=128, output_words=8,
    statistics_results=8, histogram_readouts=1)


@pytest.mark.parametrize("path", ["fast", "reference"])
def test_worked_example_counters(path):
    arch = load_arch("dlu", dict(SMALL, **WORKED))
    plan = FAMILY.plan(arch, WORKED_LAYER)
    t = plan.tiling
    assert (t.block_rows, t.block_cols, t.chunk, t.inputs_resident, t.weights_resident) == (1, 8, 3, True, False)
    assert plan.tiles.chunk.tolist() == [3, 3, 3, 3, 3, 1]
    assert plan.tiles.last_chunk.tolist() == [False] * 5 + [True]
    assert getattr(FAMILY, path)(plan, None) == WORKED_COUNTERS


def test_worked_example_reference_log_shows_the_lockstep_pipeline():
    arch = load_arch("dlu", dict(SMALL, **WORKED))
    log = []
    reference(FAMILY.plan(arch, WORKED_LAYER), log=log)
    loads = [when for who, what, when in log if who.startswith("load tile") and what == "read end"]
    # inputs and weights load side by side; the weights (48 B) end last; steps start at 0, 15, ..., 75
    assert loads[1::2] == [15, 30, 45, 60, 75, 75 + 7]
    assert [when for who, what, when in log if who.startswith("load tile 0")] == [0, 0, 3 + 2, 15]
    assert [(who, what, when) for who, what, when in log if who.startswith("write")] == [
        ("write tile 5", "write start", 83), ("write tile 5", "write end", 86)]
    pops = [when for who, what, when in log if who == "loaded" and what == "pop"]
    assert pops == [0, 15, 30, 45, 60, 75, 82, 83]        # the array takes a tile (or a bubble) per step
    assert log[-1] == ("readout", "end", 87 + 64)


# Worked example with groups and both operands resident: fp32 (8 MAC units, no statistics), CALC
# DRAM, a 1 x 1 convolution of 2 groups on 3 x 3 pixels, 1 -> 2 channels per group: each group a
# GEMM m=9, k=1, n=2. Blocks 4 x 2 (8 lanes, the fewest operand words), so 3 tiles (4, 4, 1 rows) of
# one cycle; a group is 5 steps (3 cycles), the layer 6. Inputs come once (one column block), the
# weights with the first row block only.
def test_worked_example_groups_and_resident_operands():
    arch = small(data_type="fp32", **{"dram.bandwidth_mode": "calc"})
    layer = ConvLayer("c", in_h=3, in_w=3, in_channels=2, out_channels=4, kernel_h=1, kernel_w=1, groups=2)
    plan = FAMILY.plan(arch, layer)
    assert (plan.groups, plan.statistics) == (2, False)
    assert plan.tiles.input_words.tolist() == [4, 4, 1] and plan.tiles.weight_words.tolist() == [2, 0, 0]
    expected = DLUCounters(cycles=6, compute_cycles=6, load_stall_cycles=0, writeback_stall_cycles=0,
                           readout_cycles=0, tiles=6, macs=36, operand_reads=2 * (6 + 6 + 3), input_fill_words=18,
                           weight_fill_words=4, output_words=36, statistics_results=0, histogram_readouts=0)
    assert FAMILY.fast(plan, None) == expected == FAMILY.reference(plan, None)


# Worked example with several column blocks: int8 (32 MAC units), m=2, k=4, n=20 -> blocks 2 x 16
# (32 lanes; 2 column blocks: 16 + 4), one chunk. Inputs resident: fetched by the first column
# block only. DRAM 2.5 B/cycle, latency 1: load 0 = 1 + ceil(64 B / 2.5) = 27, load 1 = 1 +
# ceil(16 / 2.5) = 8 (weights; inputs already there). Statistics on 2 units at 3 per cycle,
# latency 1: block 0 (32 results) 1 + ceil(16 / 3) = 7, block 1 (8) 1 + ceil(4 / 3) = 3.
# Write-back 32 B / 2.5 -> 13, 8 B -> 4. Steps: 27 | 8 (compute 4) | 13 (compute 4, statistics 7)
# | 4 (statistics 3). Readout: 2 x 32 x 2 (split by sign) = 128 counters at 5 per cycle -> 26.
def test_worked_example_column_blocks_fractional_bandwidth_split_statistics():
    arch = small(data_type="int8", stats_results_per_cycle=3, stats_latency=1, split_by_sign=True,
                 readout_words_per_cycle=5, **{"dram.bandwidth": 2.5, "dram.latency": 1})
    plan = FAMILY.plan(arch, GemmLayer("g", m=2, k=4, n=20))
    assert (plan.tiling.block_rows, plan.tiling.block_cols, plan.tiling.chunk) == (2, 16, 4)
    assert plan.tiles.input_words.tolist() == [8, 0] and plan.tiles.weight_words.tolist() == [64, 16]
    assert plan.histogram_counters == 128
    expected = DLUCounters(
        cycles=27 + 8 + 13 + 4 + 26, compute_cycles=0 + 4 + 7 + 3 + 26, load_stall_cycles=27 + 4,
        writeback_stall_cycles=13 - 7 + 4 - 3, readout_cycles=26, tiles=2, macs=2 * 4 * 20,
        operand_reads=(2 + 16) * 4 + (2 + 4) * 4, input_fill_words=8, weight_fill_words=80, output_words=40,
        statistics_results=40, histogram_readouts=1)
    assert FAMILY.fast(plan, None) == expected == FAMILY.reference(plan, None)


# Worked example where a tile loads nothing: int16 (16 MAC units), m=8, k=2, n=8 -> 2 x 2 blocks of
# 4 x 4, one chunk of 2; both operands resident, so tile (1, 1) finds all its words on chip. DRAM
# 4 B/cycle, latency 10: loads of 16 B take 10 + 4 = 14, the last none (not even the latency).
# Every block completes: statistics 2 + ceil(8 per unit / 16) = 3, write-back 32 B / 4 = 8.
# Steps: 14 | 14 | 14 | 8 | 8 | 8, then the readout of 64 counters.
def test_worked_example_tile_without_loads():
    arch = small(data_type="int16", **{"dram.bandwidth": 4, "dram.latency": 10})
    plan = FAMILY.plan(arch, GemmLayer("g", m=8, k=2, n=8))
    assert plan.tiles.input_words.tolist() == [8, 0, 8, 0] and plan.tiles.weight_words.tolist() == [8, 8, 0, 0]
    expected = DLUCounters(
        cycles=14 * 3 + 8 * 3 + 64, compute_cycles=2 + 3 * 4 + 64, load_stall_cycles=14 + 12 + 11,
        writeback_stall_cycles=5 * 3, readout_cycles=64, tiles=4, macs=128, operand_reads=64, input_fill_words=16,
        weight_fill_words=16, output_words=64, statistics_results=64, histogram_readouts=1)
    assert FAMILY.fast(plan, None) == expected == FAMILY.reference(plan, None)


@pytest.mark.parametrize("m, n, lanes, shape", [
    (100, 100, 16, (4, 4)),    # of the 16-lane shapes, 4 x 4 needs the fewest operand words
    (100, 100, 12, (3, 4)),    # 3 x 4 and 4 x 3 tie: the wider block
    (3, 100, 16, (2, 8)),      # m limits the rows
    (100, 1, 16, (16, 1)),     # one column
    (1, 3, 16, (1, 3)),        # fewer outputs than lanes
    (9, 2, 8, (4, 2)),
    (5, 5, 7, (2, 3)),         # 7 lanes: 2 x 3 and 3 x 2 use 6, 5 words each: the wider
])
def test_block_shape_by_hand(m, n, lanes, shape):
    assert block_shape(m, n, lanes) == shape


@pytest.mark.parametrize("m, k, n, resident", [
    (8, 4, 8, (False, True)),    # weights 4 x 8 x 16 = 512 bits: exactly half of the 1024: resident
    (8, 4, 9, (True, False)),    # weights 576 bits: not resident, so the inputs (512) are
    (8, 4, 1, (False, True)),    # weights 64 bits; inputs 512 > 512 - 64
    (7, 4, 1, (True, True)),     # inputs 448 = 512 - 64: exactly what is left
    (33, 1, 40, (False, False)),  # weights 640 bits, inputs 528: neither fits
])
def test_residency_at_its_boundaries(m, k, n, resident):
    """int16 on 2 units x 64 B: 1024 bits, the resident half 512."""
    plan = FAMILY.plan(small(data_type="int16", local_memory="64 B"), GemmLayer("g", m=m, k=k, n=n))
    assert (plan.tiling.inputs_resident, plan.tiling.weights_resident) == resident


def test_chunk_fills_half_the_memory():
    # int8 on 2 units x 64 B: half = 512 bits; a 2 x 16 block needs 18 x 8 = 144 bits per reduction step
    plan = FAMILY.plan(small(data_type="int8", local_memory="64 B"), GemmLayer("g", m=2, k=100, n=16))
    assert (plan.tiling.chunk, plan.tiling.chunks, plan.tiles.chunk.tolist()[-1]) == (3, 34, 1)
    with pytest.raises(ValueError, match="cannot double-buffer"):
        FAMILY.plan(small(data_type="fp32", local_memory="16 B"), GemmLayer("g", m=8, k=4, n=8))


@pytest.mark.parametrize("path", ["fast", "reference"])
def test_max_cycles_guard(path):
    arch = load_arch("dlu", dict(SMALL, **WORKED))
    plan = FAMILY.plan(arch, WORKED_LAYER)
    count = getattr(FAMILY, path)
    assert count(plan, WORKED_COUNTERS.cycles).cycles == WORKED_COUNTERS.cycles
    with pytest.raises(SimulationError, match="max_cycles"):
        count(plan, WORKED_COUNTERS.cycles - 1)


def memory_actions(c, bits, memory):
    fills = c.input_fill_words + c.weight_fill_words
    return [ActionCount("local_memory", "sram", "read", c.operand_reads, bits, memory),
            ActionCount("local_memory", "sram", "write", fills, bits, memory),
            ActionCount("dram", "dram", "read", fills, bits), ActionCount("dram", "dram", "write", c.output_words, bits)]


def test_accounting_of_the_worked_example_by_hand():
    arch = load_arch("dlu", dict(SMALL, **WORKED))
    plan = FAMILY.plan(arch, WORKED_LAYER)
    result = account(plan, WORKED_COUNTERS)
    memory = 64
    assert list(result.actions) == [
        ActionCount("datapath", "mult_int", "op", 128, 16), ActionCount("datapath", "add_int", "op", 128, 32),
        # 128 int16 MACs, 2 per 32-bit lane: 64 lane operations of two operand words, a 32-bit partial sum
        # read and written per MAC, one instruction word per 2 SIMD lanes
        ActionCount("registers", "register_file", "read", 128, 32),
        ActionCount("registers", "register_file", "read", 128, 32),
        ActionCount("registers", "register_file", "write", 128, 32),
        ActionCount("control", "register_file", "read", 32, 32),
        ActionCount("requantize", "add_int", "op", 8, 32), ActionCount("requantize", "add_int", "op", 8, 16),
        ActionCount("statistics", "leading_bit_detector", "op", 8, 32),
        ActionCount("statistics", "add_int", "op", 8, 32),
        ActionCount("statistics", "register_file", "read", 64, 32),       # 2 units x 32 counters
        ActionCount("statistics", "add_int", "op", 32, 32),               # unit 2's counters added to unit 1's
        ActionCount("settings", "register_file", "write", 1, 8),
        *memory_actions(WORKED_COUNTERS, 16, memory)]
    assert (result.cycles, result.compute_cycles, result.stall_cycles) == (151, 83, 68)
    assert (result.dram_read_bytes, result.dram_write_bytes, result.sram_read_bytes, result.sram_write_bytes) == (
        144 * 2, 8 * 2, 144 * 2, 144 * 2)
    assert (result.macs_issued, result.macs_dense, result.peak_macs_per_cycle) == (128, 128, 16)
    assert dict(result.metrics) == {
        "lanes": 16.0, "tiles": 6.0, "block_rows": 1.0, "block_cols": 8.0, "chunk": 3.0, "inputs_resident": 1.0,
        "weights_resident": 0.0, "statistics_results": 8.0, "histogram_readout_cycles": 64.0,
        "lane_operations": 64.0}


COUNTS = DLUCounters(cycles=10, compute_cycles=7, load_stall_cycles=2, writeback_stall_cycles=1, readout_cycles=0,
                     tiles=3, macs=1000, operand_reads=300, input_fill_words=41, weight_fill_words=9, output_words=50,
                     statistics_results=50, histogram_readouts=3)


def lane_overhead(lane_ops, partial_sums, simd_lanes=2):
    """Registers and control of ``lane_ops`` 32-bit lane operations (two operand words each), ``partial_sums``
    32-bit accumulator reads and writes, one instruction word per ``simd_lanes`` lane operations."""
    return [ActionCount("registers", "register_file", "read", 2 * lane_ops, 32),
            ActionCount("registers", "register_file", "read", partial_sums, 32),
            ActionCount("registers", "register_file", "write", partial_sums, 32),
            ActionCount("control", "register_file", "read", -(-lane_ops // simd_lanes), 32)]


@pytest.mark.parametrize("data_type, datapath, lane_ops, partial_sums", [
    ("fp32", [("mult_fp", 1000, 32), ("add_fp", 1000, 32)], 1000, 1000),
    ("fp16", [("mult_fp", 1000, 16), ("add_fp", 1000, 32)], 500, 1000),     # FP16 products accumulate in FP32
    ("binary", [("xnor", 1000, 1), ("popcount", 1000, 1)], 32, 32),       # 32 per lane, one popcount sum each
    ("ternary", [("xnor", 2000, 1), ("popcount", 2000, 1)], 63, 63),      # mask and sign planes, 16 per lane
])
def test_accounting_of_non_fixed_point_types(data_type, datapath, lane_ops, partial_sums):
    arch = small(data_type=data_type)
    plan = FAMILY.plan(arch, GemmLayer("g", m=10, k=10, n=10))
    result = account(plan, COUNTS)
    bits = arch.dlu.bits
    scale = [ActionCount("datapath", "mult_fp", "op", 50, 32)] if data_type in ("binary", "ternary") else []
    assert list(result.actions) == [ActionCount("datapath", cls, "op", n, b) for cls, n, b in datapath] + \
        lane_overhead(lane_ops, partial_sums) + scale + memory_actions(COUNTS, bits, 1024)
    assert result.dram_read_bytes == math.ceil(50 * bits / 8) and result.dram_write_bytes == math.ceil(50 * bits / 8)
    assert result.sram_read_bytes == math.ceil(300 * bits / 8) and result.stall_cycles == 3


def test_accounting_of_stochastic_int4_split_statistics():
    arch = small(data_type="int4", rounding="stochastic", split_by_sign=True, accumulator_bits=24,
                 histogram_counter_bits=20, processing_units=3)
    result = account(FAMILY.plan(arch, GemmLayer("g", m=10, k=10, n=10)), COUNTS)
    counters = 3 * 24 * 2
    assert list(result.actions) == [
        ActionCount("datapath", "mult_int", "op", 1000, 4), ActionCount("datapath", "add_int", "op", 1000, 24),
        # 8 int4 MACs per 32-bit lane: 125 lane operations; 24-bit partial sums per MAC
        ActionCount("registers", "register_file", "read", 250, 32),
        ActionCount("registers", "register_file", "read", 1000, 24),
        ActionCount("registers", "register_file", "write", 1000, 24),
        ActionCount("control", "register_file", "read", 63, 32),
        ActionCount("requantize", "add_int", "op", 50, 24), ActionCount("requantize", "add_int", "op", 50, 4),
        ActionCount("requantize", "register_file", "write", 50, 20),      # the LFSR: 24 - 4 random bits
        ActionCount("statistics", "leading_bit_detector", "op", 50, 24),
        ActionCount("statistics", "add_int", "op", 50, 20),
        ActionCount("statistics", "register_file", "read", counters * 3, 20),
        ActionCount("statistics", "add_int", "op", counters // 3 * 2 * 3, 20),
        ActionCount("settings", "register_file", "write", 3, 8),
        *memory_actions(COUNTS, 4, 1024)]
    assert result.dram_read_bytes == 25 and result.dram_write_bytes == 25 and result.sram_read_bytes == 150


def test_sub_byte_words_round_up_to_whole_bytes():
    counts = DLUCounters(**{**COUNTS.as_dict(), "operand_reads": 9, "input_fill_words": 8, "weight_fill_words": 9,
                            "output_words": 7})
    result = account(FAMILY.plan(small(data_type="binary"), GemmLayer("g", m=10, k=10, n=10)), counts)
    assert (result.dram_read_bytes, result.dram_write_bytes, result.sram_read_bytes) == (3, 1, 2)


def test_statistics_block_is_off_without_fixed_point_or_when_absent():
    for overrides, on in (({"data_type": "int8"}, True), ({"data_type": "fp16"}, False),
                          ({"data_type": "int8", "statistics": False}, False)):
        assert FAMILY.plan(small(**overrides), GemmLayer("g", m=2, k=2, n=2)).statistics is on


def test_mac_actions_of_every_type():
    assert [tuple(a) for a in mac_actions(small(data_type="int8").dlu)] == [("mult_int", "op", 8, 1),
                                                                             ("add_int", "op", 32, 1)]
    assert [tuple(a) for a in mac_actions(small(data_type="ternary").dlu)] == [("xnor", "op", 1, 2),
                                                                                ("popcount", "op", 1, 2)]


def test_plan_and_counters_are_frozen():
    """Both paths and the accounting read one plan: none of them may change it."""
    plan = FAMILY.plan(small(), GemmLayer("g", m=2, k=2, n=2))
    for record, field in ((plan, "groups"), (plan.tiling, "chunk"), (plan.tiles, "rows"), (WORKED_COUNTERS, "cycles")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, field, 0)
