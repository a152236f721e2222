"""Refinement (b) for the shared plan: its tiling, encoding and operands against independent
oracles (the generic ``SCNNZeroRun`` format, numpy slicing and loops), since the two counting
paths cannot disagree about a plan they share."""
import numpy as np
import pytest

from accel_sim import load_arch
from accel_sim.foundations.compress import SCNNZeroRun
from accel_sim.foundations.errors import InputError
from accel_sim.models.scnn.family import FAMILY
from accel_sim.models.scnn.plan.bank_mapping import bank_of
from accel_sim.models.scnn.plan.encoding import block_bits, block_entries, input_bits
from accel_sim.models.scnn.plan.operands import conv_operands, convolution
from accel_sim.models.scnn.plan.temporal_tiling import lower_bound_bits
from accel_sim.models.scnn.plan.tiling import conv_view, make_tiling, split_bounds
from accel_sim.models.scnn.reference import reference_outputs
from accel_sim.foundations.workload import ConvLayer, GemmLayer
from accel_sim.foundations.workload.operands import layer_operands
from tests.scnn._layers import chunked_case, scnn_arch, small_case

SEEDS = (0, 1, 2, 8, 12, 15, 16, 19, 27)   # every design; temporal tiles; conv groups; empty PE tiles


def zero_run_bits(block: np.ndarray, value_bits: int) -> int:
    return SCNNZeroRun.from_dense(np.asarray(block, dtype=np.float32)).storage(value_bits).total_bits


def test_paper_figure_7_example():
    filters = np.array([[[0, 23, 0], [0, 0, 0], [18, 0, 42]], [[77, 0, 0], [0, 24, 0], [0, 0, 8]]])
    block = SCNNZeroRun.from_dense(filters)
    assert block.values.tolist() == [23, 18, 42, 77, 24, 8]
    assert block.index_vector().tolist() == [6, 1, 4, 1, 0, 3, 3]


@pytest.mark.parametrize("density", [0.02, 0.1, 0.5, 1.0])
def test_vectorised_block_storage_equals_scnn_zero_run(density):
    rng = np.random.default_rng(int(density * 100))
    blocks = [(rng.random(int(rng.integers(1, 200))) < density) * rng.integers(1, 9, 1) for _ in range(30)]
    ids = np.concatenate([np.full(np.count_nonzero(b), i) for i, b in enumerate(blocks)]).astype(np.int64)
    pos = np.concatenate([np.flatnonzero(b) for b in blocks]).astype(np.int64)
    sizes = np.array([b.size for b in blocks])
    bits = block_bits(block_entries(ids, pos, len(blocks), 4), sizes, 16, 4)
    assert bits.tolist() == [zero_run_bits(b, 16) for b in blocks]


def tiles(plan):
    """(temporal tile, PE, rows, cols) of every PE tile, from the tiling's bounds."""
    spec, tiling = plan.spec, plan.tiling
    for t in range(tiling.temporal_tiles):
        for pe in range(spec.pes):
            iy = (t // tiling.temporal_cols) * spec.pe_rows + pe // spec.pe_cols
            ix = (t % tiling.temporal_cols) * spec.pe_cols + pe % spec.pe_cols
            yield t, pe, iy, ix


@pytest.mark.parametrize("case", [small_case(s) for s in SEEDS] + [chunked_case(s) for s in (0, 1, 4)])
def test_operand_bits_equal_zero_run_blocks_of_each_tile(case):
    """Input tiles (per chunk), owned output tiles and weight blocks: SCNNZeroRun blocks (one per
    channel of a tile, per (channel, group) of the weights in FIFO order) or dense words."""
    arch, layer = case
    plan = FAMILY.plan(arch, layer)
    spec, view, tiling, bits = plan.spec, plan.view, plan.tiling, plan.value_bits
    chip_acts, dram_acts = plan.traits.skip_activations, plan.traits.skip_activations or plan.traits.compress_dram

    def tile_bits(plane, rows, cols, compressed):
        block = plane[:, rows[0]:rows[1], cols[0]:cols[1]]
        return sum(zero_run_bits(c, bits) for c in block) if compressed else block.size * bits

    bounds = tiling.channel_bounds
    outputs = np.maximum(convolution(view, plan.weights, plan.inputs), 0)
    for t, pe, iy, ix in tiles(plan):
        rows, cols = (tiling.rows.lo[iy], tiling.rows.hi[iy]), (tiling.cols.lo[ix], tiling.cols.hi[ix])
        own_rows, own_cols = (tiling.rows.own_lo[iy], tiling.rows.own_hi[iy]), (tiling.cols.own_lo[ix], tiling.cols.own_hi[ix])
        for b in range(view.batch):
            for g in range(view.groups):
                for chunk in range(tiling.channel_chunks):
                    plane = plan.inputs[b, g, bounds[chunk]:bounds[chunk + 1]]
                    assert plan.input_bits[b, g, t, chunk, pe] == tile_bits(plane, rows, cols, chip_acts)
                assert plan.output_bits[b, g, t, pe] == tile_bits(outputs[b, g], own_rows, own_cols, chip_acts)
    for b in range(view.batch):
        for g in range(view.groups):
            assert plan.output_dram_bits[b, g].tolist() == [
                sum(tile_bits(outputs[b, g], (tiling.rows.own_lo[iy], tiling.rows.own_hi[iy]),
                              (tiling.cols.own_lo[ix], tiling.cols.own_hi[ix]), dram_acts)
                    for tt, _, iy, ix in tiles(plan) if tt == t) for t in range(tiling.temporal_tiles)]
            chip_in = plan.input_bits[b, g].sum(axis=2)
            dram_in = [[sum(tile_bits(plan.inputs[b, g, bounds[c]:bounds[c + 1]],
                                      (tiling.rows.lo[iy], tiling.rows.hi[iy]), (tiling.cols.lo[ix], tiling.cols.hi[ix]),
                                      dram_acts) for tt, _, iy, ix in tiles(plan) if tt == t)
                        for c in range(tiling.channel_chunks)] for t in range(tiling.temporal_tiles)]
            assert plan.input_dram_bits(b, g).tolist() == dram_in
            assert (chip_in == plan.input_dram_bits(b, g)).all() or chip_acts != dram_acts
    for g in range(view.groups):
        for name, compressed in (("weight_chip_bits", plan.traits.skip_weights),
                                 ("weight_dram_bits", plan.traits.skip_weights or plan.traits.compress_dram)):
            expected = []
            for chunk in range(tiling.channel_chunks):
                total = 0
                for c in range(bounds[chunk], bounds[chunk + 1]):
                    for k0 in range(0, view.out_channels, tiling.kc):
                        block = plan.weights[g, k0:k0 + tiling.kc, c]            # (k, r, s): R x S, then K
                        if spec.weight_order == "k_then_rs":
                            block = block.transpose(1, 2, 0)
                        total += zero_run_bits(block, bits) if compressed else block.size * bits
                expected.append(total)
            assert getattr(plan, name)[g].tolist() == expected, name


def test_uneven_planar_tiles_and_accumulator_regions():
    assert split_bounds(10, 4).tolist() == [0, 3, 6, 8, 10]
    assert split_bounds(3, 8).tolist() == [0, 1, 2, 3, 3, 3, 3, 3, 3]   # five PEs get empty tiles
    arch = load_arch("scnn")
    layer = ConvLayer("c", in_h=13, in_w=13, in_channels=4, out_channels=8, kernel_h=3, kernel_w=3,
                      pad_top=1, pad_bottom=1, pad_left=1, pad_right=1)
    tiling = make_tiling(arch.scnn, conv_view(layer), 1, 1)
    assert (tiling.rows.hi - tiling.rows.lo).tolist() == [2, 2, 2, 2, 2, 1, 1, 1]
    assert tiling.rows.acc_lo.tolist() == [-1, 1, 3, 5, 7, 9, 10, 11]    # first output each tile reaches
    assert tiling.rows.acc_len.tolist() == [4, 4, 4, 4, 4, 3, 3, 3]
    assert tiling.rows.own_lo.tolist() == [0, 2, 4, 6, 8, 10, 11, 12]
    assert (tiling.acc_h, tiling.acc_w) == (4, 4)   # largest tile (2) + kernel - 1
    assert tiling.kc == 8                           # 1024 // 16 = 64 >= 8 channels
    assert tiling.group_channels(8).tolist() == [8]
    strided = make_tiling(arch.scnn, conv_view(ConvLayer("s", in_h=9, in_w=9, in_channels=1, out_channels=1,
                                                         kernel_h=3, kernel_w=3, stride_h=2, stride_w=2)), 1, 1)
    # rows 0-1 reach outputs (y - r) / 2: -1 .. 0; row 2: 0 .. 1 (taps 2, 0); row 3: 1 only (tap 1)
    assert strided.rows.acc_lo[:3].tolist() == [-1, 0, 1] and strided.rows.acc_len[:3].tolist() == [2, 2, 1]


def test_kc_rule_respects_accumulator_capacity():
    layer = ConvLayer("c", in_h=64, in_w=64, in_channels=2, out_channels=256, kernel_h=3, kernel_w=3,
                      pad_top=1, pad_bottom=1, pad_left=1, pad_right=1)
    tiling = make_tiling(load_arch("scnn").scnn, conv_view(layer), 1, 1)
    assert (tiling.acc_h, tiling.acc_w) == (10, 10)
    assert tiling.kc == 1024 // 100 and tiling.out_groups == 26
    assert tiling.group_channels(256).tolist() == [10] * 25 + [6]
    fixed = make_tiling(load_arch("scnn", {"scnn.kc_rule": "fixed", "scnn.kc": 8}).scnn, conv_view(layer), 1, 1)
    assert fixed.kc == 8 and fixed.out_groups == 32
    too_many = make_tiling(load_arch("scnn", {"scnn.kc_rule": "fixed", "scnn.kc": 11}).scnn, conv_view(layer), 1, 1)
    assert too_many.kc == 0


def widest_chunk(channel_bits: list[list[int]], chunks: int) -> int:
    """The most bits of any image's equal-ish chunk of channels."""
    bounds = split_bounds(len(channel_bits[0]), chunks)
    return max(sum(image[lo:hi]) for image in channel_bits for lo, hi in zip(bounds[:-1], bounds[1:]))


def test_fewest_temporal_tiles_then_fewest_channel_chunks():
    layer = ConvLayer("c", in_h=32, in_w=32, in_channels=64, out_channels=8, kernel_h=3, kernel_w=3,
                      pad_top=1, pad_bottom=1, pad_left=1, pad_right=1, input_density=0.6)
    iaram = 1024
    plan = FAMILY.plan(load_arch("scnn", {"scnn.iaram_size": iaram}), layer)
    n = plan.tiling.temporal_rows
    assert plan.tiling.temporal_cols == n > 1 and plan.tiling.channel_chunks == 1
    assert plan.input_bits.max() <= iaram * 8
    smaller = make_tiling(plan.spec, plan.view, n - 1, n - 1)
    assert input_bits(smaller, plan.spec, plan.view, plan.inputs, True, 16).max() > iaram * 8
    assert FAMILY.plan(load_arch("scnn"), layer).tiling.temporal_tiles == 1
    for seed in (1, 11, 14):    # FC layers: a 1 x 1 plane, so only channel chunks can help
        arch, fc = chunked_case(seed)
        chunked = FAMILY.plan(arch, fc)
        compressed, capacity = chunked.traits.skip_activations, arch.scnn.iaram_size * 8
        channel_bits = [[zero_run_bits([x], 16) if compressed else 16 for x in image[0, :, 0, 0]]
                        for image in chunked.inputs]
        chunks = chunked.tiling.channel_chunks
        assert chunked.tiling.channel_bounds.tolist() == split_bounds(fc.k, chunks).tolist()
        assert widest_chunk(channel_bits, chunks) <= capacity < widest_chunk(channel_bits, chunks - 1), seed


@pytest.mark.parametrize("case", [small_case(s, design="scnn") for s in SEEDS] + [chunked_case(s, design="scnn")
                                                                                  for s in (0, 2, 4)])
def test_reference_products_sum_to_the_convolution(case):
    """Every product the reference's PEs compute, at the output coordinate it computes for it, sums
    (after ReLU) to a direct numpy convolution: the plan's tiles, regions and phases lose nothing."""
    arch, layer = case
    plan = FAMILY.plan(arch, layer)
    view = conv_view(layer)
    expected = np.zeros((view.batch, view.groups, view.out_channels, view.out_h, view.out_w))
    x = np.pad(plan.inputs.astype(np.float64), ((0, 0), (0, 0), (0, 0), (view.pad_top, view.r),
                                                 (view.pad_left, view.s)))
    for oy in range(view.out_h):
        for ox in range(view.out_w):
            window = x[:, :, :, oy * view.stride_h:oy * view.stride_h + view.r, ox * view.stride_w:ox * view.stride_w + view.s]
            expected[:, :, :, oy, ox] = np.einsum("gkcrs,bgcrs->bgk", plan.weights, window)
    assert np.allclose(reference_outputs(plan), np.maximum(expected, 0), atol=1e-4)


def test_bank_mapping_is_the_address_hash():
    """An 8 x 8 plane on 8 x 8 PEs, 3 x 3 kernel: one-pixel tiles, regions of 3 x 3 outputs per channel."""
    layer = ConvLayer("c", in_h=8, in_w=8, in_channels=1, out_channels=4, kernel_h=3, kernel_w=3)
    arch = load_arch("scnn", {"scnn.accumulator_banks": 8, "scnn.mult_f": 4})
    tiling = make_tiling(arch.scnn, conv_view(layer), 1, 1)
    assert (tiling.acc_h, tiling.acc_w) == (3, 3)
    assert bank_of(arch.scnn, tiling, 1, 2, 1) == (1 * 9 + 2 * 3 + 1) % 8            # linear: k x 9 + y x 3 + x
    assert bank_of(arch.scnn, tiling, 0, -1, -2) == (-1 * 3 - 2) % 8
    spread = load_arch("scnn", {"scnn.accumulator_banks": 8, "scnn.mult_f": 4, "scnn.bank_mapping": "channel_spread"})
    assert bank_of(spread.scnn, tiling, 3, 1, 2) == (3 * 2 + 1 * 3 + 2) % 8            # k x A / F + y x 3 + x
    assert bank_of(spread.scnn, tiling, np.array([0, 1]), np.array([2, 0]), np.array([0, 1])).tolist() == [6, 3]


@pytest.mark.parametrize("fields, needs", [({}, 9), ({"scnn.kc_rule": "fixed", "scnn.kc": 3}, 27)])
def test_accumulators_too_small_for_one_output_tile_are_refused(fields, needs):
    """A one-pixel tile of a 3 x 3 conv reaches 3 x 3 outputs per channel: 9 partial sums (27 for a
    fixed Kc of 3) do not fit a buffer of 2 x 4."""
    arch = load_arch("scnn", {"scnn.accumulator_banks": 2, "scnn.accumulator_entries": 4, **fields})
    layer = ConvLayer("c", in_h=8, in_w=8, in_channels=2, out_channels=4, kernel_h=3, kernel_w=3)
    with pytest.raises(InputError, match=rf"scnn\.accumulator_entries.*needs {needs} partial sums per buffer "
                                         r"\(3 x 3 outputs per channel\), the buffer holds .* = 8"):
        FAMILY.plan(arch, layer)


def test_numpy_convolution_matches_a_direct_loop():
    layer = ConvLayer("c", in_h=7, in_w=6, in_channels=4, out_channels=4, kernel_h=3, kernel_w=3, stride_h=2,
                      stride_w=2, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1, groups=2, input_density=0.5)
    view = conv_view(layer)
    weights, inputs = conv_operands(layer)
    out = convolution(view, weights, inputs)
    x = np.pad(inputs[0].astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    for g in range(2):
        for k in range(2):
            for oy in range(view.out_h):
                for ox in range(view.out_w):
                    ref = (weights[g, k] * x[g, :, 2 * oy:2 * oy + 3, 2 * ox:2 * ox + 3]).sum()
                    assert out[0, g, k, oy, ox] == pytest.approx(ref, abs=1e-4)


def test_fc_layer_is_a_1x1_conv_of_its_inputs():
    layer = GemmLayer("fc", m=2, k=24, n=10, weight_density=0.5, input_density=0.5)
    weights, inputs = conv_operands(layer)
    operands = layer_operands(layer)
    assert weights.shape == (1, 10, 24, 1, 1) and inputs.shape == (2, 1, 24, 1, 1)
    assert (weights[0, :, :, 0, 0] == operands.weights.T).all() and (inputs[:, 0, :, 0, 0] == operands.inputs).all()
    plan = FAMILY.plan(load_arch("scnn", {"scnn.pe_rows": 2, "scnn.pe_cols": 2}), layer)
    expected = np.maximum(operands.inputs @ operands.weights, 0)
    assert np.allclose(reference_outputs(plan)[:, 0, :, 0, 0], expected, atol=1e-4)


@pytest.mark.parametrize("seed", [0, 3, 6])
def test_temporal_tiling_screen_is_the_largest_tile_without_overheads(seed):
    """The screen that skips temporal candidates: the most non-zeros of any PE tile (all channels,
    empty tiles included) as 20-bit entries, here with more PE rows than input rows."""
    rng = np.random.default_rng(seed)
    inputs = (rng.random((2, 1, 3, 5, 7)) < 0.4).astype(np.float32)
    layer = ConvLayer("screen", in_h=5, in_w=7, in_channels=3, out_channels=1, kernel_h=1, kernel_w=1)
    spec = load_arch("scnn", {"scnn.pe_rows": 8, "scnn.pe_cols": 3}).scnn
    tiling = make_tiling(spec, conv_view(layer), 1, 2)
    rows, cols = split_bounds(5, 8), split_bounds(7, 6)
    most = max(int(np.count_nonzero(inputs[b, 0, :, rows[i]:rows[i + 1], cols[j]:cols[j + 1]]))
               for b in range(2) for i in range(8) for j in range(6))
    assert lower_bound_bits(tiling, spec, inputs, 16) == most * 20


@pytest.mark.parametrize("iaram, chunks", [(8, 1), (4, 2), (2, 4)])
def test_inputs_that_fill_the_iaram_exactly_fit(iaram, chunks):
    """DCNN stores an FC layer's 4 inputs as 16-bit words (64 bits): an IARAM of 8 B holds them in one
    pass, one of 4 B two channels per chunk, one of 2 B one channel per chunk."""
    arch = scnn_arch({"scnn.design": "dcnn", "scnn.pe_rows": 1, "scnn.pe_cols": 1, "scnn.iaram_size": iaram})
    plan = FAMILY.plan(arch, GemmLayer("fc", m=1, k=4, n=1))
    assert plan.tiling.channel_chunks == chunks and plan.input_bits.max() == 64 // chunks


def test_a_plane_that_fills_the_iaram_exactly_needs_no_temporal_tiles():
    """Two PEs of a 1 x 4 row: 2 dense 16-bit inputs each, 4 B: an IARAM of 4 B holds a PE's tile."""
    layer = ConvLayer("row", in_h=1, in_w=4, in_channels=1, out_channels=1, kernel_h=1, kernel_w=2)
    arch = scnn_arch({"scnn.design": "dcnn", "scnn.pe_rows": 1, "scnn.pe_cols": 2, "scnn.iaram_size": 4})
    assert FAMILY.plan(arch, layer).tiling.temporal_tiles == 1
    smaller = scnn_arch({"scnn.design": "dcnn", "scnn.pe_rows": 1, "scnn.pe_cols": 2, "scnn.iaram_size": 3})
    assert FAMILY.plan(smaller, layer).tiling.temporal_tiles == 2


@pytest.mark.parametrize("case", [small_case(s) for s in (0, 8, 15)] + [chunked_case(1)])
def test_activation_bits_equal_on_every_encoding_path(case, monkeypatch):
    """The compiled per-channel zero-run count (numba), the same loop in plain Python and the numpy path that lists
    the non-zeros give the same bits (the test above checks the compiled path against SCNNZeroRun)."""
    from accel_sim.models.scnn.plan import encoding
    arch, layer = case
    fields = ("input_bits", "output_bits", "output_dram_bits")
    compiled = FAMILY.plan(arch, layer)
    for path in (lambda: encoding.channel_entries, lambda: None):
        monkeypatch.setattr(encoding, "_compiled", path)
        plan = FAMILY.plan(arch, layer)
        assert all(np.array_equal(getattr(plan, f), getattr(compiled, f)) for f in fields)
        assert [plan.input_dram_bits(b, 0).tolist() for b in range(plan.view.batch)] == \
            [compiled.input_dram_bits(b, 0).tolist() for b in range(plan.view.batch)]
