"""Eyeriss v2: fast == reference on every counter, on generated layers and sparsity; a worked example
by hand; conservation; max_cycles; bad input (one line naming the field, exit 2)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim import load_arch, simulate
from accel_sim.cli.main import main
from accel_sim.foundations.errors import InputError, SimulationError
from accel_sim.foundations.workload import ConvLayer, GemmLayer, Network
from accel_sim.pipeline.catalog import FAMILIES

FAMILY = FAMILIES["eyeriss_v2"]


def _arch(**overrides):
    return load_arch("eyeriss_v2", {f"eyeriss_v2.{k}": v for k, v in overrides.items()})


conv = st.builds(
    lambda h, c, m, k, s, g, wd, xd, pad: ConvLayer("c", in_h=h, in_w=h + 1, in_channels=c * g, out_channels=m * g,
                                                    kernel_h=k, kernel_w=k, stride_h=s, stride_w=s, groups=g,
                                                    pad_top=pad, pad_bottom=pad, pad_left=pad, pad_right=pad,
                                                    weight_density=wd, input_density=xd),
    st.integers(5, 9), st.integers(1, 6), st.integers(1, 9), st.integers(1, 3), st.integers(1, 2), st.integers(1, 3),
    st.sampled_from([1.0, 0.5, 0.2]), st.sampled_from([1.0, 0.6, 0.3]), st.integers(0, 1))
fc = st.builds(lambda m, k, n, wd, xd: GemmLayer("fc", m=m, k=k, n=n, weight_density=wd, input_density=xd),
               st.integers(1, 3), st.integers(1, 80), st.integers(1, 70), st.sampled_from([1.0, 0.3]),
               st.sampled_from([1.0, 0.5]))
archs = st.fixed_dictionaries({"clusters": st.sampled_from([1, 2, 16]), "pes_per_cluster": st.sampled_from([4, 12]),
                               "simd_width": st.sampled_from([1, 2]), "psum_spad_entries": st.sampled_from([4, 32]),
                               "weight_data_entries": st.sampled_from([8, 96]),
                               "empty_window_cycles": st.sampled_from([0, 1]),
                               "pipeline_stages": st.sampled_from([1, 7])})


@settings(max_examples=60, deadline=None)
@given(layer=st.one_of(conv, fc), overrides=archs)
def test_fast_equals_reference_on_every_counter(layer, overrides):
    arch = _arch(**overrides)
    assert FAMILY.refinement(arch, layer) == []
    counters = FAMILY.fast(FAMILY.plan(arch, layer), None)    # integers, as the contract says
    assert all(isinstance(v, (int, np.integer)) for v in counters.as_dict().values())


@settings(max_examples=20, deadline=None)
@given(layer=st.one_of(conv, fc), overrides=archs)
def test_conservation_issued_plus_skipped_is_dense(layer, overrides):
    arch = _arch(**overrides)
    result = simulate(arch, Network("n", (layer,))).layers[0]
    assert result.macs_issued + result.macs_skipped == result.macs_dense == layer.macs
    assert result.cycles >= result.macs_issued / result.peak_macs_per_cycle
    assert result.cycles == result.compute_cycles + result.stall_cycles


def test_worked_example_by_hand():
    """One 1x1 conv of 2 channels to 2 filters on a 1 x 2 map, all dense, on one PE of SIMD 2: C0 = 2,
    M0 = 2; one work unit of two windows, each 2 non-zero iacts x ceil(2/2) = 1 cycle -> 2 cycles a
    window, + 6 fill = 10; the weight matrix (2 columns: 2 words + ceil(3 x 7 / 24) = 1 address word)
    loads in 3 cycles first: 13 cycles. 8 MACs issued."""
    arch = _arch(clusters=1, pes_per_cluster=1, pes_per_weight_router=1)
    layer = ConvLayer("c", in_h=1, in_w=2, in_channels=2, out_channels=2, kernel_h=1, kernel_w=1)
    counters = FAMILY.fast(FAMILY.plan(arch, layer), None)
    assert (counters.cycles, counters.compute_cycles, counters.macs_issued, counters.weight_spad_reads,
            counters.weight_load_words, counters.iact_spad_reads) == (13, 10, 8, 4, 3, 4)
    assert FAMILY.refinement(arch, layer) == []


def test_zero_iacts_and_weights_are_skipped_not_gated():
    dense = ConvLayer("c", in_h=6, in_w=6, in_channels=8, out_channels=32, kernel_h=3, kernel_w=3)
    sparse = ConvLayer("c", in_h=6, in_w=6, in_channels=8, out_channels=32, kernel_h=3, kernel_w=3,
                       weight_density=0.3, input_density=0.4)
    arch = load_arch("eyeriss_v2")
    d, s = (simulate(arch, Network("n", (x,))).layers[0] for x in (dense, sparse))
    assert s.macs_issued < 0.2 * d.macs_issued and s.compute_cycles < d.compute_cycles


@pytest.mark.parametrize("path", ["fast", "reference"])
def test_max_cycles_raises_on_both_paths(path):
    arch = load_arch("eyeriss_v2")
    plan = FAMILY.plan(arch, ConvLayer("c", in_h=6, in_w=6, in_channels=4, out_channels=4, kernel_h=3, kernel_w=3))
    with pytest.raises(SimulationError):
        getattr(FAMILY, path)(plan, 5)


def test_filter_row_wider_than_the_spads_is_one_line_naming_the_field(tmp_path, capsys):
    workload = tmp_path / "w.yaml"
    workload.write_text("name: w\nlayers:\n  - {name: wide, type: conv, in_h: 20, in_w: 20, in_channels: 1, "
                        "out_channels: 1, kernel_h: 1, kernel_w: 17}\n")
    assert main(["run", "--arch", "eyeriss_v2", "--workload", str(workload), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "kernel_w" in err[0]


def test_bad_config_field_is_one_line_exit_2(capsys):
    assert main(["run", "--arch", "eyeriss_v2", "--workload", "tiny_conv", "--set",
                 "eyeriss_v2.pes_per_weight_router=5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pes_per_weight_router" in err[0]
    with pytest.raises(InputError):
        load_arch("eyeriss_v2", {"eyeriss_v2.simd_width": 3})


def test_mapping_by_hand():
    """3x3 conv, 8 channels -> 48 dense filters on a 6 x 6 map: C0 = min(8, 16 // 3, 16 // 3) = 5; M0 starts at
    the largest power of two <= min(32 psum entries, 48) = 32 and halves while a weight matrix (M0 / 2 SIMD words
    per column x C0 x S) overflows the 96-word weight SPad: 240, 120, then 60 at M0 = 8. Units: 6 M-blocks x
    2 C-blocks x R 3 x E 4 = 144 < 192 PEs, so the 4 ofmap columns split in 2 (0-1, 2-3)."""
    arch = load_arch("eyeriss_v2")
    layer = ConvLayer("c", in_h=6, in_w=6, in_channels=8, out_channels=48, kernel_h=3, kernel_w=3)
    plan = FAMILY.plan(arch, layer)
    assert (plan.c0, plan.m0) == (5, 8)
    assert (plan.c_sizes, plan.m_sizes) == ((5, 3), (8,) * 6)
    assert (plan.f_starts, plan.f_sizes) == ((0, 2), (2, 2))


def test_two_channel_blocks_by_hand_counters_and_accounting():
    """A 1x1 conv of 17 channels to 1 filter on a 1 x 1 map, all dense, on the default chip (192 PEs, SIMD 2,
    7 stages, 4 PEs a weight router, 8-b words): C0 = min(17, 16 // 1, 16 // 1) = 16, so two channel blocks
    (16, 1); M0 = 1. Two work units (c-block 0 on PE 0, c-block 1 on PE 1), one round, both on router 0.

    - weight matrices: 16 columns x 1 weight -> 16 words + ceil((16 + 1) x 7 / 24) = 5 address words = 21;
      1 column -> 1 word + ceil(2 x 7 / 24) = 1 -> 2. Router 0 sends both: 23 cycles before either PE starts.
    - PE 0: one window of 16 non-zero iacts, 16 x ceil(1/2) = 16 MAC cycles -> 16 + 6 fill = 22; PE 1: 1 + 6 = 7.
      cycles = 23 + 22 = 45; compute = 22 (the round's busiest PE); busy = 29.
    - 17 MACs, each alone in its SIMD pair: 17 idle slots; 17 iact, weight and address SPad reads; 17 iacts
      and 17 weight words written into the PEs; 23 router words; psums out: R 1 x 2 blocks x 1 output = 2;
      the one output parks in the GLB between the blocks: 1 psum write and 1 read.
    - DRAM: 17 x 12 = 204 iact bits; weights 17 x 24 + (17 + 2) x 7 = 541 bits; read ceil(745 / 8) = 94 B;
      ofmap 8 bits = 1 B. GLB: reads 17 x 12 + 1 x 20 = 224 bits = 28 B, writes the same.
    - pe_utilization = 29 busy PE-cycles / (45 cycles x 192 PEs)."""
    arch = load_arch("eyeriss_v2")
    layer = ConvLayer("c", in_h=1, in_w=1, in_channels=17, out_channels=1, kernel_h=1, kernel_w=1)
    plan = FAMILY.plan(arch, layer)
    assert (plan.c0, plan.m0, plan.c_sizes, plan.f_sizes) == (16, 1, (16, 1), (1,))
    c = FAMILY.fast(plan, None)
    assert (c.cycles, c.compute_cycles, c.rounds, c.work_units, c.pe_busy_cycles) == (45, 22, 1, 2, 29)
    assert (c.macs_issued, c.simd_idle_slots, c.iact_spad_reads, c.weight_spad_reads, c.weight_addr_reads) == (17,) * 5
    assert (c.iact_spad_writes, c.weight_spad_writes, c.weight_load_words, c.psum_out_words) == (17, 17, 23, 2)
    assert (c.glb_iact_writes, c.glb_iact_reads, c.glb_psum_writes, c.glb_psum_reads) == (17, 17, 1, 1)
    assert (c.dram_iact_read_bits, c.dram_weight_read_bits, c.dram_ofmap_write_bits) == (204, 541, 8)
    assert FAMILY.refinement(arch, layer) == []
    result = simulate(arch, Network("n", (layer,))).layers[0]
    assert (result.dram_read_bytes, result.dram_write_bytes) == (94, 1)
    assert (result.sram_read_bytes, result.sram_write_bytes) == (28, 28)
    assert result.metrics["pe_utilization"] == pytest.approx(29 / (45 * 192))
    assert (result.metrics["weight_wait_cycles"], result.stall_cycles) == (23, 23)
    glb = sorted((a.action, a.bits, a.count) for a in result.actions if a.component == "glb")
    assert glb == [("read", 12, 17), ("read", 20, 1), ("write", 12, 17), ("write", 20, 1)]


@settings(max_examples=15, deadline=None)
@given(layer=st.one_of(conv, fc), overrides=archs)
def test_pe_utilization_and_glb_bytes_conserve(layer, overrides):
    """Busy PE-cycles never exceed cycles x PEs; the GLB bytes are the GLB actions' bits, rounded up."""
    arch = _arch(**overrides)
    result = simulate(arch, Network("n", (layer,))).layers[0]
    assert 0 < result.metrics["pe_utilization"] <= 1
    for direction, total in (("read", result.sram_read_bytes), ("write", result.sram_write_bytes)):
        bits = sum(a.count * a.bits for a in result.actions if a.component == "glb" and a.action == direction)
        assert total == -(-bits // 8)


@pytest.mark.parametrize("path", ["fast", "reference"])
def test_max_cycles_is_inclusive_on_both_paths(path):
    """A layer that takes exactly max_cycles cycles runs; one cycle less raises."""
    arch = load_arch("eyeriss_v2")
    plan = FAMILY.plan(arch, ConvLayer("c", in_h=6, in_w=6, in_channels=4, out_channels=4, kernel_h=3, kernel_w=3))
    cycles = FAMILY.fast(plan, None).cycles
    assert getattr(FAMILY, path)(plan, cycles).cycles == cycles
    with pytest.raises(SimulationError):
        getattr(FAMILY, path)(plan, cycles - 1)


def test_m0_keeps_a_matrix_that_fills_the_weight_spad_exactly():
    """3x3 conv, 2 channels -> 32 dense filters: C0 = 2; at M0 = 32 a matrix is 2 x 3 columns x 32 / 2 = 96 words,
    exactly the 96-word weight SPad: it fits, M0 stays 32. With a 4-word SPad even one filter's 6 words overflow:
    M0 stops at 1 (never 0)."""
    layer = ConvLayer("c", in_h=5, in_w=5, in_channels=2, out_channels=32, kernel_h=3, kernel_w=3)
    assert FAMILY.plan(load_arch("eyeriss_v2"), layer).m0 == 32
    assert FAMILY.plan(_arch(weight_data_entries=4), layer).m0 == 1


def test_one_pe_reads_every_segment_from_the_glb_every_round():
    """On one PE every work unit is a round of its own, so no iact segment is shared: the GLB sends each
    unit's segment, GLB iact reads == iact SPad writes. A 2 x 1 filter over a 3 x 1 dense map, 1 channel,
    2 filters with a 1-entry psum SPad (M0 = 1): 2 M-blocks x R 2 x E 2 = 8 units, 8 rounds, each unit's
    segment (one ifmap row of 1 value) holds 1 non-zero: 8 reads, 8 writes."""
    arch = _arch(clusters=1, pes_per_cluster=1, pes_per_weight_router=1, psum_spad_entries=1)
    layer = ConvLayer("c", in_h=3, in_w=1, in_channels=1, out_channels=2, kernel_h=2, kernel_w=1)
    c = FAMILY.fast(FAMILY.plan(arch, layer), None)
    assert (c.work_units, c.rounds, c.glb_iact_reads, c.iact_spad_writes) == (8, 8, 8, 8)
    assert FAMILY.refinement(arch, layer) == []


def test_split_columns_spill_into_a_second_round_and_share_segments_within_a_round():
    """12 PEs; a dense 1x1 conv, 1 channel -> 2 filters (1-entry psum SPad: M0 = 1, 2 M-blocks), batch 2, 2 x 2 map.
    2 M-blocks x 2 images x E 2 = 8 units < 12 PEs, so the 2 ofmap columns split in two (1, 1): 16 units, rounds of
    12 + 4. Each unit's iact segment is one value (1 non-zero). Round 1 holds all of M-block 0 (8 distinct segments:
    2 images x 2 rows x 2 column blocks) and image 0 of M-block 1 (the same 4 segments as M-block 0's image 0:
    multicast, no new GLB read); round 2 holds image 1 of M-block 1, whose 4 segments leave the GLB again. GLB iact
    reads 8 + 4 = 12; iact SPad writes 16 (every unit receives its segment)."""
    arch = _arch(clusters=1, pes_per_cluster=12, psum_spad_entries=1)
    layer = ConvLayer("c", in_h=2, in_w=2, in_channels=1, out_channels=2, kernel_h=1, kernel_w=1, batch=2)
    plan = FAMILY.plan(arch, layer)
    assert (plan.m0, plan.f_sizes) == (1, (1, 1))
    c = FAMILY.fast(plan, None)
    assert (c.work_units, c.rounds, c.glb_iact_reads, c.iact_spad_writes) == (16, 2, 12, 16)
    assert FAMILY.refinement(arch, layer) == []


def test_one_round_reads_every_ifmap_value_from_the_glb_once():
    """Segments of different groups, images and channel blocks are different segments. A dense grouped 1x1 conv:
    3 groups of 17 channels -> 1 filter, batch 2, a 1 x 2 map, default chip: C0 = 16 (channel blocks 16, 1), M0 = 1;
    3 groups x 2 channel blocks x 2 images x E 1 = 12 units < 192 PEs, so the 2 ofmap columns split (1, 1): 24 units,
    one round. Each unit's segment is one ifmap column of its channel block: the segments partition the
    3 x 2 x 17 x 2 = 204 values, so each leaves the GLB once: GLB iact reads = GLB iact writes = SPad writes = 204."""
    arch = load_arch("eyeriss_v2")
    layer = ConvLayer("c", in_h=1, in_w=2, in_channels=51, out_channels=3, kernel_h=1, kernel_w=1, groups=3, batch=2)
    plan = FAMILY.plan(arch, layer)
    assert (plan.c_sizes, plan.m0, plan.f_sizes) == ((16, 1), 1, (1, 1))
    c = FAMILY.fast(plan, None)
    assert (c.work_units, c.rounds) == (24, 1)
    assert (c.glb_iact_reads, c.glb_iact_writes, c.iact_spad_writes) == (204, 204, 204)
    assert FAMILY.refinement(arch, layer) == []


def test_a_filter_row_wider_than_the_smaller_spad_is_refused():
    """The iact SPad and the weight address SPad both hold a filter row: S = 5 fits a 16-entry address SPad but not
    a 4-entry iact SPad, so the plan refuses it, naming kernel_w (and the 5 x 5 conv fits the default 16 / 16)."""
    layer = ConvLayer("c", in_h=6, in_w=6, in_channels=1, out_channels=1, kernel_h=1, kernel_w=5)
    with pytest.raises(InputError, match="kernel_w"):
        FAMILY.plan(_arch(iact_spad_entries=4), layer)
    with pytest.raises(InputError, match="kernel_w"):
        FAMILY.plan(_arch(weight_addr_entries=4), layer)
    assert FAMILY.plan(load_arch("eyeriss_v2"), layer).c0 == 1
    exact = ConvLayer("c", in_h=1, in_w=16, in_channels=1, out_channels=1, kernel_h=1, kernel_w=16)
    assert FAMILY.plan(load_arch("eyeriss_v2"), exact).c0 == 1     # S = 16 fills both 16-entry SPads: it fits


def test_images_count_in_the_units_before_the_columns_split():
    """1x1 conv, 1 channel -> 1 filter, batch 4, a 1 x 64 map, default chip (192 PEs): 4 images x 1 ofmap row = 4 units,
    so the plan wants ceil(192 / 4) = 48 column splits: blocks of ceil(64 / 48) = 2 columns, 32 blocks, 128 units
    (one round)."""
    layer = ConvLayer("c", in_h=1, in_w=64, in_channels=1, out_channels=1, kernel_h=1, kernel_w=1, batch=4)
    plan = FAMILY.plan(load_arch("eyeriss_v2"), layer)
    assert plan.f_sizes == (2,) * 32 and plan.work_units == 128


def test_the_weight_address_spad_bounds_c0_too():
    """An 8-entry weight address SPad holds 8 // 3 = 2 weight columns of a 3x3 filter: C0 = min(8, 16 // 3, 2) = 2,
    so 8 channels are 4 blocks of 2."""
    layer = ConvLayer("c", in_h=6, in_w=6, in_channels=8, out_channels=4, kernel_h=3, kernel_w=3)
    plan = FAMILY.plan(_arch(weight_addr_entries=8), layer)
    assert (plan.c0, plan.c_sizes) == (2, (2, 2, 2, 2))
