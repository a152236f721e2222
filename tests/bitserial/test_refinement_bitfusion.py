"""Bit Fusion (Sharma et al., ISCA 2018) on the bitserial tiles: the fused-brick step cost by hand, fast ==
reference, and its energy priced as 2-bit brick multiplies."""
import dataclasses

import pytest

from accel_sim import load_arch
from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.models.bitserial.family import FAMILY
from accel_sim.models.bitserial.plan import fused_bricks
from accel_sim.pipeline.simulate import simulate_layer
from tests.bitserial._layers import arch, conv
from tests.bitserial.test_refinement_accounting import INPUTS, WEIGHTS


@pytest.mark.parametrize("bits, bricks", [(1, 1), (2, 1), (3, 2), (4, 2), (5, 4), (8, 4), (9, 8), (11, 8), (16, 8)])
def test_precisions_fuse_in_powers_of_two(bits, bricks):
    assert fused_bricks(bits, 2) == bricks


@pytest.mark.parametrize("act, wgt, cycles", [(2, 2, 1), (4, 4, 1), (4, 8, 2), (8, 8, 4), (5, 10, 8), (16, 16, 16)])
def test_step_cost_on_the_shipped_config(act, wgt, cycles):
    machine = load_arch("bitserial_bitfusion")          # 16 lanes, 64 bricks per PE position
    layer = conv("bf", WEIGHTS, INPUTS, activation_bits=act, weight_bits=wgt)
    plan = FAMILY.plan(machine, layer)
    assert plan.fusion_cycles == cycles
    fast = FAMILY.fast(plan)
    assert fast == FAMILY.reference(plan)
    assert fast.cycles == fast.steps * cycles


def test_small_grid_fast_equals_reference_and_energy_is_brick_multiplies():
    machine = arch(design="bitfusion", columns=2, lanes=2, rows=1, tiles=1, bricks=4)
    plan = FAMILY.plan(machine, conv("bf2", WEIGHTS, INPUTS))
    assert FAMILY.fast(plan) == FAMILY.reference(plan)
    run = simulate_layer(machine, plan.layer, load_energy_table(machine.energy_table))
    bricks = [a for a in run.result.actions if a.component == "pe_array" and a.component_class == "mult_int"]
    assert [(a.bits, a.count) for a in bricks] == [(2, FAMILY.fast(plan).serial_cycles * 4)]


def test_packed_storage_by_hand():
    """Bit Fusion's storage at the layer's bit width (hsharma35/bitfusion 04ec1c8, optimizer.py:55-73, 209-228),
    16-bit words, 8 lanes, 2 windows per tile, p_a = p_w = 4. The layer: 3 windows of 2 channels (1 line each:
    ceil(2 / 8) = 1), one 1x1 filter -> 2 window sets = 2 steps.

    - a line of 8 values at 4 bits is ceil(8 x 4 / 16) = 2 words (unpacked: 8 words);
    - neuron-memory reads: 3 present windows x 1 line x 2 words = 6 words (values: 3 x 8 = 24);
    - synapse-buffer reads: 2 steps x 1 filter x 2 words = 4 words (values: 2 x 8 = 16);
    - DRAM reads: 6 activations x 4 bits = 24 bits = 2 words, 2 weights x 4 bits = 8 bits = 1 word: 3 words
      = 6 bytes >= the packed footprint ceil(24 / 8) + ceil(8 / 8) = 4 bytes; outputs: 3 words written;
    - writes: neuron memory 2 + 3 = 5 words, synapse buffer 1 word.
    """
    machine = arch(design="bitfusion", columns=2, lanes=8, rows=1, tiles=1, bricks=4, packed_storage=True)
    layer = conv("bf_packed", WEIGHTS, INPUTS, activation_bits=4, weight_bits=4)
    plan = FAMILY.plan(machine, layer)
    fast = FAMILY.fast(plan)
    assert fast == FAMILY.reference(plan)
    assert (fast.activation_reads, fast.activation_words, fast.weight_reads, fast.weight_words) == (24, 6, 16, 4)
    result = FAMILY.account(plan, fast)
    assert (result.dram_read_bytes, result.dram_write_bytes) == (6, 6)
    assert (result.sram_read_bytes, result.sram_write_bytes) == (20, 12)
    memory = {(a.component, a.action): a.count for a in result.actions if a.component_class in ("dram", "sram")}
    assert memory == {("dram", "read"): 3, ("dram", "write"): 3, ("neuron_memory", "write"): 5,
                      ("neuron_memory", "read"): 6, ("synapse_buffer", "write"): 1, ("synapse_buffer", "read"): 4}
    unpacked = FAMILY.fast(FAMILY.plan(arch(design="bitfusion", columns=2, lanes=8, rows=1, tiles=1, bricks=4), layer))
    assert (unpacked.activation_words, unpacked.weight_words) == (24, 16)
    assert unpacked.cycles == fast.cycles      # storage moves bytes, not the step costs


@pytest.mark.parametrize("act, wgt", [(2, 2), (3, 5), (8, 4), (16, 16)])
def test_shipped_config_packs_at_the_layer_width(act, wgt):
    machine = load_arch("bitserial_bitfusion")
    assert machine.bitserial.packed_storage
    layer = conv("bf_pack", WEIGHTS, INPUTS, activation_bits=act, weight_bits=wgt)
    plan = FAMILY.plan(machine, layer)
    fast = FAMILY.fast(plan)
    assert fast == FAMILY.reference(plan)
    assert fast.activation_words * 16 == fast.activation_reads * act      # 16 lanes of 16-bit words: exact
    assert fast.weight_words * 16 == fast.weight_reads * wgt


def test_output_bits_by_hand():
    """Outputs written at 32 bits, as Bit Fusion's simulator sizes them (hsharma35/bitfusion 04ec1c8,
    optimizer.py:75-77 oprec = 32, :169 DRAM writes = the output traffic). The packed layer above: 3 windows x
    1 filter = 3 outputs, 16-bit words.

    - output words: 3 outputs x ceil(32 / 16) = 6 (16-bit outputs: 3), on both paths;
    - DRAM writes: 6 words = 12 bytes (the footprint 3 x 32 bits = 12 bytes); DRAM reads unchanged, 3 words;
    - neuron-memory writes: 2 activation words + 6 output words = 8; SRAM write bytes (8 + 1) x 2 = 18;
    - reads and cycles unchanged.
    """
    layer = conv("bf_out", WEIGHTS, INPUTS, activation_bits=4, weight_bits=4)
    common = dict(design="bitfusion", columns=2, lanes=8, rows=1, tiles=1, bricks=4, packed_storage=True)
    plan16, plan32 = FAMILY.plan(arch(**common), layer), FAMILY.plan(arch(output_bits=32, **common), layer)
    fast16, fast32 = FAMILY.fast(plan16), FAMILY.fast(plan32)
    assert fast32 == FAMILY.reference(plan32)
    assert (fast16.output_words, fast32.output_words) == (3, 6)
    assert dataclasses.replace(fast32, output_words=3) == fast16     # nothing else moves
    result = FAMILY.account(plan32, fast32)
    assert (result.dram_read_bytes, result.dram_write_bytes) == (6, 12)
    assert (result.sram_read_bytes, result.sram_write_bytes) == (20, 18)
    memory = {(a.component, a.action): a.count for a in result.actions if a.component_class in ("dram", "sram")}
    assert memory == {("dram", "read"): 3, ("dram", "write"): 6, ("neuron_memory", "write"): 8,
                      ("neuron_memory", "read"): 6, ("synapse_buffer", "write"): 1, ("synapse_buffer", "read"): 4}
    assert fast32.cycles == fast16.cycles and fast32.serial_cycles == fast16.serial_cycles


def test_shipped_config_writes_32_bit_outputs():
    machine = load_arch("bitserial_bitfusion")
    assert machine.bitserial.output_bits == 32 and load_arch("bitserial_dnnsim_stripes").bitserial.output_bits == 16
    plan = FAMILY.plan(machine, conv("bf_out32", WEIGHTS, INPUTS, activation_bits=4, weight_bits=4))
    fast = FAMILY.fast(plan)
    assert fast == FAMILY.reference(plan)
    assert fast.output_words == plan.layer.output_elements * 2


def test_output_words_round_up_to_whole_words():
    """An output takes ceil(output_bits / word_bits) words: 16-bit outputs in 32-bit words are one word each,
    32-bit outputs two 16-bit words; the counter is a whole number of words."""
    layer = conv("bf_outw", WEIGHTS, INPUTS, activation_bits=4, weight_bits=4)
    grid = {"bitserial.design": "bitfusion", "bitserial.columns": 2, "bitserial.lanes": 8, "bitserial.rows": 1,
            "bitserial.tiles": 1, "bitserial.bricks": 4}
    for word_bits, output_bits, per_output in ((32, 16, 1), (32, 32, 1), (32, 48, 2), (16, 48, 3)):
        machine = load_arch("bitserial_dnnsim_dadiannao", {**grid, "word_bits": word_bits,
                                                           "bitserial.output_bits": output_bits})
        plan = FAMILY.plan(machine, layer)
        assert plan.output_value_words == per_output and type(plan.output_value_words) is int
        fast = FAMILY.fast(plan)
        assert fast == FAMILY.reference(plan) and fast.output_words == 3 * per_output
        result = FAMILY.account(plan, fast)
        assert result.dram_write_bytes == 3 * per_output * word_bits // 8


def test_peak_is_whole_products_per_cycle():
    """Bit Fusion's peak at the layer's precisions: 5 columns x 8 lanes = 40 products per step, a step of 8-bit x
    4-bit products takes ceil(8 x (4 x 2) / 4 bricks) = 16 cycles: 40 // 16 = 2 whole products per cycle."""
    machine = arch(design="bitfusion", columns=5, lanes=8, rows=1, tiles=1, bricks=4)
    plan = FAMILY.plan(machine, conv("bfpeak", WEIGHTS, INPUTS, activation_bits=8, weight_bits=4))
    assert plan.fusion_cycles == 16
    assert FAMILY.account(plan, FAMILY.fast(plan)).peak_macs_per_cycle == 2
