"""Conservation laws of the systolic model on generated layers and arrays (fast path)."""
import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from accel_sim.foundations.arch import DramSpec
from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.models.systolic.family import FAMILY
from accel_sim.models.systolic.fast.footprint import touched_input_words
from accel_sim.models.systolic.plan.mapping import map_layer
from accel_sim.models.systolic.spec import BufferSpec, SystolicSpec
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer, NMSparsity

layers = st.one_of(
    st.builds(lambda h, c, k, r, s, pad, groups, nm: ConvLayer(
        "conv", in_h=h, in_w=h + 1, in_channels=c * groups, out_channels=k * groups, kernel_h=r, kernel_w=r,
        stride_h=s, stride_w=s, pad_top=pad, pad_bottom=pad, pad_left=pad, pad_right=pad, groups=groups,
        weight_sparsity=nm),
        st.integers(3, 16), st.integers(1, 16), st.integers(1, 40), st.integers(1, 3), st.integers(1, 3),
        st.integers(0, 1), st.integers(1, 3), st.sampled_from([None, NMSparsity(2, 4), NMSparsity(1, 4)])),
    st.builds(lambda m, k, n, nm: GemmLayer("gemm", m=m, k=k, n=n, weight_sparsity=nm),
              st.integers(1, 80), st.integers(1, 80), st.integers(1, 80), st.sampled_from([None, NMSparsity(2, 4)])),
)


def make_arch(rows, cols, dataflow, mode, bandwidth, kib, nm):
    buffer = BufferSpec(size=kib * 1024)
    return ArchSpec(name="t", family="systolic", dram=DramSpec(bandwidth_mode=mode, bandwidth=bandwidth, latency=1),
                    systolic=SystolicSpec(rows=rows, cols=cols, dataflow=dataflow, ifmap_sram=buffer,
                                          filter_sram=buffer, ofmap_sram=buffer, nm_sparsity=nm and dataflow == "ws"))


@settings(max_examples=120, deadline=None, derandomize=True)
@given(layer=layers, rows=st.integers(1, 32), cols=st.integers(1, 32), dataflow=st.sampled_from(["os", "ws", "is"]),
       mode=st.sampled_from(["calc", "user"]), bandwidth=st.integers(1, 16), kib=st.sampled_from([1, 2, 8, 64]),
       nm=st.booleans())
def test_conservation_laws(layer, rows, cols, dataflow, mode, bandwidth, kib, nm):
    assume(not (rows == cols == 1 and dataflow == "os"))  # see test_single_pe_output_stationary_quirk
    arch = make_arch(rows, cols, dataflow, mode, bandwidth, kib, nm)
    result = FAMILY.layer_result(arch, layer)
    mapping = map_layer(arch.systolic, layer)
    counts = {(a.component, a.action): a.count for a in result.actions if a.bits == arch.word_bits}
    # time: stalls only add; the array cannot beat its peak MAC rate; compute time is the fold closed form
    assert result.cycles == result.compute_cycles + result.stall_cycles
    assert result.stall_cycles >= 0
    assert result.cycles >= math.ceil(result.macs_issued / result.peak_macs_per_cycle)
    assert result.compute_cycles == mapping.groups * (mapping.folds * mapping.fold_lines - 1)
    # work: N:M skips exactly the pruned reduction steps, nothing else
    assert result.macs_issued == layer.macs * mapping.gemm.k // mapping.dense_k
    assert result.macs_issued <= result.macs_dense == layer.macs
    # traffic: every operand word crosses DRAM at least once, outputs at least once
    ifmap_words = touched_input_words(mapping, layer) * mapping.groups
    weight_words = mapping.gemm.k * mapping.gemm.n * mapping.groups
    assert counts["ifmap_sram", "write"] >= ifmap_words
    assert counts["filter_sram", "write"] >= weight_words
    assert result.dram_read_bytes >= (ifmap_words + weight_words) * arch.word_bytes
    assert result.dram_write_bytes >= layer.output_elements * arch.word_bytes
    assert counts["dram", "read"] == counts["ifmap_sram", "write"] + counts["filter_sram", "write"]
    assert counts["dram", "write"] == counts["ofmap_sram", "read"]
    # the array reads every operand word it multiplies and writes every output at least once
    assert counts["filter_sram", "read"] >= weight_words
    assert counts["ofmap_sram", "write"] >= layer.output_elements
    macs = [a.count for a in result.actions if a.component_class in ("mult_int", "add_int")]
    assert macs == [result.macs_issued] * 2
    metadata = [a for a in result.actions if a.component_class in ("dram", "sram") and a.bits != arch.word_bits]
    if mapping.nm is not None and mapping.nm.m > 1:
        bits = math.ceil(math.log2(mapping.nm.m))
        assert {(a.component, a.action, a.bits) for a in metadata} == {
            ("dram", "read", bits), ("filter_sram", "write", bits), ("filter_sram", "read", bits)}
        assert result.dram_read_bytes == counts["dram", "read"] * arch.word_bytes + math.ceil(weight_words * bits / 8)
    else:
        assert not metadata
    assert 0 < result.utilization <= 1


@pytest.mark.parametrize("mode", ["calc", "user"])
def test_groups_run_one_after_the_other(mode):
    arch = make_arch(4, 4, "ws", mode, 4, 1, False)
    grouped = ConvLayer("g", in_h=6, in_w=6, in_channels=6, out_channels=9, kernel_h=3, kernel_w=3, groups=3)
    one = ConvLayer("one", in_h=6, in_w=6, in_channels=2, out_channels=3, kernel_h=3, kernel_w=3)
    a, b = FAMILY.layer_result(arch, grouped), FAMILY.layer_result(arch, one)
    assert (a.cycles, a.stall_cycles, a.dram_read_bytes, a.dram_write_bytes, a.macs_issued) == (
        3 * b.cycles, 3 * b.stall_cycles, 3 * b.dram_read_bytes, 3 * b.dram_write_bytes, 3 * b.macs_issued)


def test_bad_buffers_are_rejected_with_the_field_named():
    arch = make_arch(4, 4, "os", "calc", 4, 1, False)
    tiny = ArchSpec(name="t", family="systolic", word_bits=16, dram=arch.dram,
                    systolic=SystolicSpec(rows=4, cols=4, dataflow="os", ifmap_sram=BufferSpec(size=2),
                                          filter_sram=BufferSpec(size=64), ofmap_sram=BufferSpec(size=64)))
    with pytest.raises(ValueError, match="systolic.ifmap_sram.size"):
        FAMILY.layer_result(tiny, GemmLayer("g", m=2, k=2, n=2))
    single = ArchSpec(name="t", family="systolic", dram=arch.dram,
                      systolic=SystolicSpec(rows=4, cols=4, dataflow="os", ifmap_sram=BufferSpec(size=64),
                                            filter_sram=BufferSpec(size=64, double_buffered=False),
                                            ofmap_sram=BufferSpec(size=64)))
    with pytest.raises(ValueError, match="double-buffered"):
        FAMILY.layer_result(single, GemmLayer("g", m=2, k=2, n=2))


def test_single_pe_output_stationary_quirk():
    """SCALE-Sim's "Total Cycles" is the index of the last cycle, one less than their number. Every
    array but a single output-stationary PE has fill / drain cycles to spare; that one reports
    MACs - 1 cycles per group (0 for a single MAC), so it is excluded from the peak-rate law."""
    arch = make_arch(1, 1, "os", "calc", 1, 1, False)
    assert FAMILY.layer_result(arch, GemmLayer("g", m=3, k=4, n=2)).cycles == 3 * 4 * 2 - 1
    assert FAMILY.layer_result(arch, GemmLayer("g", m=1, k=1, n=1)).cycles == 0
