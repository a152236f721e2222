"""DLU: what both paths read from the plan, counted by hand (a plan bug moves the fast path and the
reference together, so only a hand count catches it): weight-only quantization, whose weights are
stored, fetched and counted towards residency at their own width; a layer precision that overrides
the configured type; the max_cycles guard of a grouped layer."""
import pytest

from accel_sim import load_arch
from accel_sim.models.dlu.accounting import account
from accel_sim.models.dlu.counters import DLUCounters
from accel_sim.models.dlu.family import FAMILY
from accel_sim.foundations.errors import SimulationError
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.workload import ConvLayer, GemmLayer

# test_refinement.py's worked example (int16; 2 units x 64 B: a tile may use 512 bits; m=1, k=16,
# n=8: one 1 x 8 block, chunks of 512 // (9 x 16) = 3, 6 tiles; DRAM 4 B/cycle, latency 3) with
# 4-bit weights. The chunk is set by the data width, so the tiles are the same; the weights, 16 x 8
# x 4 = 512 bits, now fit the resident half, leaving no room for the inputs (256 bits).
# A tile loads 3 input words (6 B) and 24 weights of 4 bits (12 B): 3 + ceil(12 / 4) = 6 cycles;
# the last 1 input word (2 B) and 8 weights (4 B): 3 + 1 = 4.
# Steps: 6 (load 0) | 6 x 4 (loads 1-4, computes of 3) | 4 (load 5, compute 3) | 1 (compute 5) |
# drain of the completed block: statistics 2 + ceil(4 results per unit / 16) = 3, write-back
# 16 B / 4 = 4. Readout: 2 units x 32 counters, 1 a cycle: 64.
QUANTIZED_ARCH = {"dlu.processing_units": 2, "dlu.elements_per_unit": 2, "dlu.simd_lanes": 2, "dram.latency": 3,
                  "dram.bandwidth": 4, "dlu.data_type": "int16", "dlu.local_memory": "64 B"}
QUANTIZED_LAYER = GemmLayer("g", m=1, k=16, n=8, quantized_weight_bits=4)
QUANTIZED_COUNTERS = DLUCounters(
    cycles=6 * 5 + 4 + 1 + 4 + 64, compute_cycles=3 * 5 + 1 + 3 + 64,
    load_stall_cycles=6 + 3 * 4 + (4 - 3), writeback_stall_cycles=4 - 3, readout_cycles=64,
    tiles=6, macs=128, operand_reads=9 * 16, input_fill_words=16, weight_fill_words=128, output_words=8,
    statistics_results=8, histogram_readouts=1)


def test_weight_only_quantization_by_hand():
    plan = FAMILY.plan(load_arch("dlu", QUANTIZED_ARCH), QUANTIZED_LAYER)
    t = plan.tiling
    assert (plan.weight_bits, plan.stored_weight_bits) == (4, 4)
    assert (t.block_rows, t.block_cols, t.chunk, t.inputs_resident, t.weights_resident) == (1, 8, 3, False, True)
    assert FAMILY.fast(plan, None) == QUANTIZED_COUNTERS == FAMILY.reference(plan, None)
    result = account(plan, QUANTIZED_COUNTERS)
    # DRAM reads and local-memory fills at the stored widths: 16 inputs x 16 bits + 128 weights x 4 bits
    assert result.dram_read_bytes == result.sram_write_bytes == (16 * 16 + 128 * 4) // 8
    stored = [(a.component, a.action, a.count, a.bits) for a in result.actions
              if (a.component, a.action) in (("local_memory", "write"), ("dram", "read"))]
    assert stored == [("local_memory", "write", 16, 16), ("local_memory", "write", 128, 4),
                      ("dram", "read", 16, 16), ("dram", "read", 128, 4)]
    assert ActionCount("datapath", "mult_int", "op", 128, 16) in result.actions   # the math stays at 16 bits


def test_layer_precision_overrides_the_configured_type_by_hand():
    """test_refinement.py's grouped example (a 1 x 1 convolution of 2 groups on 3 x 3 pixels, 1 -> 2
    channels a group, CALC DRAM) on an int16 array whose layer asks for fp32: it runs on the fp32
    datapath, 8 MAC units (2 x 2 x 2 lanes of 32 bits, one operation each) and no statistics block,
    so 4 x 2 blocks, 3 tiles of one cycle per group (4, 4, 1 rows): 5 steps of which 3 compute, 6
    cycles for the layer; at int16 it would have 16 MAC units and a statistics block."""
    arch = load_arch("dlu", {"dlu.processing_units": 2, "dlu.elements_per_unit": 2, "dlu.simd_lanes": 2,
                             "dlu.local_memory": "1 KiB", "dlu.data_type": "int16", "dram.bandwidth_mode": "calc"})
    layer = ConvLayer("c", in_h=3, in_w=3, in_channels=2, out_channels=4, kernel_h=1, kernel_w=1, groups=2,
                      precision="fp32")
    plan = FAMILY.plan(arch, layer)
    assert (plan.spec.data_type, plan.spec.lanes, plan.statistics) == ("fp32", 8, False)
    assert (plan.tiling.block_rows, plan.tiling.block_cols) == (4, 2)
    expected = DLUCounters(cycles=6, compute_cycles=6, load_stall_cycles=0, writeback_stall_cycles=0,
                           readout_cycles=0, tiles=6, macs=36, operand_reads=2 * (6 + 6 + 3), input_fill_words=18,
                           weight_fill_words=4, output_words=36, statistics_results=0, histogram_readouts=0)
    assert FAMILY.fast(plan, None) == expected == FAMILY.reference(plan, None)


def test_max_cycles_counts_every_group():
    """The grouped example takes 3 cycles a group, 6 for its 2 groups: a budget of 6 runs it on both
    paths, 5 stops it (although one group alone would fit)."""
    arch = load_arch("dlu", {"dlu.processing_units": 2, "dlu.elements_per_unit": 2, "dlu.simd_lanes": 2,
                             "dlu.local_memory": "1 KiB", "dlu.data_type": "fp32", "dram.bandwidth_mode": "calc"})
    layer = ConvLayer("c", in_h=3, in_w=3, in_channels=2, out_channels=4, kernel_h=1, kernel_w=1, groups=2)
    plan = FAMILY.plan(arch, layer)
    for count in (FAMILY.fast, FAMILY.reference):
        assert count(plan, 6).cycles == 6
        with pytest.raises(SimulationError, match="max_cycles"):
            count(plan, 5)
