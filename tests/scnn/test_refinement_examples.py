"""Refinement (b): worked examples derived by hand, independent of both paths and of the plan.

Tiny layers with given operands (a ``.npz`` payload) on 1 or 2 PEs of F = I = 2 multipliers
and A = 4 accumulator banks (linear mapping: bank = accumulator address mod 4). Every counter
is derived below from the paper's dataflow; both the fast path and the reference must give
exactly these numbers. A compressed block of ``n`` non-zeros and size ``size`` takes
``n x (16 + 4) + bit_length(size)`` bits (Fig. 7; no zero run is long enough for a placeholder).
"""
import numpy as np
import pytest

from accel_sim import load_arch
from accel_sim.models.scnn.accounting import account
from accel_sim.models.scnn.counters import SCNNCounters
from accel_sim.models.scnn.family import FAMILY
from accel_sim.models.scnn.fast.timeline import PassTiming, pass_timing
from accel_sim.foundations.workload import ConvLayer, GemmLayer
from tests.scnn._layers import payload

ZERO = {name: (0,) if name.endswith("write_bits") and name.startswith(("iaram", "oaram")) else 0
        for name in SCNNCounters.__dataclass_fields__}


def row_conv(tmp_path, name, weights, inputs, stride=1):
    """A conv of one input row ``inputs`` and filter row(s) ``weights`` (one per output channel)."""
    w = np.asarray(weights, dtype=np.float32).reshape(len(weights), 1, 1, -1)
    x = np.asarray(inputs, dtype=np.float32).reshape(1, 1, 1, -1)
    return ConvLayer(name, in_h=1, in_w=x.shape[3], in_channels=1, out_channels=w.shape[0], kernel_h=1,
                     kernel_w=w.shape[3], stride_h=stride, stride_w=stride,
                     operands=payload(tmp_path, name, w, x))


def tiny_arch(**fields):
    """A one-PE array; products of one step for the same bank serialise (the hand counts below)."""
    return load_arch("scnn", {"scnn.scatter": "serialise", "scnn.pe_rows": 1, "scnn.pe_cols": 1, "scnn.mult_f": 2, "scnn.mult_i": 2,
                              "scnn.accumulator_banks": 4, **{f"scnn.{k}": v for k, v in fields.items()}})


def check_both_paths(arch, layer, **expected):
    plan = FAMILY.plan(arch, layer)
    want = SCNNCounters(**{**ZERO, **expected})
    assert FAMILY.fast(plan, None) == want
    assert FAMILY.reference(plan, None) == want
    return plan


def cartesian(products, **rest):
    """A Cartesian design: every product crosses the crossbar and read-modify-writes an accumulator."""
    return dict(products=products, multiplier_ops=products, crossbar_transfers=products, accumulator_adds=products,
                accumulator_reads=products, accumulator_writes=products, **rest)


def test_one_pe_one_filter_row(tmp_path):
    """Inputs [1, 2, 3], filter [1, 2]: outputs [5, 8]. The PE's accumulator region is outputs -1..2
    (acc_w 4: output ox at address ox + 1). I-vectors [x0, x1], [x2]; one F-vector [s0, s1].
    Step 1: outputs x - s = 0, -1, 1, 0 -> banks 1, 0, 2, 1: bank 1 twice, 2 cycles.
    Step 2: outputs 2, 1 -> banks 3, 2: 1 cycle. Busy 3, one conflict cycle; 6 products, 4 of them
    in the plane (2 outputs x 2 taps). Drain: no halo, 2 outputs at 4 per cycle: 1. Compute 3 + 1.
    DRAM: the weight block (2 non-zeros of 2) is 42 bits, streamed in 1 cycle at 50 B/cycle; the
    outputs (42 bits) stay in the OARAM."""
    plan = check_both_paths(tiny_arch(), row_conv(tmp_path, "e1", [[1, 2]], [1, 2, 3]), **cartesian(
        6, compute_cycles=4, group_cycles=3, pe_busy_cycles=3, steps=2, bank_conflict_cycles=1, macs_issued=4,
        iaram_reads=3, oaram_write_bits=(42,), weight_fifo_reads=2, weight_fifo_writes=1, ppu_outputs=2,
        dram_read_bits=42))
    assert (plan.tiling.acc_h, plan.tiling.acc_w, plan.tiling.kc, plan.tiling.out_groups) == (1, 4, 1, 1)


def test_two_pes_exchange_a_halo(tmp_path):
    """Inputs [1, 2, 3, 4] on 2 PEs (columns 0-1 and 2-3), filter [1, 2]: outputs [5, 8, 11]; PE 0
    owns outputs 0-1, PE 1 owns output 2. Regions: PE 0 outputs -1..1, PE 1 outputs 1..3 (acc_w 3).
    Each PE: one step, outputs at addresses 1, 0, 2, 1: 2 cycles. PE 1's region holds output 1,
    owned by PE 0: one halo word (1 cycle at 1 word/cycle), then the PPU drains 2 outputs (1 cycle).
    In the plane: PE 0 outputs 0, 1, 0; PE 1 outputs 2, 1, 2. OARAM: PE 0 [5, 8] 42 bits, PE 1 [11]
    21 bits. Every F-vector reaches both PEs' FIFOs."""
    check_both_paths(tiny_arch(pe_cols=2), row_conv(tmp_path, "e2", [[1, 2]], [1, 2, 3, 4]), **cartesian(
        8, compute_cycles=4, group_cycles=2, pe_busy_cycles=4, steps=2, bank_conflict_cycles=2, macs_issued=6,
        iaram_reads=4, oaram_write_bits=(63,), weight_fifo_reads=2, weight_fifo_writes=2, halo_link_words=1,
        ppu_outputs=3, dram_read_bits=42))


@pytest.mark.parametrize("design, gated, weight_bits", [("dcnn", 6, 32), ("dcnn_opt", 4, 42)])
def test_dense_dot_products(tmp_path, design, gated, weight_bits):
    """Inputs [1, 0, 3, 4] on DCNN: PE 0 computes its 2 outputs, PE 1 its 1, each a dot product of 2
    terms on 4 multipliers: 1 beat each, each beat reading I = 2 FIFO entries. Busy 2 and 1: PE 1
    idles 1 cycle at the barrier; the PPU drains 2 outputs in 1 cycle: compute 3. Each output reads
    its 2 activations. Dense words everywhere (outputs 3 x 16 bits), weights 2 x 16 bits. DCNN-opt:
    the same time, but only 1 + 1 + 2 pairs of non-zeros switch a multiplier, and its weights move
    compressed (42 bits)."""
    plan = check_both_paths(tiny_arch(pe_cols=2, design=design), row_conv(tmp_path, design, [[1, 2]], [1, 0, 3, 4]),
                            compute_cycles=3, barrier_idle_cycles=1, group_cycles=2, pe_busy_cycles=3, steps=3,
                            products=6, macs_issued=6, multiplier_ops=gated, accumulator_adds=6, accumulator_writes=3,
                            iaram_reads=6, oaram_write_bits=(48,), weight_fifo_reads=6, ppu_outputs=3,
                            dram_read_bits=weight_bits)
    widths = {a.component: a.bits for a in account(plan, FAMILY.fast(plan, None)).actions if a.action == "read"}
    assert (widths["iaram"], widths["weight_fifo"]) == (16, 32)


@pytest.mark.parametrize("design, acts, busy, products, in_plane, steps, oaram_bits, weight_bits", [
    ("scnn", 2, 1, 2, 1, 1, 22, 22), ("scnn_sparse_a", 2, 1, 4, 2, 1, 22, 32), ("scnn_sparse_w", 3, 2, 3, 2, 2, 32, 22)])
@pytest.mark.parametrize("oaram", [10240, 2])
def test_each_cartesian_design_skips_its_zeros(tmp_path, design, acts, busy, products, in_plane, steps, oaram_bits,
                                               weight_bits, oaram):
    """Inputs [1, 0, 3], filter [0, 2]: outputs [0, 6]. SCNN multiplies [x0, x2] by [s1]: outputs -1, 1
    (banks 0, 2): 1 cycle, 1 product in the plane. SCNN-SparseA (zero weights kept): [x0, x2] x
    [s0, s1]: outputs 0, -1, 2, 1 on 4 banks, 2 in the plane. SCNN-SparseW (zero activations kept):
    [x0, x1] x [s1], then [x2] x [s1]: outputs -1, 0, 1, 2 steps, 2 in the plane. A skipped operand is
    stored compressed: outputs [0, 6] as 1 entry of a 2-block (22 bits) or 2 words (32); the filter as
    1 entry (22 bits) or 2 words (32). The design sets the widths: 20-bit activation entries when
    activations are skipped (else 16), FIFO entries of 2 weights with their indices when weights are.
    An OARAM of 2 B cannot hold the outputs: they go to DRAM in the same format."""
    plan = check_both_paths(tiny_arch(design=design, oaram_size=oaram),
                            row_conv(tmp_path, design, [[0, 2]], [1, 0, 3]), **cartesian(
        products, compute_cycles=busy + 1, group_cycles=busy, pe_busy_cycles=busy, steps=steps, macs_issued=in_plane,
        iaram_reads=acts, oaram_write_bits=(oaram_bits,), weight_fifo_reads=steps, weight_fifo_writes=1,
        ppu_outputs=2, dram_read_bits=weight_bits, dram_write_bits=oaram_bits if oaram == 2 else 0))
    widths = {a.component: a.bits for a in account(plan, FAMILY.fast(plan, None)).actions if a.action == "read"}
    assert (widths["iaram"], widths["weight_fifo"]) == (16 + 4 * (design != "scnn_sparse_w"),
                                                        2 * (16 + 4 * (design != "scnn_sparse_a")))


@pytest.mark.parametrize("mapping, busy", [("linear", 4), ("channel_spread", 2)])
def test_bank_mapping(tmp_path, mapping, busy):
    """Two 1 x 1 filters (K = 2, one group) over inputs [1, 2, 3, 4]: region of 4 outputs per channel.
    linear: bank = (4k + x) mod 4 = x: each step (2 activations x both channels) puts 2 products on
    each of 2 banks: 2 cycles, 4 in all. channel_spread: bank = (k x A/F + x) mod 4 = (2k + x) mod 4:
    the 4 products of a step on 4 banks: 1 cycle each. The PPU drains 8 outputs: 2 cycles."""
    check_both_paths(tiny_arch(bank_mapping=mapping), row_conv(tmp_path, mapping, [[1], [2]], [1, 2, 3, 4]),
                     **cartesian(8, compute_cycles=busy + 2, group_cycles=busy, pe_busy_cycles=busy, steps=2,
                                 bank_conflict_cycles=busy - 2, macs_issued=8, iaram_reads=4,
                                 oaram_write_bits=(166,), weight_fifo_reads=2, weight_fifo_writes=1,
                                 ppu_outputs=8, dram_read_bits=42))


def test_stride_two_splits_phase_classes(tmp_path):
    """Inputs [1..5], filter [1, 2, 3], stride 2: outputs 0, 1. Even columns meet taps 0 and 2, odd
    ones tap 1; an activation at x meets tap s at output x // 2 - s // 2 (region -1..2, address + 1).
    Even class: [x0, x2] x [s0, s2] -> outputs 0, -1, 1, 0: 2 cycles; [x4] x [s0, s2] -> 2, 1: 1 cycle.
    Odd class: [x1, x3] x [s1] -> 0, 1: 1 cycle. 8 products, 6 in the plane (2 outputs x 3 taps).
    Weight block: 3 non-zeros of 3: 62 bits."""
    check_both_paths(tiny_arch(), row_conv(tmp_path, "e5", [[1, 2, 3]], [1, 2, 3, 4, 5], stride=2), **cartesian(
        8, compute_cycles=5, group_cycles=4, pe_busy_cycles=4, steps=3, bank_conflict_cycles=1, macs_issued=6,
        iaram_reads=5, oaram_write_bits=(42,), weight_fifo_reads=3, weight_fifo_writes=2, ppu_outputs=2,
        dram_read_bits=62))


@pytest.mark.parametrize("oaram, stream_stall, psums_in_oaram, psum_bits", [(10240, 7, 3, 0), (3, 7, 3, 0),
                                                                           (2, 25, 0, 72)])
def test_channel_chunks_through_dram(tmp_path, oaram, stream_stall, psums_in_oaram, psum_bits):
    """An FC layer of 4 inputs, 1 output, all ones, with an IARAM of 3 B (24 bits): one compressed
    input is 21 bits, so the 4 channels run as 4 chunks, each loaded first at 1 B/cycle (3 cycles).
    Each pass: 1 step, 1 cycle, then the PPU (1 cycle): compute 2. Each pass streams its channel's
    weight block (21 bits: 3 cycles); the last also writes the output (21 bits): 6 cycles. Passes
    take 3 + max(2, 3) = 6, 6, 6, then 3 + max(2, 6) = 9: 27 cycles. The partial sum (24 bits) waits
    in the OARAM across the 3 chunk boundaries, also in an OARAM of exactly 3 B. In one of 2 B it
    goes through DRAM: written after chunks 0-2, read before chunks 1-3 (3 x 24 bits each way);
    streams of 45, 69, 69, 66 bits take 6, 9, 9, 9 cycles."""
    layer = GemmLayer("e6", m=1, k=4, n=1, operands=payload(tmp_path, "e6", np.ones((4, 1)), np.ones((1, 4))))
    plan = check_both_paths(tiny_arch(iaram_size=3, oaram_size=oaram, dram_bandwidth=1.0), layer, **cartesian(
        4, compute_cycles=8, input_load_stall_cycles=12, dram_stream_stall_cycles=stream_stall, group_cycles=4,
        pe_busy_cycles=4, steps=4, macs_issued=4, iaram_reads=4, iaram_write_bits=(84,), oaram_write_bits=(21,),
        weight_fifo_reads=4, weight_fifo_writes=4, psum_oaram_words=psums_in_oaram, ppu_outputs=1,
        dram_read_bits=168 + psum_bits, dram_write_bits=21 + psum_bits))
    assert plan.tiling.channel_bounds.tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("oaram, written", [(4, 0), (3, 48)])
def test_outputs_leave_the_oaram_only_when_they_overflow_it(tmp_path, oaram, written):
    """The dense example's PE 0 owns 2 outputs of 16 bits: an OARAM of 4 B holds them exactly and the
    layer's outputs stay on chip; one of 3 B does not, and all 3 outputs (48 bits) go to DRAM."""
    check_both_paths(tiny_arch(pe_cols=2, design="dcnn", oaram_size=oaram),
                     row_conv(tmp_path, "overflow", [[1, 2]], [1, 0, 3, 4]),
                     compute_cycles=3, barrier_idle_cycles=1, group_cycles=2, pe_busy_cycles=3, steps=3,
                     products=6, macs_issued=6, multiplier_ops=6, accumulator_adds=6, accumulator_writes=3,
                     iaram_reads=6, oaram_write_bits=(48,), weight_fifo_reads=6, ppu_outputs=3, dram_read_bits=32,
                     dram_write_bits=written)


def test_temporal_tiles_spill_halos(tmp_path):
    """Inputs [1, 2, 3, 4], filter [1, 2], one PE with an IARAM of 6 B (48 bits): the whole row (83
    bits) does not fit, two tiles of 2 (42 bits each) do. Tile 0: load 6 cycles at 1 B/cycle, one
    step of 2 cycles, PPU 1: compute 3; stream weights 42 + outputs [5, 8] 42 bits: 11 cycles. Tile
    1 (region outputs 1..3) holds output 1 of tile 0: 1 word over the halo link (1 cycle) and to DRAM
    (24 bits written, read back); compute 2 + 1 + 1; stream 42 + 2 x 24 + output [11] 21 bits: 14.
    Tiles take 6 + 11 and 6 + 14 cycles."""
    plan = check_both_paths(tiny_arch(iaram_size=6, dram_bandwidth=1.0),
                            row_conv(tmp_path, "e7", [[1, 2]], [1, 2, 3, 4]), **cartesian(
        8, compute_cycles=7, input_load_stall_cycles=12, dram_stream_stall_cycles=18, group_cycles=4,
        pe_busy_cycles=4, steps=2, bank_conflict_cycles=2, macs_issued=6, iaram_reads=4, iaram_write_bits=(84,),
        oaram_write_bits=(63,), weight_fifo_reads=2, weight_fifo_writes=2, spilled_partial_sums=1, ppu_outputs=3,
        dram_read_bits=192, dram_write_bits=87))
    assert plan.tiling.temporal_tiles == 2


def test_double_buffering_hides_drains_behind_the_next_group():
    """One PE, three groups of 10 busy cycles. Drains of 8 fit behind the next group's 10 cycles:
    only the last shows (30 + 8). Drains of 15 do not: group 1 starts at 10, group 2 waits for the
    first buffer until its drain ends at 25, ends at 35; drains end at 25, 40, 55."""
    busy = np.array([[10, 10, 10]])
    assert pass_timing(busy, np.array([8, 8, 8]), 0, 0) == PassTiming(38, 0, 0, 0, 30)
    assert pass_timing(busy, np.array([15, 15, 15]), 4, 70) == PassTiming(55, 4, 15, 0, 30)
    two = pass_timing(np.array([[3, 9], [7, 2]]), np.array([1, 1]), 0, 0)
    assert two == PassTiming(7 + 9 + 1, 0, 0, (7 - 3) + (9 - 2), 16)


@pytest.mark.parametrize("weights, inputs, fifo_entries, weight_bits", [([0, 0], [1, 2, 3], 0, 2),
                                                                       ([1, 2], [0, 0, 0], 1, 42)])
def test_nothing_to_multiply(tmp_path, weights, inputs, fifo_entries, weight_bits):
    """No non-zero weight (or activation): no step, no product; the PPU still drains the 2 (zero)
    outputs (1 cycle), stored as an empty block (its 2-bit count field). An empty weight block is
    its count field alone (2 bits) and fills no FIFO entry."""
    check_both_paths(tiny_arch(), row_conv(tmp_path, "none", [weights], inputs), compute_cycles=1,
                     oaram_write_bits=(2,), weight_fifo_writes=fifo_entries, ppu_outputs=2,
                     dram_read_bits=weight_bits)


def chunk_spy(monkeypatch) -> list[int]:
    """Record the I-vectors of each chunk :func:`~accel_sim.models.scnn.fast.products.segment_loads` yields to
    the FIFO loops and to :func:`~accel_sim.models.scnn.fast.products.product_busy` (the numpy FIFO path: not the
    compiled loops, which take no chunks)."""
    from accel_sim.models.scnn.fast import products, scatter_fifo
    chunks, segment_loads = [], products.segment_loads

    def spy(*args, **kwargs):
        for part in segment_loads(*args, **kwargs):
            chunks.append(part.load.shape[0])
            yield part
    monkeypatch.setattr(products, "segment_loads", spy)
    monkeypatch.setattr(scatter_fifo, "segment_loads", spy)
    monkeypatch.setattr(scatter_fifo, "KERNELS", lambda: None)
    return chunks


CHUNKED_PATHS = [  # (choices, busy cycles, products crossing to a bank, I-vectors per chunk at limits 3 and 6)
    pytest.param({"scatter": "fifo", "scatter_fifo_depth": 0}, 5, 10, {3: [1, 1, 1], 6: [2, 1]}, id="fifo0"),
    pytest.param({"scatter": "fifo", "scatter_fifo_depth": 1}, 3, 10, {3: [1, 1, 1], 6: [2, 1]}, id="fifo1"),
    pytest.param({"scatter": "fifo_unbounded"}, 3, 10, {3: [1, 1, 1], 6: [2, 1]}, id="fifo_unbounded"),
    pytest.param({"out_of_plane": "slot_only"}, 5, 8, {3: [1, 1], 6: [2]}, id="serialise_slot_only"),
]


@pytest.mark.parametrize("limit", [3, 6])
@pytest.mark.parametrize("choices, busy, transfers, chunks", CHUNKED_PATHS)
def test_a_segments_products_cut_into_chunks(tmp_path, monkeypatch, limit, choices, busy, transfers, chunks):
    """Inputs [1..5], filter [1, 2]: I-vectors [x0, x1], [x2, x3], [x4], one F-vector [s0, s1]; outputs
    0..3 at addresses ox + 1, bank (ox + 1) mod 4. Step 1: outputs 0, -1, 1, 0 -> bank loads [1, 2, 1, 0];
    step 2: 2, 1, 3, 2 -> [1, 0, 1, 2]; step 3: 4, 3 -> [1, 1, 0, 0]. Serialised (a FIFO of depth 0):
    2 + 2 + 1 = 5 cycles. A FIFO of depth 1 (a bank holds 2) or unbounded takes step 1 in cycle 1 (bank 1
    left with 1), step 2 in cycle 2 (bank 3 left with 1), step 3 in cycle 3 and is empty after it: 3.
    slot_only: the 2 products leaving the plane (outputs -1, 4) cross to no bank: 8 transfers, still
    5 cycles (bank 1 twice in step 1, bank 3 twice in step 2). Products 10, 8 in the plane; PPU 1 cycle
    (4 outputs); outputs 4 non-zeros of a 4-block: 83 bits.

    The fast path cuts a segment's products into chunks of about ``limit`` products, at I-vector
    boundaries (``limit // 2`` activations a chunk, 2 weights each): a limit of 3 gives one I-vector a
    chunk, 6 cuts after the second (slot_only: only the I-vectors at the plane's edges, 0 and 2, need
    products). The FIFO queues carry over from chunk to chunk."""
    from accel_sim.models.scnn.fast import products, scatter_fifo
    seen = chunk_spy(monkeypatch)
    monkeypatch.setattr(scatter_fifo, "FIFO_PRODUCTS", limit)
    monkeypatch.setattr(products, "MAX_PRODUCTS", limit)
    layer = row_conv(tmp_path, "chunks", [[1, 2]], [1, 2, 3, 4, 5])
    expected = cartesian(10, compute_cycles=busy + 1, group_cycles=busy, pe_busy_cycles=busy, steps=3,
                         bank_conflict_cycles=busy - 3, macs_issued=8, iaram_reads=5, oaram_write_bits=(83,),
                         weight_fifo_reads=3, weight_fifo_writes=1, ppu_outputs=4, dram_read_bits=42)
    expected.update(crossbar_transfers=transfers, accumulator_adds=transfers, accumulator_reads=transfers,
                    accumulator_writes=transfers)
    check_both_paths(tiny_arch(**choices), layer, **expected)
    assert seen == chunks[limit]
