"""Low-bit array: what both paths read from the plan, counted by hand (a bug in the plan moves the
fast path and the reference together, so only a hand count catches it): the stored width of a
weight and an input of every precision (buffer bits, the ``weight_bits`` metric, the multiplier
width), which weights each zero-skipping datapath keeps (TWN drops the small ones, log2 only
zeros), and the binarizer's work on a grouped layer (every group's inputs)."""
import numpy as np
import pytest

from accel_sim import load_arch
from accel_sim.foundations.errors import SimulationError
from accel_sim.models.lowbit.accounting import account
from accel_sim.models.lowbit.family import FAMILY
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.workload import ConvLayer, GemmLayer
from accel_sim.foundations.workload.layer import MaxPool, OperandSource


def small(**overrides):
    return load_arch("lowbit", {f"lowbit.{k}": v for k, v in overrides.items()})


# m = 2 rows, k = 10, n = 3 columns on 2 PEs: passes of columns {0, 1} and {2}, one group, so each
# pass broadcasts the 2 rows once: input bits = 2 passes x 2 rows x (bits of one row); weight bits =
# 3 columns x (bits of one column). Defaults: activation_bits 8, log2_bits 4, word_bits 64. A
# binary row or column is one 64-bit word (k = 10 <= 64); int16 needs 16-bit multipliers.
@pytest.mark.parametrize("precision, options, weight_bits, row_bits", [
    ("binary", {}, 1, 64),                        # bits of one stored weight: 1 (a sign)
    ("ternary", {}, 2, 10 * 8),                   # a non-zero bit and a sign bit; 8-bit activations
    ("log2", {}, 4, 10 * 8),                      # log2_bits codes; 8-bit activations
    ("int4", {}, 4, 10 * 4),
    ("int8", {}, 8, 10 * 8),
    ("int16", {"multiplier_bits": 16}, 16, 10 * 16),
    ("fp32", {}, 32, 10 * 32),
])
def test_stored_bits_of_every_precision(precision, options, weight_bits, row_bits):
    arch = small(precision=precision, pes=2, **options)
    plan = FAMILY.plan(arch, GemmLayer("g", m=2, k=10, n=3))
    column_bits = 64 if precision == "binary" else 10 * weight_bits
    stored_input = 2 * row_bits                     # the 2 x 10 input, stored as each pass reads it
    output_bits = 1 if precision == "binary" else row_bits // 10    # packed signs; else the input width
    for path in (FAMILY.fast, FAMILY.reference):
        c = path(plan, None)
        assert (c.passes, c.weight_read_bits, c.input_read_bits) == (2, 3 * column_bits, 2 * 2 * row_bits)
        assert (c.dram_read_bits, c.dram_write_bits) == (3 * column_bits + stored_input, 2 * 3 * output_bits)
        assert (c.weight_buffer_write_bits, c.input_buffer_write_bits) == (3 * column_bits, stored_input)
    result = account(plan, FAMILY.fast(plan, None))
    assert result.metrics["weight_bits"] == weight_bits
    if precision.startswith("int"):     # the multiplier's width is the precision's
        assert ActionCount("datapath", "mult_int", "op", 2 * 10 * 3, weight_bits) in result.actions
    if precision == "fp32":
        assert ActionCount("datapath", "mult_fp", "op", 2 * 10 * 3, 32) in result.actions
        assert ActionCount("datapath", "add_fp", "op", 2 * 10 * 3, 32) in result.actions


def test_ternary_drops_small_weights_log2_only_zeros(tmp_path):
    """k = 4, n = 2: column 0 holds 1, 1, 0.1, 0 and column 1 holds 0.1, 0, 0, 0. TWN's delta is
    0.7 x mean|W| = 0.7 x 2.2 / 8 = 0.1925, so ternary keeps 2 and 0 weights; log2 keeps every
    non-zero one (the smallest power clips, it does not vanish): 3 and 1. m = 3 rows, 1 adder, 2 PEs
    (one pass): the busiest PE takes 3 x 2 (ternary) or 3 x 3 (log2) cycles."""
    weights = np.zeros((4, 2), dtype=np.float32)
    weights[:3, 0] = [1.0, 1.0, 0.1]
    weights[0, 1] = 0.1
    path = tmp_path / "w.npz"
    np.savez(path, weights=weights)
    for precision, kept, busiest in (("ternary", [2, 0], 3 * 2), ("log2", [3, 1], 3 * 3)):
        layer = GemmLayer("t", m=3, k=4, n=2, operands=OperandSource(payload=str(path)), precision=precision)
        plan = FAMILY.plan(small(pes=2, add_lanes=1), layer)
        assert plan.column_elements.tolist() == kept and plan.nonzero_weights == sum(kept)
        for count in (FAMILY.fast, FAMILY.reference):
            c = count(plan, None)
            assert (c.compute_cycles, c.adds, c.macs_issued, c.macs_skipped) == (
                busiest, 3 * sum(kept), 3 * sum(kept), 3 * (8 - sum(kept)))
            assert c.shifts == (3 * sum(kept) if precision == "log2" else 0)


def test_binarizer_packs_every_group():
    """A 1 x 1 convolution of 2 groups on 2 x 2 pixels, 2 -> 1 channels a group: each group's GEMM is
    m = 4, k = 2, n = 1, so the binarizer packs 4 x 2 x 2 = 16 values, 3 a cycle: 6 cycles, and
    writes one word per row and group: 8 words; with XNOR-Net's beta it sums all 16 |x|. The 2
    columns (one a group) fill the 2 PEs in one pass, each busy 4 rows x 1 word = 4 cycles; drain
    1 (XNOR) + 6 (64-bit popcount tree) + 1 (alpha) + 1 (beta) = 9. Cycles 6 + 4 + 9 = 19. The pass
    broadcasts the rows of both groups: 2 x 4 x 64 input bits. DRAM: each group's input is 4 pixels
    x one packed word of its 2 channels (256 bits a group), with 2 x 64 weight bits a 640-bit first
    load (80 B at 16 B / cycle: 5 cycles); the 8 one-bit outputs are written in 1: 19 + 5 + 1 = 25."""
    layer = ConvLayer("c", in_h=2, in_w=2, in_channels=4, out_channels=2, kernel_h=1, kernel_w=1, groups=2)
    plan = FAMILY.plan(small(precision="binary", pes=2, binarizer_width=3, activation_scale=True), layer)
    assert plan.binarize_values == 16
    for count in (FAMILY.fast, FAMILY.reference):
        c = count(plan, None)
        assert (c.cycles, c.binarize_cycles, c.compute_cycles, c.drain_cycles) == (25, 6, 4, 9)
        assert (c.input_buffer_write_bits, c.dram_read_bits, c.dram_write_bits) == (2 * 256, 2 * 256 + 128, 8)
        assert (c.binarized_words, c.beta_adds, c.xnor_words, c.macs_issued) == (8, 16, 8, 16)
        assert (c.scale_mults, c.outputs, c.weight_read_bits, c.input_read_bits) == (16, 8, 2 * 64, 2 * 4 * 64)


def test_max_cycles_is_the_last_cycle_allowed():
    """The binary worked example takes 53 cycles (test_refinement.test_binary_worked_example): a budget
    of 53 runs it on both paths, 52 stops it."""
    plan = FAMILY.plan(small(precision="binary", pes=2), GemmLayer("g", m=3, k=100, n=5))
    for count in (FAMILY.fast, FAMILY.reference):
        assert count(plan, 53).cycles == 53
        with pytest.raises(SimulationError, match="max_cycles"):
            count(plan, 52)


@pytest.mark.parametrize("buffer_bytes, fits", [(108, True), (107, False)])
def test_packed_input_of_a_grouped_batched_conv(buffer_bytes, fits):
    """Binary 1x1 conv, batch 2, 3 x 3 pixels, 2 groups of 20 channels, 8-bit words: each pixel's 20 channels
    of a group pack into 3 words (24 bits), so a group's input is 2 x 3 x 3 x 24 = 432 bits and the layer's
    864 bits = 108 bytes: it fits a 108-byte input buffer exactly, not a 107-byte one (then each pass reloads
    its groups' input: the 4 columns on 2 PEs take a pass per group)."""
    layer = ConvLayer("c", in_h=3, in_w=3, in_channels=40, out_channels=4, kernel_h=1, kernel_w=1, groups=2, batch=2)
    plan = FAMILY.plan(small(precision="binary", pes=2, word_bits=8, input_buffer=buffer_bytes), layer)
    assert plan.input_group_bits == 432 and plan.input_fits == fits
    for count in (FAMILY.fast, FAMILY.reference):
        assert count(plan, None).input_buffer_write_bits == 864


def _pooled_conv(pool, **overrides):
    """1 x 1 conv on 4 x 4 pixels, 2 -> 2 channels: m = 16, k = 2, n = 2 (one pass on 2 PEs)."""
    return ConvLayer("c", in_h=4, in_w=4, in_channels=2, out_channels=2, kernel_h=1, kernel_w=1, max_pool=pool,
                     **overrides)


def test_max_pool_in_the_output_stage_binary():
    """Binary: each PE busy 16 rows x 1 word; drain 1 + 6 (popcount tree) + 1 (alpha) + 1 (pool) = 9; binarize
    32 values at 64 a cycle: 1. First load: 16 pixels x one packed word + 2 x 64 weight bits = 1152 bits
    (144 B, 9 cycles). A 2/2 pool writes 2 x 2 pooled signs a column, 8 bits (1 cycle), after 4 x 2 x 4 = 32
    compares (a 1-bit OR each). 9 + 1 + 16 + 9 + 1 = 36 cycles; unpooled: drain 8, 32 bits written (1 cycle)."""
    arch = small(precision="binary", pes=2)
    plan = FAMILY.plan(arch, _pooled_conv(MaxPool(2, 2, 0)))
    assert (plan.written_rows, plan.pool_window, plan.pipeline_depth) == (4, 4, 9)
    for count in (FAMILY.fast, FAMILY.reference):
        c = count(plan, None)
        assert (c.cycles, c.drain_cycles, c.compute_cycles, c.binarize_cycles) == (36, 9, 16, 1)
        assert (c.outputs, c.pool_compares, c.dram_write_bits, c.dram_read_bits) == (32, 32, 8, 1152)
        assert c.output_buffer_write_bits == c.output_buffer_read_bits == 8
    result = account(plan, FAMILY.fast(plan, None))
    assert ActionCount("pool", "add_int", "op", 32, 1) in result.actions
    assert result.metrics["written_outputs"] == 8
    plain = FAMILY.fast(FAMILY.plan(arch, _pooled_conv(None)), None)
    assert (plain.cycles, plain.pool_compares, plain.dram_write_bits) == (35, 0, 32)


def test_overlapping_max_pool_fp32():
    """fp32, ResNet's stem pool 3/2/1 on the 4 x 4 map: (4 + 2 - 3) // 2 + 1 = 2 a side, 9 compares each:
    4 x 2 x 9 = 72 compares of 32 bits. Each PE busy 16 rows x 2 MACs = 32; drain 1 (FMA) + 1 (pool);
    first load 1024 input + 128 weight bits (9 cycles); 8 pooled fp32 outputs, 256 bits (2 cycles):
    9 + 32 + 2 + 2 = 45."""
    plan = FAMILY.plan(small(precision="fp32", pes=2), _pooled_conv(MaxPool(3, 2, 1)))
    for count in (FAMILY.fast, FAMILY.reference):
        c = count(plan, None)
        assert (c.cycles, c.pool_compares, c.dram_write_bits, c.outputs) == (45, 72, 256, 32)
    assert ActionCount("pool", "add_int", "op", 72, 32) in account(plan, FAMILY.fast(plan, None)).actions


def test_max_pool_with_row_tiles_writes_each_tiles_share():
    """The fp32 pooled conv on 1 PE (2 passes) with a 32-byte input buffer: the 1024 input bits need 4 tiles
    of 4 rows; by tiles the weights (128 bits) stay resident, 1024 + 128 bits against the column order's
    128 + 2 x 1024. The 4 pooled outputs a column split 1, 1, 1, 1 over the tiles: each pass writes 32 bits.
    Loads: tile 0 64 + 256 then 64, tiles 1-3 256 then 0. First load 40 B (3 cycles); each pass 4 rows x 2
    MACs = 8 + drain 2 = 10, every burst (at most 288 bits, 3 cycles) hidden; last write 4 B (1):
    3 + 8 x 10 + 1 = 84."""
    plan = FAMILY.plan(small(precision="fp32", pes=1, input_buffer=32), _pooled_conv(MaxPool(2, 2, 0)))
    assert (plan.row_tiles, plan.weights_resident) == (4, True)
    for count in (FAMILY.fast, FAMILY.reference):
        c = count(plan, None)
        assert (c.cycles, c.passes, c.dram_read_bits, c.dram_write_bits, c.pool_compares) == (84, 8, 1152, 256, 32)


def test_max_pool_field_is_parsed_and_checked():
    from accel_sim.foundations.workload.spec import LayerEntry
    conv = dict(name="c", type="conv", in_h=8, in_w=8, in_channels=2, out_channels=2, kernel=3, padding=1)
    assert LayerEntry(**conv, max_pool="3/2/1").to_layer().max_pool == MaxPool(3, 2, 1)
    assert LayerEntry(**conv, max_pool="2/2").to_layer().max_pool == MaxPool(2, 2, 0)
    for bad, message in (("3x3", "kernel/stride"), ("3/2/2", "more than half"), ("11/1/0", "larger than"),
                         ("0/1", "> 0")):
        with pytest.raises(ValueError, match=message):
            LayerEntry(**conv, max_pool=bad).to_layer()
    with pytest.raises(ValueError, match="does not take max_pool"):
        LayerEntry(name="f", type="fc", in_features=4, out_features=2, max_pool="2/2").to_layer()
