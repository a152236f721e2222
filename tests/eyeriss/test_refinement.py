"""Eyeriss refinement: the fast path and the discrete-event reference agree on every counter on
generated layers and arrays, and both agree with hand-derived counts (so a bug in the shared plan,
or in the accounting, fails here too)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accel_sim import load_arch
from accel_sim.foundations.errors import SimulationError
from accel_sim.foundations.workload import ConvLayer, GemmLayer
from accel_sim.foundations.workload.layer import OperandSource
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.models.eyeriss.family import FAMILY
from accel_sim.foundations.workload.loop_nest import loop_nest
from accel_sim.models.eyeriss.plan.mapping import rs_mapping
from accel_sim.models.eyeriss.plan.rlc import rlc_pairs, rlc_words

TOP_LEVEL = ("word_bits", "clock")


def eyeriss(**options):
    return load_arch("eyeriss_v1", {k if k in TOP_LEVEL else f"eyeriss.{k}": v for k, v in options.items()})


# --- the mapping of AlexNet on the chip (JSSC 2017 Tables III and V) ---------------------------------

# layer: (e, p, q, r, t, n, m, active PEs). Table III: CONV1 e=7 p=16 q=1 r=1 t=2 n=1 m=96;
# CONV2 e=27 p=16 q=2 r=1 t=1 n=1 m=64; CONV3 e=13 p=16 q=4 r=1 t=4 n=4 m=64; CONV4/5 as CONV3 but
# q=3 r=2 t=2 (the paper's energy optimiser; this mapper puts copies on filters first). Active PEs
# (Table V): 154, 135, 156, 156, 156.
ALEXNET = {"conv1": (7, 16, 1, 1, 2, 1, 96, 154), "conv2": (27, 16, 2, 1, 1, 1, 64, 135),
           "conv3": (13, 16, 4, 1, 4, 4, 64, 156), "conv4": (13, 16, 4, 1, 4, 4, 64, 156),
           "conv5": (13, 16, 4, 1, 4, 4, 64, 156)}


@pytest.mark.parametrize("name", sorted(ALEXNET))
def test_alexnet_mapping_and_active_pes(name):
    arch = eyeriss()
    layer = next(layer for layer in load_workload("eyeriss_alexnet_conv").layers if layer.name == name)
    mp = rs_mapping(arch.eyeriss, loop_nest(layer), 16, layer)
    assert (mp.e, mp.p, mp.q, mp.r, mp.t, mp.n, mp.m, mp.active_pes) == ALEXNET[name]


def test_segments_and_strip_mining():
    """CONV2's 5 x 27 set in two segments; CONV1's 11 x 55 set strip-mined to 8 strips of <= 7 rows."""
    arch = eyeriss()
    layers = {layer.name: layer for layer in load_workload("eyeriss_alexnet_conv").layers}
    conv2 = rs_mapping(arch.eyeriss, loop_nest(layers["conv2"]), 16, layers["conv2"])
    assert (conv2.segments, conv2.sets) == (2, 1)
    conv1 = loop_nest(layers["conv1"])
    assert (conv1.height, conv1.out_rows, conv1.stride, conv1.channels) == (227, 55, 4, 3)
    from accel_sim.models.eyeriss.plan.mapping import strip_rows, window_rows
    assert strip_rows(conv1, 7) == (7,) * 7 + (6,)
    assert window_rows(conv1, 7) == 35 and window_rows(conv1, 6) == 31


# --- run-length coding --------------------------------------------------------------------------------

def _brute_pairs(values, max_run):
    pairs = run = 0
    for v in values:
        if v == 0 and run < max_run:
            run += 1
        else:
            pairs, run = pairs + 1, 0
    return pairs + (run > 0)


def test_rlc_worked_examples():
    streams = np.array([[1, 0, 2, 0, 0, 3, 4, 5, 0],     # (0,1) (1,2) (2,3) (0,4) (0,5) + a closing pair
                        [0] * 9,                         # one pair closes 9 zeros
                        [7] * 9]) != 0                   # nine pairs, no zero
    assert list(rlc_pairs(streams, 31)) == [6, 1, 9]
    assert list(rlc_words(streams, 31, 3)) == [2, 1, 3]
    long = np.zeros((1, 70), dtype=bool)
    long[0, 65] = True                                   # 65 zeros: (31,0) (31,0) (1, v); 4 zeros: one more pair
    assert list(rlc_pairs(long, 31)) == [4]
    assert list(rlc_pairs(long, 3)) == [_brute_pairs(long[0], 3)] == [65 // 4 + 1 + 1]


@given(st.lists(st.lists(st.booleans(), min_size=12, max_size=12), min_size=1, max_size=4), st.integers(1, 7))
@settings(max_examples=30, deadline=None)
def test_rlc_matches_a_sequential_encoder(rows, max_run):
    # every path: rlc_pairs (numba when installed), its loop run as plain Python, the numpy listing
    from accel_sim.models.eyeriss.plan.rlc import listed_pairs, stream_pairs
    mask = np.array(rows)
    plain = np.zeros(mask.shape[0], dtype=np.int64)
    stream_pairs(mask, max_run, plain)
    expected = [_brute_pairs(r, max_run) for r in mask]
    assert list(rlc_pairs(mask, max_run)) == list(plain) == list(listed_pairs(mask, max_run)) == expected


# --- a worked example, every counter by hand -------------------------------------------------------

@pytest.fixture
def tiny(tmp_path):
    """1 image, 1 channel, 3 x 3 ifmap, 1 filter of 2 x 2, stride 1: E = F = 2, 16 dense MACs.
    ifmap [[1,0,2],[0,0,3],[4,5,0]]; filter [[-1,1],[0,0]] -> ofmap ReLU [[-1,2],[0,3]] = [[0,2],[0,3]]."""
    path = tmp_path / "tiny.npz"
    np.savez(path, inputs=np.array([[[[1, 0, 2], [0, 0, 3], [4, 5, 0]]]], dtype=np.float32),
             weights=np.array([[[[-1, 1], [0, 0]]]], dtype=np.float32))
    return ConvLayer("tiny", in_h=3, in_w=3, in_channels=1, out_channels=1, kernel_h=2, kernel_w=2,
                     operands=OperandSource(payload=str(path)))


# A 2 x 2 array; the link as fast as the core (64 b = 8 B a cycle).
TINY_ARCH = {"pe_rows": 2, "pe_cols": 2, "link_clock": 200e6}


def test_worked_example_counters(tiny):
    arch = eyeriss(**TINY_ARCH)
    plan = FAMILY.plan(arch, tiny)
    mp = plan.mapping
    assert (mp.e, mp.segments, mp.sets, mp.p, mp.q, mp.r, mp.t, mp.n, mp.m, mp.active_pes) == \
        (2, 1, 1, 1, 1, 1, 1, 1, 1, 4)
    # zeros read: (0,1) x 2 uses, (1,0) x 2, (1,1) x 4, (2,2) x 1 = 9 of the 16 MACs
    assert int(plan.zero_uses.sum()) == 9
    # ifmap 1,0,2,0,0,3,4,5,0: 6 pairs -> 2 words; ofmap 0,2,0,3: (1,2) (1,3) -> 1 word
    assert int(plan.ifmap_bits.sum()) == 128 and int(plan.ofmap_bits.sum()) == 64
    expected = dict(
        # ifmap in (16 B / 8 B), one pass (ramp 4 weights / 4, then the 9 ifmap values over the 16-bit ifmap GIN,
        # longer than the busiest PE's 2 x 2 x 1 MACs), ofmap out
        cycles=2 + 10 + 1,
        processing_cycles=10, network_wait_cycles=9 - 4, filter_wait_cycles=0, ifmap_load_cycles=2, ofmap_dump_cycles=1, passes=1,
        macs_issued=7, macs_gated=9, dram_ifmap_read_bits=128, dram_filter_read_bits=64, dram_ofmap_write_bits=64,
        glb_ifmap_writes=9, glb_ifmap_reads=9, glb_filter_words=4, glb_psum_reads=4, glb_psum_writes=4,
        ifmap_spad_writes=12,          # each of the 4 PEs receives its 3-value ifmap row
        filter_spad_writes=8,          # each filter row to the 2 PEs of its set row
        local_link_transfers=4)        # each of the 4 psums moves up one PE
    for path in (FAMILY.fast, FAMILY.reference):
        assert path(plan, None).as_dict() == expected


def test_worked_example_accounting(tiny):
    arch = eyeriss(**TINY_ARCH)
    plan, counters = FAMILY.counters(arch, tiny)
    result = FAMILY.account(plan, counters)
    actions = {(a.component, a.action): a.count for a in result.actions}
    assert actions == {("dram", "read"): 12, ("dram", "write"): 4, ("glb", "read"): 17, ("glb", "write"): 17,
                       ("array_network", "transfer"): 9 + 4 + 4 + 4 + 4, ("spads", "read"): 16 + 14,
                       ("spads", "write"): 12 + 8 + 7, ("pe_array", "op"): 7, ("pe_array", "gated"): 9,
                       ("clock_network", "cycle"): 13, ("clock_network", "pe_cycle"): 4 * 13}
    assert (result.cycles, result.compute_cycles, result.stall_cycles) == (13, 10, 3)
    assert (result.dram_read_bytes, result.dram_write_bytes) == (24, 8)
    assert (result.sram_read_bytes, result.sram_write_bytes) == (34, 34)
    assert result.metrics["active_pes"] == 4 and result.metrics["processing_time_s"] == 10 / 200e6


def test_worked_example_without_gating_or_coding(tiny):
    arch = eyeriss(zero_gating=False, run_length_coding=False, **TINY_ARCH)
    plan = FAMILY.plan(arch, tiny)
    counters = FAMILY.fast(plan, None)
    assert (counters.macs_issued, counters.macs_gated) == (16, 0)
    # raw 16-bit values: 9 ifmap values = 144 bits (18 B, 3 cycles), 4 ofmap values = 64 bits
    assert (counters.dram_ifmap_read_bits, counters.dram_ofmap_write_bits, counters.cycles) == (144, 64, 3 + 10 + 1)
    assert FAMILY.refinement(arch, tiny) == []


def test_slow_link_makes_passes_wait_for_filters(tiny):
    """At a link of 1/16 the core clock (0.5 B a cycle) the 8 B of filters take 16 cycles > the pass's 10."""
    arch = eyeriss(pe_rows=2, pe_cols=2, link_clock=12.5e6)
    counters = FAMILY.fast(FAMILY.plan(arch, tiny), None)
    assert (counters.filter_wait_cycles, counters.ifmap_load_cycles, counters.ofmap_dump_cycles) == (6, 32, 16)
    assert FAMILY.refinement(arch, tiny) == []


def test_max_cycles_guard_on_both_paths(tiny):
    arch = eyeriss(**TINY_ARCH)
    plan = FAMILY.plan(arch, tiny)
    for path in (FAMILY.fast, FAMILY.reference):
        with pytest.raises(SimulationError):
            path(plan, 7)


# --- generated layers and arrays ----------------------------------------------------------------------

@st.composite
def cases(draw):
    kernel = draw(st.integers(1, 3))
    groups = draw(st.integers(1, 2))
    in_size = draw(st.integers(kernel, 8))
    layer = ConvLayer("g", in_h=in_size, in_w=draw(st.integers(kernel, 8)),
                      in_channels=groups * draw(st.integers(1, 4)), out_channels=groups * draw(st.integers(1, 6)),
                      kernel_h=kernel, kernel_w=draw(st.integers(1, kernel)), stride_h=draw(st.integers(1, 2)),
                      pad_top=draw(st.integers(0, 1)), pad_bottom=draw(st.integers(0, 1)), groups=groups,
                      batch=draw(st.integers(1, 3)), input_density=draw(st.sampled_from([0.2, 0.6, 1.0])),
                      operands=OperandSource(seed=draw(st.integers(0, 5))))
    options = {"pe_rows": draw(st.integers(kernel, 7)), "pe_cols": draw(st.integers(1, 6)),
               "ifmap_spad_entries": draw(st.integers(3, 8)), "filter_spad_entries": draw(st.integers(6, 40)),
               "psum_spad_entries": draw(st.integers(1, 8)), "glb_size": draw(st.sampled_from([2000, 100000])),
               "filter_gin_words": draw(st.integers(1, 4)), "link_clock": draw(st.sampled_from([20e6, 60e6, 400e6])),
               "zero_gating": draw(st.booleans()), "run_length_coding": draw(st.booleans()),
               "raw_input_layers": draw(st.sampled_from([[], ["g"]]))}
    return layer, options


@given(cases())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_fast_equals_reference_on_generated_layers(case):
    layer, options = case
    arch = eyeriss(**options)
    assert FAMILY.refinement(arch, layer) == []
    plan, counters = FAMILY.counters(arch, layer)
    # counters are integers (the contract's), never a float a stray '/' makes
    assert all(isinstance(v, (int, np.integer)) for v in counters.as_dict().values())
    # conservation: issued + gated = dense; DRAM at least the coded footprint of every plane, read once
    assert counters.macs_issued + counters.macs_gated == layer.macs
    whole = plan.ifmap_bits if plan.mapping.e >= plan.shape.out_rows else None
    if whole is not None:
        assert counters.dram_ifmap_read_bits >= int(whole.sum())


def test_fc_layer_runs_as_a_one_by_one_convolution():
    """1 x 1 sets: q = 12 channels and p = 16 filters a PE; 2 filter copies x 4 channel copies = 8 PEs."""
    arch = eyeriss()
    layer = GemmLayer("fc", m=4, k=40, n=30, input_density=0.5)
    assert FAMILY.refinement(arch, layer) == []
    plan = FAMILY.plan(arch, layer)
    assert (plan.shape.images, plan.shape.channels, plan.shape.filters, plan.mapping.active_pes) == (4, 40, 30, 8)


def test_worked_example_capacities_metrics_and_blocks(tiny):
    arch = eyeriss(**TINY_ARCH)
    result = FAMILY.layer_result(arch, tiny)
    glb = {a.capacity_bytes for a in result.actions if a.component == "glb"}
    assert glb == {100_000 + 8_000}                    # JSSC 2017 Table IV: the 108 kB global buffer
    assert result.metrics["glb_bytes"] == (17 + 17) * 2
    blocks = {(c.name, c.component_class): (c.count, c.bits, c.capacity_bytes) for c in FAMILY.components(arch)}
    assert blocks[("spads", "register")] == (4, (12 + 24) * 16, 0)
    assert blocks[("spads", "sram")] == (4, 16, 448) and blocks[("glb", "sram")] == (1, 64, 108_000)


def test_sparse_plane_codes_to_one_word(tmp_path):
    """An 8 x 8 plane with one non-zero (first): (0, v), then 63 zeros in two closing pairs = 1 word."""
    x = np.zeros((1, 1, 8, 8), dtype=np.float32)
    x[0, 0, 0, 0] = 3
    path = tmp_path / "one.npz"
    np.savez(path, inputs=x, weights=np.ones((1, 1, 1, 1), dtype=np.float32))
    layer = ConvLayer("one", in_h=8, in_w=8, in_channels=1, out_channels=1, kernel_h=1, kernel_w=1,
                      operands=OperandSource(payload=str(path)))
    plan = FAMILY.plan(eyeriss(pe_rows=2, pe_cols=8), layer)
    assert int(plan.ifmap_bits.sum()) == 64 and int(plan.ofmap_bits.sum()) == 64


def test_a_set_exactly_as_tall_as_the_array_is_not_strip_mined():
    """R = 6, E = 27: two segments of 6 rows fill the 12 rows exactly; no strip mining."""
    layer = ConvLayer("tall", in_h=32, in_w=32, in_channels=1, out_channels=4, kernel_h=6, kernel_w=2)
    mp = rs_mapping(eyeriss().eyeriss, loop_nest(layer), 16, layer)
    assert (mp.e, mp.segments, mp.sets, mp.active_pes) == (27, 2, 1, 6 * 27)


def test_glb_error_names_the_space_needed():
    from accel_sim.foundations.errors import InputError
    layer = ConvLayer("big", in_h=20, in_w=20, in_channels=1, out_channels=1, kernel_h=3, kernel_w=3)
    with pytest.raises(InputError, match=r"eyeriss.glb_size: 100 B .* need at least 156 B"):
        FAMILY.plan(eyeriss(glb_size=100), layer)   # 3 ifmap rows x 20 + 18 psums = 78 words


def test_ifmap_network_bounds_a_pass(tiny):
    """The worked example's pass multicasts 9 ifmap values: over a 16-bit ifmap GIN they take 9 cycles, more than the
    busiest PE's 4 MACs; over a 64-bit one 3 cycles, fewer, and the pass is its MACs again."""
    narrow = FAMILY.fast(FAMILY.plan(eyeriss(**TINY_ARCH), tiny), None)
    wide = FAMILY.fast(FAMILY.plan(eyeriss(ifmap_gin_words=4, **TINY_ARCH), tiny), None)
    assert (narrow.processing_cycles, narrow.network_wait_cycles) == (1 + 9, 5)
    assert (wide.processing_cycles, wide.network_wait_cycles) == (1 + 4, 0)
    assert FAMILY.refinement(eyeriss(ifmap_gin_words=4, **TINY_ARCH), tiny) == []


def test_a_small_glb_splits_the_batch_and_fetches_filters_per_image_block():
    """The tiny layer (3 x 3 ifmap, one 2 x 2 filter) on a batch of 2: one image's pass needs 3 window rows x 3
    ifmap values + 2 x 2 psums = 13 words = 26 B of global buffer, two images 52 B. With 40 B, n = 1: two image
    blocks, two passes, and the 4 filter weights come from DRAM once per block: 2 x 4 x 16 b = 128 bits,
    8 GLB filter words. With 52 B both images fit: n = 2, one pass, 64 bits."""
    layer = ConvLayer("b", in_h=3, in_w=3, in_channels=1, out_channels=1, kernel_h=2, kernel_w=2, batch=2)
    for glb, n, passes, bits, words in ((40, 1, 2, 128, 8), (52, 2, 1, 64, 4)):
        arch = eyeriss(glb_size=glb, **TINY_ARCH)
        plan = FAMILY.plan(arch, layer)
        counters = FAMILY.fast(plan, None)
        assert (plan.mapping.n, counters.passes, counters.dram_filter_read_bits, counters.glb_filter_words) == \
            (n, passes, bits, words)
        assert FAMILY.refinement(arch, layer) == []


def test_max_cycles_is_inclusive_on_both_paths(tiny):
    """The worked example takes 13 cycles: max_cycles=13 runs on both paths, 12 raises."""
    plan = FAMILY.plan(eyeriss(**TINY_ARCH), tiny)
    for path in (FAMILY.fast, FAMILY.reference):
        assert path(plan, 13).cycles == 13
        with pytest.raises(SimulationError):
            path(plan, 12)


def test_a_small_glb_splits_the_filters_and_fetches_ifmaps_per_filter_block():
    """A 3 x 3 dense ifmap, two 2 x 2 filters: with both filters a pass holds 9 ifmap values + 2 x 4 psums = 17 words
    = 34 B of global buffer. With 30 B only one filter's psums fit (13 words = 26 B): p = m = 1, two filter blocks,
    and the ifmaps cross the link once per block: 9 values RLC-coded as 9 pairs, 3 a 64-b word = 192 bits, twice =
    384 bits; 24 B at 8 B a cycle = 3 cycles, twice = 6; 2 x 9 GLB ifmap writes. With 34 B, one block: half of each."""
    layer = ConvLayer("f", in_h=3, in_w=3, in_channels=1, out_channels=2, kernel_h=2, kernel_w=2)
    for glb, m, bits, load, writes in ((30, 1, 384, 6, 18), (34, 2, 192, 3, 9)):
        arch = eyeriss(glb_size=glb, **TINY_ARCH)
        plan = FAMILY.plan(arch, layer)
        c = FAMILY.fast(plan, None)
        assert (plan.mapping.m, int(plan.ifmap_bits.sum())) == (m, 192)
        assert (c.dram_ifmap_read_bits, c.ifmap_load_cycles, c.glb_ifmap_writes) == (bits, load, writes)
        assert all(isinstance(v, (int, np.integer)) for v in c.as_dict().values())
        assert FAMILY.refinement(arch, layer) == []


def test_strip_width_ties_on_busy_pes_are_broken_by_dram_words():
    """A 3 x 2 array, 2 x 2 filters, 8 channels -> 1 filter on a 6 x 6 map (E = 5): the 2 x 5 set needs
    2 x ceil(5 / 2) = 6 rows > 3, so it is strip-mined. q = min(12 // 2, 224 // 2, 8) = 6, p = 1. Busy PEs:
    e = 1: two 2 x 1 sets side by side, t = 1, r = min(2, ceil(8 / 6)) = 2 channel copies -> 2 x 1 x 2 = 4;
    e = 2: one 2 x 2 set, r = t = 1 -> 4. A tie; DRAM words decide: filters 1 x 8 x 4 = 32 words per strip,
    ifmaps 8 channels x 6 columns x the strips' window rows: e = 1, 5 strips of 2 rows: 32 x 5 + 480 = 640;
    e = 2, strips (2, 2, 1) of 3, 3, 2 rows: 32 x 3 + 384 = 480. e = 2 wins."""
    layer = ConvLayer("c", in_h=6, in_w=6, in_channels=8, out_channels=1, kernel_h=2, kernel_w=2)
    mp = rs_mapping(eyeriss(pe_rows=3, pe_cols=2).eyeriss, loop_nest(layer), 16, layer)
    assert (mp.e, mp.p, mp.q, mp.r, mp.t) == (2, 1, 6, 1, 1)


def test_strip_widths_count_channel_copies_as_busy_pes():
    """A 3 x 3 array, 2 x 2 filters, 16 channels -> 8 filters on a 10 x 10 map (E = 9): 2 x ceil(9 / 3) = 6 rows > 3,
    so strips. q = 6, p = min(16, 8) = 8. Busy PEs: e = 1: three 2 x 1 sets side by side, t = 1 filter block,
    r = min(3, ceil(16 / 6)) = 3 channel copies -> 2 x 1 x 3 x 1 = 6; e = 2: one set, 4; e = 3: one 2 x 3 set, 6.
    Candidates e = 1 and 3. In a 600 B GLB e = 1 fits at p = 4 (t = 2, r = 1, 384 B) for 7488 DRAM words,
    e = 3 only at p = 2 (588 B) for 9216: e = 1, p = 4, all 8 filters a block."""
    layer = ConvLayer("c", in_h=10, in_w=10, in_channels=16, out_channels=8, kernel_h=2, kernel_w=2)
    mp = rs_mapping(eyeriss(pe_rows=3, pe_cols=3, glb_size=600).eyeriss, loop_nest(layer), 16, layer)
    assert (mp.e, mp.p, mp.r, mp.t, mp.n, mp.m) == (1, 4, 1, 2, 1, 8)
