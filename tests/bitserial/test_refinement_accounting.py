"""Accounting checked by hand on both paths' counters, and hand-worked cases of the rarer switches."""
import numpy as np

from accel_sim.foundations.results.counts import ActionCount
from accel_sim.models.bitserial.family import FAMILY
from tests.bitserial._layers import arch, conv

WEIGHTS = np.array([[[[3]], [[-2]]]])
INPUTS = np.array([[[[5, 2, 9]], [[1, 0, 0]]]]).transpose(0, 1, 3, 2)   # 3 windows of 2 channels


def _result(design: str):
    plan = FAMILY.plan(arch(design=design, columns=2, lanes=2, rows=1, tiles=1), conv(f"acc_{design}", WEIGHTS, INPUTS))
    counters = FAMILY.fast(plan)
    assert counters == FAMILY.reference(plan)
    return FAMILY.account(plan, counters)


def test_stripes_actions_by_hand():
    """2 steps of 16 cycles (p_a = 16); 3 windows x 1 filter -> 48 PE-cycles of a 2-lane serial unit."""
    result = _result("stripes")
    assert result.cycles == result.compute_cycles == 32 and result.stall_cycles == 0
    assert (result.macs_dense, result.macs_issued, result.peak_macs_per_cycle) == (6, 6, 1)
    assert (result.dram_read_bytes, result.dram_write_bytes) == (16, 6)
    assert (result.sram_read_bytes, result.sram_write_bytes) == (20, 22)
    assert set(result.actions) == {
        ActionCount("dram", "dram", "read", 8, 16), ActionCount("dram", "dram", "write", 3, 16),
        ActionCount("neuron_memory", "sram", "write", 9, 16, 4 * 2**20),
        ActionCount("neuron_memory", "sram", "read", 6, 16, 4 * 2**20),
        ActionCount("synapse_buffer", "sram", "write", 2, 16, 2 * 2**20),
        ActionCount("synapse_buffer", "sram", "read", 4, 16, 2 * 2**20),
        ActionCount("pe_array", "add_int", "op", 48, 2), ActionCount("pe_array", "add_int", "op", 48, 32)}
    assert dict(result.metrics) == {"macs_skipped": 0.0, "steps": 2.0, "pe_utilization": 0.75,
                                    "cycles_per_step": 16.0, "activation_bits": 16.0, "weight_bits": 16.0}


def test_dadiannao_actions_by_hand():
    """One cycle per step: 3 PE-cycles of 2 lanes = 6 16-bit products and 6 accumulations."""
    result = _result("dadiannao")
    assert result.cycles == 2 and result.peak_macs_per_cycle == 4
    pe = {a for a in result.actions if a.component == "pe_array"}
    assert pe == {ActionCount("pe_array", "mult_int", "op", 6, 16), ActionCount("pe_array", "add_int", "op", 6, 32)}


def test_peak_is_whole_products_per_cycle():
    """A serial grid's peak is its lanes' products per pe_width cycles, in whole products: 1 x 3 x 7 = 21 serial
    lanes at 16 bits give 21 // 16 = 1 product per cycle (not 1.3125)."""
    plan = FAMILY.plan(arch(design="stripes", columns=3, lanes=7, rows=1, tiles=1), conv("peak", WEIGHTS, INPUTS))
    peak = FAMILY.account(plan, FAMILY.fast(plan)).peak_macs_per_cycle
    assert peak == 1 and type(peak) is int


def test_dynamic_loom_one_weight_group_by_hand():
    """group_size >= rows: the tile's filters form one weight group. Weights 3 and -2 (signed): folded 3 and 1,
    widths msb + 1 (sign) + 1 = 3 and 2 -> W = 3; with minor_bit, lsb 0: 1 + 1 - 0 + 1 = 3. Activations as in
    the Stripes case: A = 3 then 4 -> 3 x 3 + 4 x 3 = 21."""
    layer = conv("dynloom", np.array([[[[3]], [[-2]]], [[[1]], [[0]]]]), INPUTS)
    for minor in (False, True):
        machine = arch(design="loom", dynamic_weights=True, group_size=2, minor_bit=minor, columns=2, lanes=2,
                       rows=2, tiles=1)
        plan = FAMILY.plan(machine, layer)
        assert FAMILY.fast(plan).cycles == 21 == FAMILY.reference(plan).cycles


def test_shapeshifter_column_registers_and_trailing_group_by_hand():
    """3 windows on 2 columns, 1 column register: set 0 columns cost 3 (5 = 0b101) and 2 (2 = 0b10), set 1
    column 0 costs 4 (9) and the trailing group after it 1 (DNNsim). Column 0 ends at 3, column 1 at 2; step 1
    may start on each column as soon as the column is free (one step of run-ahead): column 0 ends at 7,
    column 1 at 3: 7 cycles (without the register: 3 + 4 = 7 too; with 2 lines, see the next case)."""
    layer = conv("cr", WEIGHTS, INPUTS)
    plan = FAMILY.plan(arch(design="shapeshifter", column_registers=1, columns=2, lanes=2, rows=1, tiles=1), layer)
    assert FAMILY.fast(plan).cycles == 7 == FAMILY.reference(plan).cycles


def test_column_registers_let_a_column_run_ahead_by_hand():
    """2 windows, 2 lines (kernel 2 x 1). Column costs (Pragmatic, 0-bit stage): line 0: (2, 1), line 1: (1, 2).
    Without registers: 2 + 2 = 4. With one: column 0 runs 0-2 then 2-3, column 1 runs 0-1 then 1-3: 3."""
    weights = np.ones((1, 1, 2, 1))
    inputs = np.array([[[[0b101], [0b1], [0b11]]]])           # (1, 1, 3, 1): windows (0, 1), lines (0, 1)
    for registers, cycles in ((0, 4), (1, 3)):
        machine = arch(design="pragmatic", bits_first_stage=0, column_registers=registers, columns=2, lanes=1,
                       rows=1, tiles=1)
        plan = FAMILY.plan(machine, conv(f"run_ahead{registers}", weights, inputs))
        assert FAMILY.fast(plan).cycles == cycles == FAMILY.reference(plan).cycles


def test_dynamic_loom_zero_weight_line_by_hand():
    """Signed weights (-3 on line 0, 0 on line 1), one window of activations 1, 1. With minor_bit, line 0's
    weight folds to 2 (bits 1..1 plus the sign: 2 wide); the all-zero line is 1 + sign = 2 wide; each line's
    activation is 1 bit: 1 x 2 + 1 x 2 = 4 cycles."""
    layer = conv("zero_line", np.array([[[[-3], [0]]]]), np.array([[[[1], [1]]]]))
    machine = arch(design="loom", dynamic_weights=True, minor_bit=True, columns=1, lanes=1, rows=1, tiles=1)
    plan = FAMILY.plan(machine, layer)
    assert FAMILY.fast(plan).cycles == 4 == FAMILY.reference(plan).cycles


def test_shapeshifter_signed_zero_group_and_wide_groups_by_hand():
    """minor_bit with signed activations (one is -1): an all-zero group is 1 + sign = 2 wide. Windows (4, 2, 0, -1)
    on 2 columns of groups of 2, one lane: set 0 group (4, 2): bits 2..1 + sign: 3 - 1 + 1 = 3; set 1 group
    (0, -1 -> 0): 2. Total 5."""
    layer = conv("signed_mb", np.array([[[[1]]]]), np.array([[[[4], [2], [0], [-1]]]]))
    machine = arch(design="shapeshifter", minor_bit=True, group_size=2, columns=2, lanes=1, rows=1, tiles=1)
    plan = FAMILY.plan(machine, layer)
    assert FAMILY.fast(plan).cycles == 5 == FAMILY.reference(plan).cycles


def test_trailing_group_after_a_partial_window_set_by_hand():
    """DNNsim's trailing group (ShapeShifter.cpp:222-227). One register, 3 columns, 4 windows of one value
    (1, 16, 1, 1): set 0 columns cost (1, 5, 1); set 1: column 0 costs 1 and the group after it (column 1), the
    trailing group, 1. Column 1 ends set 0 at 5 and set 1 at 6: 6 cycles (5 without the trailing group)."""
    layer = conv("trailing", np.array([[[[1]]]]), np.array([[[[1], [16], [1], [1]]]]))
    machine = arch(design="shapeshifter", column_registers=1, columns=3, lanes=1, rows=1, tiles=1)
    plan = FAMILY.plan(machine, layer)
    assert FAMILY.fast(plan).cycles == 6 == FAMILY.reference(plan).cycles


def test_laconic_ignores_empty_filter_rows_by_hand():
    """One filter on 2 rows; its weight is 0 on lane 1 where the activation is 3 (2 terms): lane 0 is 1 x 1,
    lane 1 is 2 x 0: the step costs 1 (an empty row must not count as one term)."""
    layer = conv("laconic_rows", np.array([[[[1]], [[0]]]]), np.array([[[[1]], [[3]]]]))
    machine = arch(design="laconic", columns=1, lanes=2, rows=2, tiles=1)
    plan = FAMILY.plan(machine, layer)
    assert FAMILY.fast(plan).cycles == 1 == FAMILY.reference(plan).cycles


def test_real_valued_operands_are_quantised_to_the_layer_precision():
    from accel_sim.models.bitserial.plan import fixed_point
    assert list(fixed_point(np.array([0.5, -1.0, 0.0]), 4)) == [4, -7, 0]     # signed: top code 7
    assert list(fixed_point(np.array([0.25, 1.0]), 3)) == [2, 7]              # unsigned: top code 7
    assert list(fixed_point(np.array([3.0, -2.0]), 4)) == [3, -2]             # integers as they are
    assert list(fixed_point(np.array([40000.0, 1.0]), 8)) == [255, 0]         # beyond 16 bits: quantised


def test_padding_slots_hold_no_product_and_the_work_estimate():
    """5 channels on 4 lanes and 3 filters on 2 rows: padding lanes and rows are not products."""
    rng = np.random.default_rng(1)
    layer = conv("padding", rng.integers(-9, 9, (3, 5, 1, 1)), rng.integers(0, 9, (1, 5, 2, 2)))
    machine = arch(design="stripes", columns=2, lanes=4, rows=2, tiles=1)
    plan = FAMILY.plan(machine, layer)
    assert FAMILY.fast(plan).macs_issued == layer.macs == FAMILY.reference(plan).macs_issued
    # windows 4 (2 sets of 2) x 8 lane slots + 2 filter sets x 2 rows x 8 x 3 (weights, steps, lanes)
    assert FAMILY.work_elements(machine, layer) == 4 * 8 + 2 * 2 * 8 * 3


def test_dynamic_loom_weight_groups_are_separate_by_hand():
    """minor_bit, one filter per group: filters 16 (bit 4) and 1 (bit 0) are each 1 bit wide, so W = 1 (their
    union would be 5 wide); one activation of 1: 1 x 1 = 1 cycle."""
    layer = conv("loom_groups", np.array([[[[16]]], [[[1]]]]), np.array([[[[1]]]]))
    machine = arch(design="loom", dynamic_weights=True, minor_bit=True, group_size=1, columns=1, lanes=1, rows=2,
                   tiles=1)
    plan = FAMILY.plan(machine, layer)
    assert FAMILY.fast(plan).cycles == 1 == FAMILY.reference(plan).cycles
