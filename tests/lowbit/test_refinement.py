"""Low-bit array refinement: fast path == SimPy reference field by field on generated layers of
every precision, worked examples derived by hand (a bug in the shared plan fails here too),
accounting against hand-counted actions, conservation laws, the max_cycles guard."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim import load_arch
from accel_sim.foundations.errors import InputError, SimulationError
from accel_sim.models.lowbit.accounting import account
from accel_sim.models.lowbit.family import FAMILY
from accel_sim.models.lowbit.reference import reference
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.workload import ConvLayer, GemmLayer
from accel_sim.foundations.workload.layer import MaxPool

PRECISIONS = ["binary", "ternary", "log2", "int8", "int4", "fp32"]


def small(**overrides):
    return load_arch("lowbit", {f"lowbit.{k}": v for k, v in overrides.items()})


layers = st.one_of(
    st.builds(lambda m, k, n, d: GemmLayer("g", m=m, k=k, n=n, weight_density=d), st.integers(1, 12),
              st.integers(1, 150), st.integers(1, 40), st.sampled_from([1.0, 0.5, 0.1])),
    st.builds(lambda h, c, k, r, g, s, p, pool: ConvLayer("c", in_h=h, in_w=h, in_channels=c * g, out_channels=k * g,
                                                          kernel_h=r, kernel_w=r, groups=g, stride_h=s, stride_w=s,
                                                          pad_top=p, pad_bottom=p, pad_left=p, pad_right=p,
                                                          max_pool=pool),
              st.integers(3, 6), st.integers(1, 4), st.integers(1, 6), st.integers(1, 3), st.integers(1, 3),
              st.integers(1, 2), st.integers(0, 1),
              st.sampled_from([None, MaxPool(1, 1, 0), MaxPool(3, 2, 1), MaxPool(3, 3, 1)])),
)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(layer=layers, precision=st.sampled_from(PRECISIONS), pes=st.integers(1, 9),
       word_bits=st.sampled_from([8, 16, 32, 64]), add_lanes=st.integers(1, 8), mult_lanes=st.integers(1, 8),
       fp_lanes=st.integers(1, 3), binarizer=st.integers(1, 70), beta=st.booleans(),
       buffers=st.sampled_from([(64 * 1024, 64 * 1024), (8, 64 * 1024), (16, 8), (40, 200)]))
def test_fast_path_equals_reference_field_by_field(layer, precision, pes, word_bits, add_lanes, mult_lanes, fp_lanes,
                                                   binarizer, beta, buffers):
    """Small buffers (input, weight bytes) make layers take the row-tile order, resident weights or not."""
    arch = small(precision=precision, pes=pes, word_bits=word_bits, add_lanes=add_lanes, mult_lanes=mult_lanes,
                 fp_lanes=fp_lanes, binarizer_width=binarizer, activation_scale=beta, input_buffer=buffers[0],
                 weight_buffer=buffers[1])
    assert FAMILY.refinement(arch, layer) == []
    check_laws(layer, FAMILY.layer_result(arch, layer))


def check_laws(layer, result, bandwidth=16.0):
    assert result.macs_issued + result.metrics["macs_skipped"] == result.macs_dense == layer.macs
    assert result.cycles >= math.ceil(result.macs_issued / result.peak_macs_per_cycle)
    assert result.cycles == result.compute_cycles + result.stall_cycles and result.stall_cycles > 0
    dram_bytes = result.dram_read_bytes + result.dram_write_bytes
    assert result.cycles >= result.metrics["dram_busy_cycles"] >= math.floor(dram_bytes / bandwidth)
    pool = getattr(layer, "max_pool", None)
    written = layer.output_elements if pool is None else \
        pool.out(layer.out_h) * pool.out(layer.out_w) * layer.batch * layer.out_channels
    assert result.metrics["written_outputs"] == written
    assert result.dram_write_bytes == math.ceil(written * result.metrics["output_bits"] / 8)


def test_binary_worked_example():
    """m = 3 rows, k = 100 (2 words of 64), n = 5 columns on 2 PEs: passes of 2, 2, 1 columns, each
    PE busy 3 x 2 = 6 cycles; drain 1 + log2(64) + 1 (scale) = 8; binarizing 300 values at 64 per
    cycle: 5 cycles. Total 5 + 3 x 6 + 3 x 8 = 47, and 6 waiting on DRAM (the next test)."""
    arch = small(precision="binary", pes=2)
    plan, c = FAMILY.counters(arch, GemmLayer("g", m=3, k=100, n=5))
    assert (c.cycles, c.binarize_cycles, c.compute_cycles, c.drain_cycles, c.passes) == (47 + 6, 5, 18, 24, 3)
    assert c.idle_pe_cycles == 6                   # the last pass has one empty PE for 6 cycles
    assert c.xnor_words == 3 * 2 * 5 and c.macs_issued == 3 * 100 * 5 and c.scale_mults == 15
    assert c.binarized_words == 3 * 2 and c.weight_read_bits == 5 * 128 and c.input_read_bits == 3 * 3 * 128
    assert reference(plan) == c
    actions = set(account(plan, c).actions)
    assert ActionCount("datapath", "xnor", "op", 30, 64) in actions
    assert ActionCount("datapath", "popcount", "op", 30, 64) in actions
    assert ActionCount("scale", "mult_fp", "op", 15, 32) in actions
    assert ActionCount("binarizer", "register_file", "write", 6, 64) in actions
    assert c.beta_adds == 0
    assert ActionCount("weight_buffer", "sram", "read", 10, 64, 64 * 1024) in actions     # 640 bits
    assert ActionCount("input_buffer", "sram", "read", 18, 64, 64 * 1024) in actions      # 1152 bits
    result = account(plan, c)
    assert result.peak_macs_per_cycle == 2 * 64 and result.metrics["passes"] == 3


def test_binary_worked_example_with_memory():
    """The example above with its DRAM traffic at 16 B / cycle: the input is 3 rows x 2 packed words
    (384 bits, fits the buffer); pass weights 2 x 128, 2 x 128, 128 bits; outputs 1 bit each (6, 6, 3).
    Load of pass 0 (640 bits = 80 B): 5 cycles, then binarize 5; steps max(6 + 8, DRAM): pass 1's
    load 256 bits (2 cycles), pass 2's load + pass 0's outputs 134 bits (2), pass 1's outputs (1);
    write-back of the last 3 bits: 1 cycle. 5 + 5 + 3 x 14 + 1 = 53."""
    plan, c = FAMILY.counters(small(precision="binary", pes=2), GemmLayer("g", m=3, k=100, n=5))
    assert (c.cycles, c.memory_stall_cycles, c.dram_busy_cycles) == (53, 6, 5 + 2 + 2 + 1 + 1)
    assert (c.dram_read_bits, c.dram_write_bits) == (640 + 384, 15)
    assert (c.weight_buffer_write_bits, c.input_buffer_write_bits) == (640, 384)
    assert c.output_buffer_write_bits == c.output_buffer_read_bits == 15
    assert reference(plan) == c
    result = account(plan, c)
    assert (result.dram_read_bytes, result.dram_write_bytes) == (128, 2)
    assert (result.sram_read_bytes, result.sram_write_bytes) == ((640 + 1152 + 15) // 8 + 1, (1024 + 15) // 8 + 1)
    assert (result.compute_cycles, result.stall_cycles) == (47, 6)
    actions = set(result.actions)
    assert ActionCount("dram", "dram", "read", 32, 32) in actions          # 1024 bits
    assert ActionCount("dram", "dram", "write", 1, 32) in actions          # 15 bits
    assert ActionCount("weight_buffer", "sram", "write", 10, 64, 64 * 1024) in actions
    assert ActionCount("input_buffer", "sram", "write", 6, 64, 64 * 1024) in actions
    assert ActionCount("output_buffer", "sram", "write", 1, 64, 64 * 1024) in actions
    assert ActionCount("output_buffer", "sram", "read", 1, 64, 64 * 1024) in actions


def test_narrow_dram_stretches_the_steps_and_a_small_buffer_reloads_the_input():
    """1 B / cycle: load 80, binarize 5, steps max(14, 32), max(14, ceil(134 / 8) = 17), max(14, 1),
    write-back 1: 149 cycles, 102 of them waiting. A 16-byte input buffer cannot hold the 384-bit
    input; with a 16-byte weight buffer the 640 weight bits cannot stay resident either, so streaming
    the input once in row tiles would reload the weights per tile (384 + 3 x 640 bits) and the column
    order, every pass reloading the input, moves less: loads 640, 640, 512 bits."""
    plan, c = FAMILY.counters(small(precision="binary", pes=2, dram_bandwidth=1), GemmLayer("g", m=3, k=100, n=5))
    assert (c.cycles, c.memory_stall_cycles) == (149, 102) and reference(plan) == c
    arch = small(precision="binary", pes=2, input_buffer=16, weight_buffer=16)
    plan, c = FAMILY.counters(arch, GemmLayer("g", m=3, k=100, n=5))
    assert not plan.input_fits and c.input_buffer_write_bits == 3 * 384 and c.dram_read_bits == 640 + 3 * 384
    assert (plan.row_tiles, c.row_tiles, c.passes) == (1, 1, 3) and reference(plan) == c
    latency = load_arch("lowbit", {"lowbit.pes": 2, "dram.latency": 10})
    plan, c = FAMILY.counters(latency, GemmLayer("g", m=3, k=100, n=5))
    assert c.cycles == 53 + 10 + 10 and reference(plan) == c    # the first load and the write-back wait 10 more


def test_layer_activation_bits_sets_the_stored_input_width():
    """An fp32 output read by a binary layer: 32 bits a value in DRAM (the binarizer packs it on chip)."""
    layer = GemmLayer("g", m=3, k=100, n=5, activation_bits=32)
    plan, c = FAMILY.counters(small(precision="binary", pes=2), layer)
    assert c.input_buffer_write_bits == 3 * 100 * 32 and reference(plan) == c


def test_xnor_net_beta_adds_a_scale_stage_and_sums_every_input():
    """activation_scale: drain 9 per pass instead of 8, every input's |x| summed, two scalings an output."""
    plan, c = FAMILY.counters(small(precision="binary", pes=2, activation_scale=True), GemmLayer("g", m=3, k=100, n=5))
    assert (c.cycles, c.drain_cycles) == (53 + 3, 27) and c.beta_adds == 300 and c.scale_mults == 30
    assert reference(plan) == c
    actions = set(account(plan, c).actions)
    assert ActionCount("binarizer", "add_fp", "op", 300, 32) in actions
    assert ActionCount("scale", "mult_fp", "op", 30, 32) in actions


def test_ternary_skips_zero_weights_and_waits_for_the_busiest_pe():
    """Ternary columns with 7, 0 and 3 non-zero weights on 2 PEs with 2 adders: a row costs
    ceil(7/2) = 4, 0 and 2 cycles; 4 rows: passes of max(16, 0) and 8 cycles; drain 1 + 1 + 1."""
    weights = np.zeros((8, 3), dtype=np.float32)
    weights[:7, 0], weights[:3, 2] = 1.0, -1.0
    import tempfile
    import os
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "w.npz")
    np.savez(path, weights=weights)
    from accel_sim.foundations.workload.layer import OperandSource
    layer = GemmLayer("t", m=4, k=8, n=3, operands=OperandSource(payload=path), precision="ternary")
    plan, c = FAMILY.counters(small(pes=2, add_lanes=2), layer)
    assert plan.column_elements.tolist() == [7, 0, 3]
    assert (c.compute_cycles, c.drain_cycles, c.cycles) == (24, 6, 30 + 3 + 1)   # first load 36 B, last write 4 B
    assert c.idle_pe_cycles == 16 + 8              # the empty column's PE, then the missing PE
    assert c.adds == 4 * 10 and c.macs_skipped == 4 * (24 - 10)
    assert reference(plan) == c


def test_layer_precision_overrides_the_configured_one():
    layer = GemmLayer("fc", m=2, k=64, n=4, precision="fp32")
    plan, c = FAMILY.counters(small(precision="binary", pes=4, fp_lanes=1), layer)
    assert plan.precision == "fp32" and c.fp_macs == 2 * 64 * 4 and c.xnor_words == 0
    assert c.compute_cycles == 2 * 64


def test_precision_the_array_lacks_is_refused():
    with pytest.raises(InputError, match="no fp16 datapath"):
        FAMILY.plan(small(), GemmLayer("g", m=1, k=4, n=4, precision="fp16"))
    with pytest.raises(InputError, match="wider than lowbit.multiplier_bits"):
        FAMILY.plan(small(), GemmLayer("g", m=1, k=4, n=4, precision="int16"))


@pytest.mark.parametrize("path", ["fast", "reference"])
def test_max_cycles_guard(path):
    arch, layer = small(pes=1), GemmLayer("g", m=8, k=640, n=8)
    with pytest.raises(SimulationError):
        FAMILY.layer_result(arch, layer, reference=path == "reference", max_cycles=20)


@pytest.mark.parametrize("precision, depth", [
    ("binary", 1 + 6 + 1),      # XNOR, popcount tree of 64 bits, alpha
    ("ternary", 1 + 4 + 1),     # sign select, 16-adder tree, alpha
    ("log2", 1 + 4),            # shift, 16-adder tree, no scale stage (powers of two)
    ("int8", 1 + 3),            # multiply, 8-product tree
    ("fp32", 1 + 0),            # one FMA
])
def test_drain_of_every_datapath(precision, depth):
    plan, c = FAMILY.counters(small(precision=precision, pes=1), GemmLayer("g", m=1, k=8, n=2))
    assert plan.pipeline_depth == depth and c.drain_cycles == 2 * depth and c.passes == 2


@pytest.mark.parametrize("buffer_bytes, fits", [(48, True), (47, False)])
def test_input_that_exactly_fills_the_buffer_is_loaded_once(buffer_bytes, fits):
    """The worked example's input is 3 rows x 2 words of 64 bits = 384 bits = 48 bytes: one byte less
    and it streams in 2 row tiles (the weights resident), still read once; with a 16-byte weight buffer
    the 2 tiles reload the 640 weight bits each (384 + 2 x 640 bits, fewer than the column order's
    640 + 3 x 384)."""
    plan, c = FAMILY.counters(small(precision="binary", pes=2, input_buffer=buffer_bytes), GemmLayer("g", m=3, k=100, n=5))
    assert plan.input_fits == fits and c.input_buffer_write_bits == 384 and plan.row_tiles == (1 if fits else 2)
    arch = small(precision="binary", pes=2, input_buffer=buffer_bytes, weight_buffer=16)
    plan, c = FAMILY.counters(arch, GemmLayer("g", m=3, k=100, n=5))
    assert (plan.row_tiles, plan.weights_resident, c.weight_buffer_write_bits) == ((1, False, 640) if fits
                                                                                   else (2, False, 1280))
    assert reference(plan) == c


def test_a_single_pass_waits_only_for_its_load_and_write_back():
    """One pass (2 columns on 2 PEs): no burst during the pass even with a DRAM latency of 10.
    Load 2 x 128 + 384 bits (80 B): 5 + 10; binarize 5; pass 6 + 8; write 6 bits: 1 + 10."""
    arch = load_arch("lowbit", {"lowbit.pes": 2, "dram.latency": 10})
    plan, c = FAMILY.counters(arch, GemmLayer("g", m=3, k=100, n=2))
    assert (c.cycles, c.memory_stall_cycles, c.dram_busy_cycles) == (15 + 5 + 14 + 11, 26, 6)
    assert reference(plan) == c
    longer = load_arch("lowbit", {"lowbit.pes": 2, "dram.latency": 30})   # longer than the pass: still no burst
    plan, c = FAMILY.counters(longer, GemmLayer("g", m=3, k=100, n=2))
    assert c.cycles == 35 + 5 + 14 + 31 and reference(plan) == c


def test_row_tiles_stream_the_input_once_and_keep_the_weights_resident():
    """The worked example with a 16-byte input buffer: the 384-bit input needs ceil(384 / 128) = 3 tiles
    of one row; the 640 weight bits fit the 64 KiB weight buffer, so the row-tile order moves 640 + 384
    bits against the column order's 640 + 3 x 384. 3 tiles x 3 passes, each 1 row x 2 words = 2 cycles
    + drain 8. Loads by pass: tile 0 256 + 128 (its row), 256, 128; tiles 1 and 2: 128 (their rows),
    0, 0. Outputs 2, 2, 1 bits a tile. First load 48 B: 3 cycles; binarize 5; every burst (at most
    256 bits, 2 cycles) hides under its 10-cycle pass; write-back 1: 3 + 5 + 9 x 10 + 1 = 99."""
    plan, c = FAMILY.counters(small(precision="binary", pes=2, input_buffer=16), GemmLayer("g", m=3, k=100, n=5))
    assert (plan.row_tiles, plan.weights_resident, c.row_tiles, c.passes) == (3, True, 3, 9)
    assert (c.cycles, c.compute_cycles, c.drain_cycles, c.idle_pe_cycles, c.memory_stall_cycles) == (99, 18, 72, 6, 4)
    assert (c.dram_read_bits, c.dram_write_bits, c.dram_busy_cycles) == (640 + 384, 15, 3 + 13 + 1)
    assert (c.weight_buffer_write_bits, c.input_buffer_write_bits) == (640, 384)
    assert (c.weight_read_bits, c.input_read_bits) == (3 * 640, 3 * 3 * 128)   # the PEs reread weights per tile
    assert (c.outputs, c.xnor_words, c.macs_issued) == (15, 30, 1500)
    assert reference(plan) == c


def test_row_tiles_reload_weights_that_do_not_fit_and_a_tie_keeps_the_column_order():
    """3 columns on 1 PE (3 passes), k = 100 binary: 384 weight bits, 384 input bits. A 16-byte input
    buffer (3 tiles) and a 16-byte weight buffer: by row tiles 384 + 3 x 384, by columns 384 + 3 x 384:
    equal, the column order stays. With 4 columns on 2 PEs (2 passes, 512 weight bits) the row tiles move
    384 + 3 x 512 = 1920 against 512 + 2 x 384 = 1280: columns. With a 48-byte weight buffer (384 bits)
    the 3 columns stay resident: 384 + 384 bits, each tile's first pass loading its 128-bit row."""
    layer = GemmLayer("g", m=3, k=100, n=3)
    plan, c = FAMILY.counters(small(precision="binary", pes=1, input_buffer=16, weight_buffer=16), layer)
    assert (plan.row_tiles, c.dram_read_bits) == (1, 384 + 3 * 384) and reference(plan) == c
    plan, c = FAMILY.counters(small(precision="binary", pes=1, input_buffer=16, weight_buffer=48), layer)
    assert (plan.row_tiles, plan.weights_resident, c.dram_read_bits, c.passes) == (3, True, 768, 9)
    assert c.weight_buffer_write_bits == 384 and reference(plan) == c
    plan, c = FAMILY.counters(small(precision="binary", pes=1, input_buffer=16, weight_buffer=47), layer)
    assert (plan.row_tiles, c.dram_read_bits) == (1, 384 + 3 * 384)   # not resident: 384 + 3 x 384 ties
    plan = FAMILY.plan(small(precision="binary", pes=2, input_buffer=16, weight_buffer=16), GemmLayer("g", m=3, k=100, n=4))
    assert plan.row_tiles == 1


def test_row_tiles_not_resident_reload_the_weights_every_tile():
    """fp32, m = 4, k = 2, n = 1 on 1 PE: input 4 x 2 x 32 = 256 bits, weights 64 bits. A 8-byte input
    buffer: 4 tiles of one row; with the weights resident (64 KiB) rows move 256 + 64 bits (columns: one pass, 64 +
    256: a tie, columns). With n = 3 (3 passes): columns 192 + 3 x 256 = 960; rows resident 256 + 192 = 448;
    rows with a 4-byte weight buffer 256 + 4 x 192 = 1024 > 960: columns."""
    plan = FAMILY.plan(small(precision="fp32", pes=1, input_buffer=8), GemmLayer("g", m=4, k=2, n=1))
    assert plan.row_tiles == 1
    plan, c = FAMILY.counters(small(precision="fp32", pes=1, input_buffer=8), GemmLayer("g", m=4, k=2, n=3))
    assert (plan.row_tiles, c.dram_read_bits, c.passes, c.compute_cycles) == (4, 448, 12, 4 * 2 * 3)
    assert c.weight_read_bits == 4 * 192 and reference(plan) == c
    plan, c = FAMILY.counters(small(precision="fp32", pes=1, input_buffer=8, weight_buffer=4), GemmLayer("g", m=4, k=2, n=3))
    assert (plan.row_tiles, c.dram_read_bits) == (1, 960) and reference(plan) == c


def test_a_tile_is_never_less_than_a_row():
    """m = 3 rows of 128 input bits with an 8-byte (64-bit) input buffer would need 6 tiles: more than
    the rows, so the column order stays (every pass reloads the input)."""
    plan, c = FAMILY.counters(small(precision="binary", pes=2, input_buffer=8), GemmLayer("g", m=3, k=100, n=5))
    assert plan.row_tiles == 1 and c.dram_read_bits == 640 + 3 * 384 and reference(plan) == c
