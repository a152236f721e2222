"""PE-array refinement: the fast path and the discrete-event reference agree on every counter,
and both agree with hand-derived counts of small layers (so a bug in the shared plan, or in the
accounting, fails here too)."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

from accel_sim import load_arch
from accel_sim.foundations.energy import load_energy_table
from accel_sim.foundations.errors import InputError, SimulationError
from accel_sim.foundations.contract import counter_differences
from accel_sim.models.pe_array.family import FAMILY
from accel_sim.models.pe_array.plan.decoder import chunk_index_bits
from accel_sim.pipeline.simulate import simulate_layer
from accel_sim.foundations.workload import ConvLayer, GemmLayer, NMSparsity
from accel_sim.foundations.workload.layer import OperandSource

# The worked example: a GEMM of m = 3 pixels, k = 8 positions, n = 3 filters.
# Non-zero weights: filter 0 at positions 0 1 2 5 6, filter 1 at 3, filter 2 at 4 and 7.
# Non-zero inputs: pixel 0 everywhere, pixel 1 at even positions, pixel 2 at 0 to 3, so the
# pixels with a non-zero activation per position are 3 2 3 2 2 1 2 1.
WEIGHTS = np.zeros((8, 3))
WEIGHTS[[0, 1, 2, 5, 6], 0] = [1, 2, 3, 4, 5]
WEIGHTS[3, 1] = 6
WEIGHTS[[4, 7], 2] = [7, 8]
INPUTS = np.zeros((3, 8))
INPUTS[0] = 1
INPUTS[1, ::2] = 2
INPUTS[2, :4] = 3
# effectual MACs: filter 0: 3 + 2 + 3 + 1 + 2 = 11, filter 1: 2, filter 2: 2 + 1 = 3
ISSUED = 16
DENSE = 3 * 8 * 3
# a 2 x 2 array, 2 multipliers per PE, 8-bit words: filter tiles {0, 1} {2}, pixel tiles {0, 1} {2}
ARCH_OF_EXAMPLE = {"rows": 2, "cols": 2, "vector_width": 2, "csr_entries_per_cycle": 2, "bitmap_bits_per_cycle": 4,
                   "nm_groups_per_cycle": 1, "decoder_latency": 1, "reassign_window": 2, "word_bits": 8}


def pe_array(**options):
    top_level = ("word_bits",)
    return load_arch("pe_array", {f"pe_array.{k}" if "." not in k and k not in top_level else k: v
                                  for k, v in options.items()})


def gemm_with_operands(directory, name, weights, inputs, **layer) -> GemmLayer:
    path = directory / f"{name}.npz"
    np.savez(path, weights=weights.astype(np.float32), inputs=inputs.astype(np.float32))
    (m, k), n = inputs.shape, weights.shape[1]
    return GemmLayer(name, m=m, k=k, n=n, operands=OperandSource(payload=str(path)), **layer)


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    return gemm_with_operands(tmp_path_factory.mktemp("pe"), "example", WEIGHTS, INPUTS)


# Weight footprints: dense 24 x 8 bits; CSR 8 entries x (8 + 3 index bits) + 4 pointers x 4 bits
# (offsets up to 8); bitmap 8 values x 8 bits + 24 presence bits.
DENSE_BITS, CSR_BITS, CSR_INDEX_BITS, BITMAP_BITS = 192, 8 * 11 + 4 * 4, 8 * 3 + 4 * 4, 8 * 8 + 24
COMMON = dict(dram_cycles=0, filter_tiles=2, pixel_tiles=2, output_words=9, input_dram_bits=24 * 8,
              input_sram_read_words=8 * 3 * 2, nm_padding_slots=0, macs_reassigned=0, crossbar_weights=0,
              crossbar_psums=0)
# CSR chunks of 2 entries: filter 0 [2 2 1], filter 1 [1], filter 2 [2]; one cycle each (2 multipliers)
EXPECTED = {
    # lockstep rows, ceil(8 / 2) = 4 cycles a tile, 4 tiles; every row reads its 4 vectors
    "none": dict(cycles=16, compute_cycles=16, row_busy_cycles=3 * 4 * 2, macs_issued=DENSE, macs_gated=0,
                 macs_skipped=0, decoder_chunks=0, weight_dram_bits=DENSE_BITS, weight_sram_read_bits=2 * DENSE_BITS,
                 activation_rf_reads=48),
    "memory": dict(cycles=16, compute_cycles=16, row_busy_cycles=24, macs_issued=DENSE, macs_gated=0, macs_skipped=0,
                   decoder_chunks=5 * 2, weight_dram_bits=CSR_BITS, weight_sram_read_bits=2 * CSR_BITS,
                   activation_rf_reads=48),
    "gating": dict(cycles=16, compute_cycles=16, row_busy_cycles=24, macs_issued=ISSUED, macs_gated=DENSE - ISSUED,
                   macs_skipped=0, decoder_chunks=10, weight_dram_bits=CSR_BITS, weight_sram_read_bits=2 * CSR_BITS,
                   activation_rf_reads=48),
    # filter tile 0: rows take 3 and 1 cycles, + 1 latency = 4; filter tile 1: 1 + 1 = 2; two pixel tiles
    "skipping": dict(cycles=12, compute_cycles=12, row_busy_cycles=10, macs_issued=ISSUED, macs_gated=8 * 3 - ISSUED,
                     macs_skipped=DENSE - 8 * 3, decoder_chunks=10, weight_dram_bits=CSR_BITS,
                     weight_sram_read_bits=2 * CSR_BITS, activation_rf_reads=8 * 3),
    # filter tile 0: in cycle 1 row 1 (own stream done) takes filter 0's last chunk (1 weight): 2 + 1 cycles
    "reassignment": dict(cycles=10, compute_cycles=10, row_busy_cycles=10, macs_issued=ISSUED,
                         macs_gated=8 * 3 - ISSUED, macs_skipped=DENSE - 8 * 3, decoder_chunks=10,
                         weight_dram_bits=CSR_BITS, weight_sram_read_bits=2 * CSR_BITS, activation_rf_reads=24,
                         macs_reassigned=1 * 3, crossbar_weights=1 * 2, crossbar_psums=1 * 3),
}


@pytest.mark.parametrize("level", EXPECTED)
@pytest.mark.parametrize("policy", ["in_order", "longest_first"])
def test_worked_example_counters(example, level, policy):
    plan = FAMILY.plan(pe_array(sparsity_support=level, reassign_policy=policy, **ARCH_OF_EXAMPLE), example)
    expected = {**COMMON, **EXPECTED[level]}
    for path in (FAMILY.fast, FAMILY.reference):
        assert path(plan, None).as_dict() == expected


def test_worked_example_plan(example):
    plan = FAMILY.plan(pe_array(sparsity_support="skipping", **ARCH_OF_EXAMPLE), example)
    (work,) = plan.groups
    assert (work.m, work.k, work.n, work.filter_tiles, work.pixel_tiles) == (3, 8, 3, 2, 2)
    assert (work.weight_bits, work.index_bits, work.input_words) == (CSR_BITS, CSR_INDEX_BITS, 24)
    assert (work.kernel, work.stride, work.out, work.input_nonzero.shape) == ((1, 1), (1, 1), (1, 1), (3, 8, 1, 1))
    assert work.weights_resident and work.inputs_resident
    bitmap = FAMILY.plan(pe_array(sparsity_support="memory", weight_format="bitmap", **ARCH_OF_EXAMPLE), example)
    assert (bitmap.groups[0].weight_bits, bitmap.groups[0].index_bits) == (BITMAP_BITS, 24)
    dense = FAMILY.plan(pe_array(**ARCH_OF_EXAMPLE), example)
    assert (dense.groups[0].weight_bits, dense.groups[0].index_bits) == (DENSE_BITS, 0)


@pytest.mark.parametrize("level, compute, busy", [
    # bitmap chunks of 4 bits: filter 0 [3 2] -> 2 + 1 cycles, filter 1 [1 0] -> 1 + 1, filter 2 [0 2] -> 1 + 1
    ("skipping", 2 * ((3 + 1) + (2 + 1)), 2 * (3 + 2 + 2)),
    # filter tile 1: the row without a filter takes filter 2's second chunk in cycle 0
    ("reassignment", 2 * ((3 + 1) + (1 + 1)), 2 * (3 + 2 + 2)),
    ("memory", 16, 24),
])
def test_worked_example_bitmap(example, level, compute, busy):
    plan = FAMILY.plan(pe_array(sparsity_support=level, weight_format="bitmap", **ARCH_OF_EXAMPLE), example)
    for path in (FAMILY.fast, FAMILY.reference):
        counters = path(plan, None)
        assert (counters.compute_cycles, counters.row_busy_cycles, counters.decoder_chunks) == (compute, busy, 6 * 2)
        assert counters.weight_dram_bits == BITMAP_BITS


def test_reassignment_policies_worked_example(tmp_path):
    """One window of 3 rows, one pixel, chunks of 1 entry, 1 multiplier, no latency; the filters hold
    1, 3 and 5 non-zeros. Cycle 0: every row takes its own chunk. longest_first: in cycles 1 and 2
    row 0 takes row 2's chunks (3 then 1 left against row 1's 1 and 0): 2 weights, one run.
    in_order: in cycle 1 row 0 takes row 1's; in cycle 2 rows 0 and 1 take row 2's: 3 weights, 3 runs.
    9 chunks on 3 rows take 3 cycles either way."""
    weights = np.zeros((6, 3))
    weights[:1, 0], weights[:3, 1], weights[:5, 2] = 1, 1, 1
    layer = gemm_with_operands(tmp_path, "steal", weights, np.ones((1, 6)))
    options = dict(sparsity_support="reassignment", rows=3, cols=1, vector_width=1, csr_entries_per_cycle=1,
                   decoder_latency=0, reassign_window=3)
    for policy, expected in {"longest_first": (3, 2, 1), "in_order": (3, 3, 3)}.items():
        plan = FAMILY.plan(pe_array(reassign_policy=policy, **options), layer)
        for path in (FAMILY.fast, FAMILY.reference):
            counters = path(plan, None)
            assert (counters.compute_cycles, counters.crossbar_weights, counters.crossbar_psums) == expected


def test_reassignment_window_ends_with_a_busy_row(tmp_path):
    """One window of 2 rows, 1 multiplier, CSR chunks of 2 entries: filter 0 (4 non-zeros) takes 2 + 2
    cycles, filter 1 (3 non-zeros) 2 + 1. When row 1 runs dry in cycle 3, row 0 is one cycle into its
    last chunk and nothing is left to take: the window ends in cycle 4, as under skipping."""
    weights = np.zeros((4, 2))
    weights[:, 0], weights[:3, 1] = 1, 1
    layer = gemm_with_operands(tmp_path, "tail", weights, np.ones((1, 4)))
    for level in ("skipping", "reassignment"):
        plan = FAMILY.plan(pe_array(sparsity_support=level, rows=2, cols=1, vector_width=1, csr_entries_per_cycle=2,
                                    decoder_latency=1, reassign_window=2), layer)
        for path in (FAMILY.fast, FAMILY.reference):
            counters = path(plan, None)
            assert (counters.compute_cycles, counters.crossbar_weights, counters.row_busy_cycles) == (4 + 1, 0, 7)


def test_nm_worked_example(tmp_path):
    """3:4 weights on k = 5 (a full group and a group of one real position), 2 filters, 2 pixels.
    Filter 0 holds non-zeros at 0 1 3 | 4, filter 1 at 2. Pixel 0 is non-zero everywhere, pixel 1 at 0
    and 4: pixels with a non-zero activation per position 2 1 1 1 2. Chunks of one group: 3 slots,
    ceil(3 / 2) = 2 cycles each; the second group has 1 real slot and 2 on the padding."""
    weights = np.zeros((5, 2))
    weights[[0, 1, 3, 4], 0] = 1
    weights[2, 1] = 1
    inputs = np.array([[1, 1, 1, 1, 1], [1, 0, 0, 0, 1]])
    layer = gemm_with_operands(tmp_path, "nm", weights, inputs)
    arch = pe_array(sparsity_support="skipping", weight_format="nm", nm_n=3, nm_m=4, nm_groups_per_cycle=1,
                    rows=2, cols=2, vector_width=2, decoder_latency=0, reassign_window=2, word_bits=8)
    plan = FAMILY.plan(arch, layer)
    # footprint: 2 filters x 2 groups x 3 slots = 12 slots, 2 bits of position each; 5 values, 7 zero slots
    assert (plan.groups[0].weight_bits, plan.groups[0].index_bits) == (5 * 8 + 12 * 2 + 7 * 8, 12 * 2)
    issued = (2 + 1 + 1 + 2) + 1
    expected = dict(cycles=4, compute_cycles=4, dram_cycles=0, row_busy_cycles=8, filter_tiles=1, pixel_tiles=1,
                    macs_issued=issued, macs_gated=2 * 4 * 2 - issued, macs_skipped=2 * 1 * 2,
                    nm_padding_slots=2 * 2 * 2, decoder_chunks=4, macs_reassigned=0, crossbar_weights=0,
                    crossbar_psums=0, weight_dram_bits=120, input_dram_bits=10 * 8, output_words=4,
                    weight_sram_read_bits=120, input_sram_read_words=10, activation_rf_reads=2 * 4 * 2)
    for path in (FAMILY.fast, FAMILY.reference):
        assert path(plan, None).as_dict() == expected
    result = FAMILY.account(plan, FAMILY.fast(plan, None))
    gated = [a.count for a in result.actions if (a.component_class, a.action) == ("mult_int", "gated")]
    assert gated == [expected["macs_gated"] + expected["nm_padding_slots"]]   # padding slots are gated actions
    assert (result.metrics["macs_gated"], result.metrics["nm_padding_slots"]) == (9.0, 8.0)
    (decode,) = [a for a in result.actions if a.component == "index_decoder"]
    assert (decode.count, decode.bits) == (4, 3 * 2)   # one group of 3 slots of 2 position bits a chunk


def test_conv_worked_example(tmp_path):
    """2 groups of 1 channel on a 3 x 3 input, 2 x 2 kernel, stride 2, padding 1: 2 x 2 output pixels.
    Channel 0 holds 1 . 2 / . 3 . / 4 . . : each window sees one non-zero. Channel 1 is all ones: the
    windows see 1, 2, 2 and 4 of them. Every weight is non-zero."""
    inputs = np.zeros((1, 2, 3, 3))
    inputs[0, 0] = [[1, 0, 2], [0, 3, 0], [4, 0, 0]]
    inputs[0, 1] = 1
    path = tmp_path / "conv.npz"
    np.savez(path, weights=np.ones((2, 1, 2, 2), dtype=np.float32), inputs=inputs.astype(np.float32))
    layer = ConvLayer("c", in_h=3, in_w=3, in_channels=2, out_channels=2, kernel_h=2, kernel_w=2, stride_h=2,
                      stride_w=2, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1, groups=2,
                      operands=OperandSource(payload=str(path)))
    issued, dense = (1 + 1 + 1 + 1) + (1 + 2 + 2 + 4), 2 * 4 * 4
    for level, cycles in (("gating", 2 * 2 * 2), ("skipping", 2 * 2 * (2 + 1))):
        plan = FAMILY.plan(pe_array(sparsity_support=level, rows=1, cols=2, vector_width=2, reassign_window=1,
                                    csr_entries_per_cycle=2, decoder_latency=1), layer)
        assert [(g.m, g.k, g.n, g.input_words, g.input_nonzero.shape) for g in plan.groups] == [(4, 4, 1, 9, (1, 1, 5, 5))] * 2
        for count in (FAMILY.fast, FAMILY.reference):
            counters = count(plan, None)
            assert (counters.compute_cycles, counters.filter_tiles, counters.pixel_tiles) == (cycles, 2, 4)
            assert (counters.macs_issued, counters.macs_gated, counters.macs_skipped) == (issued, dense - issued, 0)
            assert (counters.input_sram_read_words, counters.output_words) == (2 * 4 * 4, 2 * 4)


@pytest.mark.parametrize("weight_sram, input_sram, weight_dram, input_dram", [
    ("12 B", "24 B", 192, 192),            # an average filter tile (96 bits) and the inputs just fit
    ("11 B", "23 B", 2 * 192, 2 * 192),    # they do not: once per pixel tile / filter tile
])
def test_worked_example_dram_bound(example, weight_sram, input_sram, weight_dram, input_dram):
    arch = pe_array(weight_sram_size=weight_sram, input_sram_size=input_sram, **ARCH_OF_EXAMPLE,
                    **{"dram.bandwidth_mode": "user", "dram.bandwidth": "1 B/cycle", "dram.latency": 2})
    plan = FAMILY.plan(arch, example)
    for path in (FAMILY.fast, FAMILY.reference):
        counters = path(plan, None)
        assert (counters.weight_dram_bits, counters.input_dram_bits) == (weight_dram, input_dram)
        assert counters.dram_cycles == max(weight_dram, input_dram) // 8 + 2   # 1 byte per cycle, + latency
        assert (counters.cycles, counters.compute_cycles) == (counters.dram_cycles, 16)


def test_dram_faster_than_compute(example):
    arch = pe_array(**ARCH_OF_EXAMPLE, **{"dram.bandwidth_mode": "user", "dram.bandwidth": "16 B/cycle",
                                          "dram.latency": 3})
    plan = FAMILY.plan(arch, example)
    for path in (FAMILY.fast, FAMILY.reference):
        counters = path(plan, None)
        assert (counters.cycles, counters.compute_cycles, counters.dram_cycles) == (16, 16, 2 + 3)  # 24 B at 16 B/cycle


def test_worked_example_actions_and_bytes(example):
    arch = pe_array(sparsity_support="reassignment", **ARCH_OF_EXAMPLE)
    result = simulate_layer(arch, example).result
    acc = arch.pe_array.accumulator_bits
    weight_words = math.ceil(CSR_BITS / 8)
    assert [(a.component, a.component_class, a.action, a.count, a.bits) for a in result.actions] == [
        ("dram", "dram", "read", weight_words + 24, 8), ("dram", "dram", "write", 9, 8),
        ("weight_sram", "sram", "write", weight_words, 8), ("weight_sram", "sram", "read", 2 * weight_words, 8),
        ("input_sram", "sram", "write", 24, 8), ("input_sram", "sram", "read", 48, 8),
        ("activation_rf", "register_file", "write", 48, 8), ("activation_rf", "register_file", "read", 24, 8),
        ("output_sram", "sram", "write", 9, 8), ("output_sram", "sram", "read", 9, 8),
        ("pe_array", "mult_int", "op", ISSUED, 8), ("pe_array", "add_int", "op", ISSUED, acc),
        ("pe_array", "mult_int", "gated", 8, 8), ("pe_array", "mult_int", "skip", 48, 8),
        ("index_decoder", "index_decoder", "decode", 10, 2 * 3),   # 2 CSR entries of 3-bit indices a chunk
        ("crossbar", "crossbar", "transfer", 2, 8), ("crossbar", "crossbar", "transfer", 3, acc),
    ]
    assert [a.capacity_bytes for a in result.actions if a.component_class == "sram"] == [512 * 1024] * 2 + \
        [1024 * 1024] * 2 + [256 * 1024] * 2
    assert (result.cycles, result.compute_cycles, result.stall_cycles) == (10, 10, 0)
    assert (result.macs_dense, result.macs_issued, result.macs_skipped) == (DENSE, ISSUED, DENSE - ISSUED)
    assert result.peak_macs_per_cycle == 2 * 2 * 2
    assert (result.dram_read_bytes, result.dram_write_bytes) == (weight_words + 24, 9)
    assert result.sram_read_bytes == 2 * weight_words + 48 + 9
    assert result.sram_write_bytes == weight_words + 24 + 9
    assert dict(result.metrics) == {
        "macs_gated": 8.0, "macs_skipped": 48.0, "macs_reassigned": 3.0, "nm_padding_slots": 0.0,
        "filter_tiles": 2.0, "pixel_tiles": 2.0, "decoder_chunks": 10.0, "weight_storage_bits": float(CSR_BITS),
        "weight_index_bits": float(CSR_INDEX_BITS), "dram_cycles": 0.0, "crossbar_transfers": 5.0}
    assert set(result.operand_hashes) == {"weight_hash", "input_hash"}


def test_dense_level_actions(example):
    """``none``: no decoder, no crossbar; every MAC issued; the dense weights in bytes."""
    result = simulate_layer(pe_array(**ARCH_OF_EXAMPLE), example).result
    kinds = [(a.component, a.action, a.count) for a in result.actions]
    assert ("index_decoder", "decode", 0) not in kinds and not any(c == "crossbar" for c, _, _ in kinds)
    assert ("pe_array", "op", DENSE) in kinds and ("pe_array", "gated", 0) in kinds
    assert (result.dram_read_bytes, result.macs_issued) == (24 + 24, DENSE)
    assert result.metrics["weight_storage_bits"] == DENSE_BITS and result.metrics["weight_index_bits"] == 0


@pytest.mark.parametrize("fmt, k, bits", [
    ("csr", 1, 3 * 1), ("csr", 2, 3 * 1), ("csr", 3, 3 * 2), ("csr", 9, 3 * 4),   # 3 entries of ceil(log2 k) bits
    ("bitmap", 9, 5),                                                           # one presence bit per position
    ("nm", 9, 2 * 3 * 2),                                                       # 2 groups of 3 slots, 2 bits each
])
def test_decode_widths(fmt, k, bits):
    spec = pe_array(weight_format=fmt, csr_entries_per_cycle=3, bitmap_bits_per_cycle=5, nm_groups_per_cycle=2,
                    nm_n=3, nm_m=4).pe_array
    assert chunk_index_bits(spec, k) == bits
    assert chunk_index_bits(pe_array(weight_format="nm", nm_n=1, nm_m=2, nm_groups_per_cycle=1).pe_array, k) == 1
    assert chunk_index_bits(pe_array(weight_format="nm", nm_n=1, nm_m=1, nm_groups_per_cycle=1).pe_array, k) == 1


def test_nm_decoder_refuses_other_weights(tmp_path):
    """Two groups of 4 hold 3 non-zeros in filter 0 (2:4 allows 2; filter 1's group of 2 is fine): an
    error naming the count."""
    weights = np.zeros((8, 2))
    weights[[0, 1, 2, 4, 5, 6], 0] = 1
    weights[[0, 1], 1] = 1
    layer = gemm_with_operands(tmp_path, "dense_nm", weights, np.ones((1, 8)))
    with pytest.raises(InputError, match="but 2 groups of 4 hold up to 3 non-zeros"):
        FAMILY.plan(pe_array(sparsity_support="skipping", weight_format="nm"), layer)
    FAMILY.plan(pe_array(sparsity_support="skipping", weight_format="csr"), layer)
    FAMILY.plan(pe_array(sparsity_support="none", weight_format="nm"), layer)   # dense weights: no N:M decoder


def test_bitmap_decode_width(example):
    result = simulate_layer(pe_array(sparsity_support="memory", weight_format="bitmap", **ARCH_OF_EXAMPLE),
                            example).result
    (decode,) = [a for a in result.actions if a.component == "index_decoder"]
    assert (decode.count, decode.bits) == (6 * 2, 4)


LEVELS, FORMATS = ("none", "memory", "gating", "skipping", "reassignment"), ("csr", "bitmap", "nm")


def generated_case(seed: int):
    """A small layer and an array for it, drawn uniformly (seeded): every level x format in turn,
    every other switch at random. N:M weights go through the N:M decoder (N:M decoding of other
    weights is an error: test_nm_decoder_refuses_other_weights). Reduction and filter counts are
    multiples of 4 so blocks tile."""
    draw = random.Random(seed)
    support, fmt = LEVELS[seed % 5], FORMATS[seed // 5 % 3]
    nm = draw.choice([NMSparsity(2, 4), NMSparsity(1, 4)] if fmt == "nm" else [None, NMSparsity(2, 4)])
    source = OperandSource(weight_pattern="nm" if fmt == "nm" else draw.choice(["unstructured", "block", "filter"]),
                           block=draw.choice([2, 4]), seed=draw.randint(0, 3))
    density = draw.choice([1.0, 0.6, 0.3, 0.05])
    if nm is not None:   # a density above N/M contradicts the pattern (an input error)
        density = min(density, nm.n / nm.m)
    if draw.random() < 0.4:
        layer = GemmLayer("g", m=draw.randint(1, 9), k=4 * draw.randint(1, 9), n=4 * draw.randint(1, 6),
                          weight_sparsity=nm, weight_density=density, input_density=draw.choice([1.0, 0.5]),
                          operands=source)
    else:
        groups = draw.choice([1, 2])
        top, bottom, left, right = (draw.randint(0, 1) for _ in range(4))
        layer = ConvLayer("c", in_h=draw.randint(3, 5), in_w=draw.randint(3, 5), in_channels=4 * groups,
                          out_channels=4 * draw.randint(1, 2) * groups, kernel_h=draw.choice([1, 2, 3]),
                          kernel_w=draw.choice([1, 3]), pad_top=top, pad_bottom=bottom, pad_left=left,
                          pad_right=right, groups=groups, stride_h=draw.choice([1, 2]), stride_w=draw.choice([1, 2]),
                          batch=draw.choice([1, 2]), weight_sparsity=nm, weight_density=density, input_density=0.6,
                          operands=source)
    vector, chunk = draw.randint(1, 5), draw.randint(1, 9)
    if support in ("memory", "gating"):
        chunk = max(chunk, vector)  # the decompressor must keep up with the array (checked in test_bad_input)
    rows = draw.choice([4, 8])
    arch = pe_array(sparsity_support=support, weight_format=fmt, rows=rows, cols=draw.choice([1, 3, 4]),
                    reassign_window=draw.choice([1, 2, 4]), reassign_policy=draw.choice(["in_order", "longest_first"]),
                    vector_width=vector, csr_entries_per_cycle=chunk, bitmap_bits_per_cycle=chunk,
                    nm_groups_per_cycle=chunk, decoder_latency=draw.randint(0, 3),
                    nm_n=nm.n if nm else 2, weight_sram_size=draw.choice(["16 B", "64 B", "512 KiB"]),
                    input_sram_size=draw.choice(["64 B", "1 MiB"]),
                    **{"dram.bandwidth_mode": draw.choice(["calc", "user"]),
                       "dram.bandwidth": draw.choice(["1 B/cycle", "16 B/cycle"]), "dram.latency": draw.randint(0, 3)})
    return arch, layer


@pytest.mark.parametrize("seed", range(120))
def test_fast_and_reference_agree_on_every_counter(seed):
    arch, layer = generated_case(seed)
    spec = arch.pe_array
    plan = FAMILY.plan(arch, layer)
    counters = FAMILY.fast(plan, None)
    assert counter_differences(counters, FAMILY.reference(plan, None)) == []
    assert all(type(value) is int for value in counters.as_dict().values())
    result = FAMILY.account(plan, counters)
    m = result.metrics
    assert result.macs_issued + m["macs_gated"] + m["macs_skipped"] == result.macs_dense == layer.macs
    assert result.cycles >= math.ceil(result.macs_issued / result.peak_macs_per_cycle)
    assert result.cycles >= m["dram_cycles"] and result.cycles >= result.compute_cycles
    assert result.dram_read_bytes >= m["weight_storage_bits"] / 8 + layer.input_elements * arch.word_bytes
    assert result.dram_write_bytes >= layer.output_elements * arch.word_bytes
    assert result.sram_read_bytes >= m["weight_storage_bits"] / 8
    if not spec.decodes:   # lockstep rows: ceil(k / vector_width) cycles a tile
        gemm = layer.gemm()   # one group's shape
        tiles = math.ceil(gemm.n / spec.rows) * math.ceil(gemm.m / spec.cols) * gemm.groups
        assert result.compute_cycles == tiles * math.ceil(gemm.k / spec.vector_width)


def test_energy_is_the_sum_of_its_parts(example):
    arch = pe_array(sparsity_support="reassignment", **ARCH_OF_EXAMPLE)
    run = simulate_layer(arch, example)
    table = load_energy_table(arch.energy_table)
    assert run.energy.total_pj == pytest.approx(sum(table.energy_pj(a) for a in run.result.actions))


@pytest.mark.parametrize("level", ["none", "reassignment"])
def test_max_cycles_guard(example, level):
    plan = FAMILY.plan(pe_array(sparsity_support=level, **ARCH_OF_EXAMPLE), example)
    cycles = EXPECTED[level]["cycles"]
    for path in (FAMILY.fast, FAMILY.reference):
        assert path(plan, cycles).cycles == cycles
        with pytest.raises(SimulationError, match="max_cycles"):
            path(plan, cycles - 1)
