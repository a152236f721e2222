"""The SimPy per-fold reference and the fast path give identical cycles on small cases."""
from hypothesis import given, settings, strategies as st

from accel_sim import load_arch
from accel_sim.systolic.model import simulate_layer, simulate_layer_reference
from accel_sim.workload import ConvLayer, GemmLayer, NMSparsity

layers = st.one_of(
    st.builds(lambda h, c, k, r, s, nm: ConvLayer("conv", in_h=h, in_w=h, in_channels=c, out_channels=k, kernel_h=r,
                                                   kernel_w=r, stride_h=s, stride_w=s, weight_sparsity=nm),
              st.integers(3, 10), st.integers(1, 8), st.integers(1, 20), st.integers(1, 3), st.integers(1, 2),
              st.sampled_from([None, NMSparsity(2, 4), NMSparsity(1, 4)])),
    st.builds(lambda m, k, n: GemmLayer("gemm", m=m, k=k, n=n), st.integers(1, 48), st.integers(1, 48), st.integers(1, 48)),
)


@settings(max_examples=60, deadline=None)
@given(layer=layers, rows=st.integers(2, 12), cols=st.integers(2, 12), dataflow=st.sampled_from(["os", "ws", "is"]),
       mode=st.sampled_from(["calc", "user"]), bandwidth=st.sampled_from([1, 2, 4, 10]),
       sram_kib=st.sampled_from([1, 4, 64]), nm=st.booleans())
def test_reference_and_fast_path_agree(layer, rows, cols, dataflow, mode, bandwidth, sram_kib, nm):
    size = f"{sram_kib} KiB"
    arch = load_arch("scalesim_32x32_ws", {
        "systolic.rows": rows, "systolic.cols": cols, "systolic.dataflow": dataflow,
        "systolic.nm_sparsity": nm and dataflow == "ws", "dram.bandwidth_mode": mode, "dram.bandwidth": bandwidth,
        "systolic.ifmap_sram.size": size, "systolic.filter_sram.size": size, "systolic.ofmap_sram.size": size})
    fast, reference = simulate_layer(arch, layer), simulate_layer_reference(arch, layer)
    assert (reference.cycles, reference.compute_cycles, reference.stall_cycles) == \
        (fast.cycles, fast.compute_cycles, fast.stall_cycles)
    assert (reference.dram_read_bytes, reference.dram_write_bytes) == (fast.dram_read_bytes, fast.dram_write_bytes)


# Wider net: word widths, DRAM latencies, padding, batches, groups, 1-row / 1-column arrays and
# buffers small enough that reads thrash and writes stall; the whole LayerResult must agree.
from accel_sim.arch.spec import ArchSpec, BufferSpec, DramSpec, SystolicSpec  # noqa: E402

MIN_TEST_BUFFER_WORDS = 24  # smaller buffers thrash on every word and only slow the test down

wide_layers = st.one_of(
    st.builds(lambda h, c, k, r, s, pad, batch, groups, nm: ConvLayer(
        "conv", in_h=h, in_w=h, in_channels=c * groups, out_channels=k * groups, kernel_h=r, kernel_w=r,
        stride_h=s, stride_w=s, pad_top=pad, pad_bottom=pad, pad_left=pad, pad_right=pad, batch=batch,
        groups=groups, weight_sparsity=nm),
        st.integers(3, 9), st.integers(1, 5), st.integers(1, 9), st.integers(1, 3), st.integers(1, 3),
        st.integers(0, 1), st.integers(1, 2), st.integers(1, 2),
        st.sampled_from([None, NMSparsity(2, 4), NMSparsity(1, 4), NMSparsity(3, 4)])),
    st.builds(lambda m, k, n, nm: GemmLayer("gemm", m=m, k=k, n=n, weight_sparsity=nm),
              st.integers(1, 30), st.integers(1, 30), st.integers(1, 30), st.sampled_from([None, NMSparsity(2, 4)])),
)


@settings(max_examples=150, deadline=None)
@given(layer=wide_layers, rows=st.integers(1, 8), cols=st.integers(1, 8), dataflow=st.sampled_from(["os", "ws", "is"]),
       mode=st.sampled_from(["calc", "user"]), bandwidth=st.integers(1, 12), latency=st.integers(0, 3),
       word_bits=st.sampled_from([8, 16]), words=st.tuples(*[st.integers(MIN_TEST_BUFFER_WORDS, 600)] * 3),
       nm=st.booleans())
def test_reference_and_fast_path_give_the_same_layer_result(layer, rows, cols, dataflow, mode, bandwidth, latency,
                                                            word_bits, words, nm):
    ifmap, filters, ofmap = (BufferSpec(size=w * word_bits // 8) for w in words)
    arch = ArchSpec(name="t", family="systolic", word_bits=word_bits,
                    dram=DramSpec(bandwidth_mode=mode, bandwidth=bandwidth, latency=latency),
                    systolic=SystolicSpec(rows=rows, cols=cols, dataflow=dataflow, ifmap_sram=ifmap,
                                          filter_sram=filters, ofmap_sram=ofmap, nm_sparsity=nm and dataflow == "ws"))
    assert simulate_layer_reference(arch, layer) == simulate_layer(arch, layer)
