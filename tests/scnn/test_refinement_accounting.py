"""Refinement (c): accounting checked against hand-computed actions and bytes, and brute-force
counts of the MACs and products (the conservation laws on generated layers are in
``test_refinement_paths``)."""
import math

import numpy as np

from accel_sim.foundations.results.components import Component
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.models.scnn.accounting import account, components
from accel_sim.models.scnn.family import FAMILY
from tests.scnn._layers import small_case
from tests.scnn.test_refinement_examples import ZERO, row_conv, tiny_arch

COUNTERS = dict(ZERO, compute_cycles=90, input_load_stall_cycles=7, dram_stream_stall_cycles=3,
                barrier_idle_cycles=40, group_cycles=80, pe_busy_cycles=150, steps=110, bank_conflict_cycles=40,
                products=500, macs_issued=5, multiplier_ops=450, crossbar_transfers=500, accumulator_adds=500,
                accumulator_reads=490, accumulator_writes=480, iaram_reads=33, iaram_write_bits=(30, 30),
                oaram_write_bits=(41, 59), weight_fifo_reads=21, weight_fifo_writes=13, weight_fifo_overflow_blocks=2,
                psum_oaram_words=5, halo_link_words=9, spilled_partial_sums=4, ppu_outputs=17, dram_read_bits=801,
                dram_write_bits=17)


def test_actions_bytes_and_metrics_by_hand(tmp_path):
    """scnn on 2 PEs of 2 x 2 multipliers: compressed activations are 16 + 4 = 20-bit entries, a FIFO
    entry is 2 x 20 bits, partial sums 24 bits. Bits to entries per (conv group, image): 30 // 20 = 1
    twice (not 60 // 20 = 3); 41 // 20 + 59 // 20 = 2 + 2."""
    plan = FAMILY.plan(tiny_arch(pe_cols=2), row_conv(tmp_path, "acc", [[1, 2]], [1, 2, 3, 4]))
    counters = type(FAMILY.fast(plan, None))(**COUNTERS)
    result = account(plan, counters)
    cap = 10 * 1024
    assert result.actions == (
        ActionCount("multipliers", "mult_int", "op", 450, 16),
        ActionCount("crossbar", "crossbar", "transfer", 500, 24),
        ActionCount("accumulator_banks", "add_int", "op", 500, 24),
        ActionCount("accumulator_banks", "register_file", "read", 490, 24),
        ActionCount("accumulator_banks", "register_file", "write", 480, 24),
        ActionCount("iaram", "sram", "read", 33, 20, cap),
        ActionCount("iaram", "sram", "write", 2, 20, cap),
        ActionCount("oaram", "sram", "write", 4, 20, cap),
        ActionCount("weight_fifo", "register_file", "read", 21, 40),
        ActionCount("weight_fifo", "register_file", "write", 13, 40),
        ActionCount("halo_links", "link", "transfer", 9, 24),
        ActionCount("ppu", "add_int", "op", 17, 24),
        ActionCount("dram", "dram", "read", 101, 8),            # ceil(801 / 8)
        ActionCount("dram", "dram", "write", 3, 8),             # ceil(17 / 8)
        ActionCount("oaram", "sram", "write", 5, 24, cap),      # partial sums between chunks
        ActionCount("oaram", "sram", "read", 5, 24, cap))
    assert (result.cycles, result.compute_cycles, result.stall_cycles) == (100, 90, 10)
    assert (result.macs_dense, result.macs_issued, result.peak_macs_per_cycle) == (6, 5, 8)
    assert (result.dram_read_bytes, result.dram_write_bytes) == (101, 3)
    assert result.sram_read_bytes == math.ceil((33 * 20 + 5 * 24) / 8)            # 98
    assert result.sram_write_bytes == math.ceil(((2 + 4) * 20 + 5 * 24) / 8)      # 30
    assert dict(result.metrics) == {
        "products_issued": 500.0, "steps": 110.0, "multiplier_utilization": 500 / (100 * 8),
        "useful_utilization": 5 / (100 * 8), "intra_pe_utilization": 500 / (150 * 4),
        "barrier_idle_fraction": 40 / (80 * 2), "bank_conflict_cycles": 40.0, "kc": 1.0, "output_groups": 1.0,
        "temporal_tiles": 1.0, "channel_chunks": 1.0, "weight_fifo_overflow_blocks": 2.0, "halo_link_words": 9.0,
        "spilled_partial_sums": 4.0, "dram_bits": 801.0 + 17,
        # each operand once in its DRAM format: the plan's encodings of weights, inputs and outputs
        "operand_dram_bits": float(plan.weight_dram_bits.sum() + plan.input_dram_bits(0, 0).sum()
                                   + plan.output_dram_bits.sum())}
    assert result.metrics["operand_dram_bits"] == 42 + 84 + 63   # 2, 4 and 3 non-zeros in zero-run blocks
    assert result.operand_hashes == plan.operand_hashes


def test_dense_widths_and_no_partial_sums_in_the_oaram(tmp_path):
    """dcnn: dense 16-bit activations and 2 x 16-bit FIFO entries; no OARAM partial-sum actions
    when none were kept; zero cycles give zero utilisations."""
    plan = FAMILY.plan(tiny_arch(design="dcnn"), row_conv(tmp_path, "dense", [[1, 2]], [1, 2, 3]))
    counters = type(FAMILY.fast(plan, None))(**dict(COUNTERS, macs_issued=4, psum_oaram_words=0, iaram_write_bits=(33,),
                                                    oaram_write_bits=(47,)))
    actions = {(a.component, a.action, a.bits): a.count for a in account(plan, counters).actions}
    assert actions[("iaram", "write", 16)] == 2 and actions[("oaram", "write", 16)] == 2
    assert actions[("weight_fifo", "read", 32)] == 21
    assert len(actions) == 14
    empty = account(plan, type(counters)(**ZERO))
    counted = {k: v for k, v in empty.metrics.items() if k != "operand_dram_bits"}   # the plan's, not counted
    assert empty.cycles == 0 and set(counted.values()) <= {0.0, 1.0}


def test_components_for_area_and_leakage_by_hand():
    """3 PEs of F x I = 2 x 4 multipliers, A = 4 banks of 32 entries of 24 bits, 16-bit words with 4-bit
    indices, 10 KB IARAM and OARAM, a 50-entry weight FIFO (scnn.yaml): per PE a FIFO of 50 x 2 x (16 + 4)
    = 2000 bits, 2 x 4 x 32 x 24 = 6144 bits of double-buffered accumulators; 3 x 8 = 24 multipliers,
    3 x 4 = 12 adders, and (Cartesian designs only) a crossbar of 8 x 4 = 32 ports per PE."""
    expected = (Component("iaram", "sram", 3, 16, 10240), Component("oaram", "sram", 3, 16, 10240),
                Component("weight_fifo", "register", 3, 2000), Component("multipliers", "mult_int", 24, 16),
                Component("accumulator_banks", "register", 3, 6144), Component("accumulator_banks", "add_int", 12, 24))
    assert components(tiny_arch(pe_cols=3, mult_i=4)) == expected + (Component("crossbar", "crossbar", 3, 24, ports=32),)
    assert components(tiny_arch(pe_cols=3, mult_i=4, design="dcnn")) == expected


def test_macs_issued_are_the_pairs_of_nonzeros_in_the_plane():
    """Brute force over every output and window tap (stride 1 and 2): SCNN issues exactly the MACs
    of two non-zeros, and every product it issues is a non-zero weight x non-zero activation of a
    tile (summed per tile, channel and group: the Cartesian products)."""
    for seed in (0, 2, 5, 8, 13):
        arch, layer = small_case(seed, design="scnn")
        plan, counters = FAMILY.counters(arch, layer)
        view, tiling = plan.view, plan.tiling
        weights, inputs = plan.weights, plan.inputs[0]
        padded = np.pad(inputs != 0, ((0, 0), (0, 0), (view.pad_top, view.r), (view.pad_left, view.s)))
        expected = 0
        for oy in range(view.out_h):
            for ox in range(view.out_w):
                window = padded[:, :, oy * view.stride_h:oy * view.stride_h + view.r,
                                ox * view.stride_w:ox * view.stride_w + view.s]
                expected += int(((weights != 0) & window[:, None]).sum())
        assert counters.macs_issued == expected, seed
        if view.stride_h == 1:
            products = 0
            for g in range(view.groups):
                for iy in range(tiling.rows.lo.size):
                    for ix in range(tiling.cols.lo.size):
                        tile = inputs[g, :, tiling.rows.lo[iy]:tiling.rows.hi[iy], tiling.cols.lo[ix]:tiling.cols.hi[ix]]
                        products += int(((tile != 0).sum(axis=(1, 2)) * (weights[g] != 0).sum(axis=(0, 2, 3))).sum())
            assert counters.products == products, seed
