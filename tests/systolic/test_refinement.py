"""Systolic refinement, part 1: the fast path and the SimPy reference agree on every counter.

Generated layers (convolutions with padding, strides, batches, groups, N:M patterns; GEMMs) on
generated arrays (1 x 1 up to 8 x 8, each dataflow) and memories (CALC and USER bandwidth, DRAM
latency, 8- and 16-bit words, buffers small enough that reads thrash and writes stall), then
targeted cases for the switches a random draw reaches rarely. Worked examples and SCALE-Sim's
own numbers are in ``test_refinement_examples.py``.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.foundations.arch import DramSpec
from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.foundations.errors import SimulationError
from accel_sim.hardware.scalesim_scratchpad import SETS
from accel_sim.models.systolic.family import FAMILY
from accel_sim.models.systolic.spec import BufferSpec, SystolicSpec
from accel_sim.foundations.workload import ConvLayer, GemmLayer, NMSparsity

MIN_TEST_BUFFER_WORDS = 24  # smaller buffers thrash on every word and only slow the reference down


def make_arch(rows, cols, dataflow, mode="calc", bandwidth=4, latency=1, word_bits=8, words=(600, 600, 600),
              nm=False, block_size=None, seed=40):
    """``block_size``: row-wise sparsity (SCALE-Sim OptimizedMapping) with that BlockSize. CALC read
    buffers are raised to the 100 words CALC allows (SCALE-Sim's estimate buffer needs a word per set)."""
    if mode == "calc":
        words = (max(words[0], SETS), max(words[1], SETS), words[2])
    ifmap, filters, ofmap = (BufferSpec(size=w * word_bits // 8) for w in words)
    row_wise = {} if block_size is None else dict(sparse_mapping="row_wise", row_block_size=block_size, row_seed=seed)
    return ArchSpec(name="t", family="systolic", word_bits=word_bits,
                    dram=DramSpec(bandwidth_mode=mode, bandwidth=bandwidth, latency=latency),
                    systolic=SystolicSpec(rows=rows, cols=cols, dataflow=dataflow, ifmap_sram=ifmap,
                                          filter_sram=filters, ofmap_sram=ofmap,
                                          nm_sparsity=(nm and dataflow == "ws") or block_size is not None,
                                          **row_wise))


layers = st.one_of(
    st.builds(lambda h, c, k, r, s, pad, batch, groups, nm: ConvLayer(
        "conv", in_h=h, in_w=h, in_channels=c * groups, out_channels=k * groups, kernel_h=r, kernel_w=r,
        stride_h=s, stride_w=s, pad_top=pad, pad_bottom=pad, pad_left=pad, pad_right=pad, batch=batch,
        groups=groups, weight_sparsity=nm),
        st.integers(3, 7), st.integers(1, 4), st.integers(1, 7), st.integers(1, 3), st.integers(1, 3),
        st.integers(0, 1), st.integers(1, 2), st.integers(1, 2),
        st.sampled_from([None, NMSparsity(2, 4), NMSparsity(1, 4), NMSparsity(3, 4), NMSparsity(1, 1)])),
    st.builds(lambda m, k, n, nm: GemmLayer("gemm", m=m, k=k, n=n, weight_sparsity=nm),
              st.integers(1, 24), st.integers(1, 24), st.integers(1, 24), st.sampled_from([None, NMSparsity(2, 4)])),
)


@settings(max_examples=70, deadline=None, derandomize=True)
@given(layer=layers, rows=st.integers(1, 8), cols=st.integers(1, 8), dataflow=st.sampled_from(["os", "ws", "is"]),
       mode=st.sampled_from(["calc", "user"]), bandwidth=st.integers(1, 12), latency=st.integers(0, 3),
       word_bits=st.sampled_from([8, 16]), words=st.tuples(*[st.integers(MIN_TEST_BUFFER_WORDS, 400)] * 3),
       nm=st.booleans())
def test_fast_path_and_reference_agree_on_every_counter(layer, rows, cols, dataflow, mode, bandwidth, latency,
                                                       word_bits, words, nm):
    arch = make_arch(rows, cols, dataflow, mode, bandwidth, latency, word_bits, words, nm)
    assert FAMILY.refinement(arch, layer) == []


CONV = ConvLayer("c", in_h=6, in_w=6, in_channels=3, out_channels=5, kernel_h=3, kernel_w=3, stride_h=1,
                 stride_w=1, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1)
STRIDED = ConvLayer("s", in_h=7, in_w=7, in_channels=2, out_channels=6, kernel_h=2, kernel_w=2, stride_h=3,
                    stride_w=3, batch=2)
GROUPED = ConvLayer("g", in_h=5, in_w=5, in_channels=4, out_channels=6, kernel_h=3, kernel_w=3, groups=2,
                    weight_sparsity=NMSparsity(2, 4))


@pytest.mark.parametrize("dataflow", ["os", "ws", "is"])
@pytest.mark.parametrize("mode, bandwidth, latency, words", [
    ("calc", 4, 0, (4000, 4000, 4000)),    # everything fits
    ("calc", 4, 0, (100, 100, 24)),        # reads overflow their buffers, writes stall on drains
    ("user", 1, 2, (40, 30, 24)),          # reads thrash, late bursts, writes stall
    ("user", 8, 0, (400, 400, 64)),        # early bursts: SCALE-Sim's negative waits
])
@pytest.mark.parametrize("layer", [CONV, STRIDED, GROUPED], ids=["padded", "strided_batch", "groups_nm"])
def test_every_dataflow_and_memory_regime(dataflow, mode, bandwidth, latency, words, layer):
    arch = make_arch(4, 3, dataflow, mode, bandwidth, latency, words=words, nm=True)
    assert FAMILY.refinement(arch, layer) == []


@pytest.mark.parametrize("m, k, overflows", [(10, 10, True), (9, 11, False)])
@pytest.mark.parametrize("dataflow", ["os", "ws"])
def test_calc_buffer_exactly_full_overflows(m, k, overflows, dataflow):
    """A 200-word CALC buffer holds 50 sets of 2 words: a 100-word ifmap overflows it, 99 words fit.
    The ifmap enters along the array rows, so an overflowing one is read again each column fold."""
    arch = make_arch(16, 4, dataflow, words=(200, 4000, 4000))
    layer = GemmLayer("g", m=m, k=k, n=8)
    plan = FAMILY.plan(arch, layer)
    fast, reference = FAMILY.fast(plan, None), FAMILY.reference(plan, None)
    assert fast == reference
    assert fast.ifmap_dram_reads == m * k * (2 if overflows else 1)


@pytest.mark.parametrize("dataflow", ["os", "ws", "is"])
def test_both_paths_stop_at_the_same_max_cycles(dataflow):
    arch = make_arch(3, 2, dataflow, "user", 1, 1, words=(30, 30, 24))
    layer = ConvLayer("c", in_h=4, in_w=4, in_channels=2, out_channels=3, kernel_h=2, kernel_w=2, groups=1)
    plan = FAMILY.plan(arch, layer)
    cycles = FAMILY.fast(plan, None).cycles
    for count in (FAMILY.fast, FAMILY.reference):
        assert count(plan, cycles).cycles == cycles
        with pytest.raises(SimulationError, match="max_cycles"):
            count(plan, cycles - 1)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(layer=layers, rows_blocks=st.sampled_from([(2, 2), (4, 2), (4, 4), (6, 2), (8, 4), (8, 8)]),
       cols=st.integers(1, 6), mode=st.sampled_from(["calc", "user"]), bandwidth=st.integers(1, 12),
       latency=st.integers(0, 3), words=st.tuples(*[st.integers(MIN_TEST_BUFFER_WORDS, 400)] * 3),
       seed=st.integers(0, 2**32 - 1))
def test_row_wise_sparsity_fast_and_reference_agree(layer, rows_blocks, cols, mode, bandwidth, latency, words, seed):
    """Row-wise sparsity (weight stationary only): the topology's N:M is ignored, N drawn per filter."""
    rows, block_size = rows_blocks
    arch = make_arch(rows, cols, "ws", mode, bandwidth, latency, words=words, block_size=block_size, seed=seed)
    assert FAMILY.refinement(arch, layer) == []


@pytest.mark.parametrize("mode, bandwidth, latency, words", [
    ("calc", 4, 0, (4000, 4000, 4000)),    # everything fits
    ("calc", 4, 0, (100, 100, 24)),        # reads overflow their buffers, writes stall on drains
    ("user", 1, 2, (40, 30, 24)),          # reads thrash, late bursts, writes stall
    ("user", 8, 0, (400, 400, 64)),        # early bursts
])
@pytest.mark.parametrize("layer", [CONV, STRIDED, GROUPED], ids=["padded", "strided_batch", "groups_nm"])
@pytest.mark.parametrize("rows, block_size", [(4, 4), (4, 2), (8, 8)])
def test_row_wise_in_every_memory_regime(mode, bandwidth, latency, words, layer, rows, block_size):
    arch = make_arch(rows, 3, "ws", mode, bandwidth, latency, words=words, block_size=block_size)
    assert FAMILY.refinement(arch, layer) == []
