"""Eyeriss v2: fast == reference on every counter, on generated layers and sparsity; a worked example
by hand; conservation; max_cycles; bad input (one line naming the field, exit 2)."""
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
    assert FAMILY.refinement(_arch(**overrides), layer) == []


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
