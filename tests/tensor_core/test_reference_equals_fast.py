"""The per-stage SimPy reference and the fast path give identical cycles, path times and counts."""
import dataclasses
from types import MappingProxyType

from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim import load_arch
from accel_sim.tensor_core.model import simulate_layer, simulate_layer_reference
from accel_sim.tensor_core.problem import TCProblem
from accel_sim.tensor_core.reference import reference_kernel_timing
from accel_sim.tensor_core.spec import KernelTile, TensorCoreSpec
from accel_sim.tensor_core.timing import kernel_timing
from accel_sim.workload import ConvLayer, GemmLayer, NMSparsity

TILES = (KernelTile(128, 256, 64, 64, 64), KernelTile(128, 128, 32, 64, 64), KernelTile(64, 64, 64, 32, 32),
         KernelTile(128, 16, 64, 32, 16), KernelTile(64, 8, 128, 16, 8), KernelTile(32, 24, 96, 16, 8))


def _fields(run):
    return (run.cycles, run.compute_cycles, dict(run.busy), dict(run.totals), run.waves, run.ctas, run.l2_resident,
            run.bound)


# Few SMs (many waves, a last partial wave), tiny L2 (panels streamed per wave) or a large one
# (read once), latencies, bandwidths that make each path the limiter in turn, 8/16/32-bit words.
@settings(max_examples=150, deadline=None)
@given(m=st.integers(1, 300), n=st.integers(1, 300), k=st.integers(1, 400), groups=st.integers(1, 3),
       word_bits=st.sampled_from([8, 16, 32]), sparse=st.booleans(), tile=st.sampled_from(TILES),
       sms=st.integers(1, 9), l2_kib=st.sampled_from([1, 64, 40 * 1024]), latency=st.sampled_from([0, 7, 400]),
       dram=st.sampled_from([3.5, 64.0, 1102.8]), smem=st.sampled_from([16.0, 128.0]), rf=st.sampled_from([50.0, 200.0]))
def test_kernel_reference_equals_fast(m, n, k, groups, word_bits, sparse, tile, sms, l2_kib, latency, dram, smem, rf):
    nm = (1, 2) if word_bits == 32 else (2, 4)
    spec = TensorCoreSpec(sms=sms, l2_size=l2_kib * 1024, dram_bandwidth=dram, shared_memory_bandwidth=smem,
                          register_file_bandwidth=rf, memory_latency=latency, kernels=(tile,))
    problem = TCProblem(m=m, n=n, k=k, groups=groups, word_bits=word_bits, sparse=sparse, nm_n=nm[0], nm_m=nm[1])
    assert _fields(kernel_timing(spec, problem, tile, latency)) == \
        _fields(reference_kernel_timing(spec, problem, tile, latency))


layers = st.one_of(
    st.builds(lambda h, c, k, r, s, batch, nm: ConvLayer("conv", in_h=h, in_w=h, in_channels=4 * c, out_channels=k,
                                                         kernel_h=r, kernel_w=r, stride_h=s, stride_w=s, batch=batch,
                                                         weight_sparsity=nm),
              st.integers(3, 9), st.integers(1, 4), st.integers(1, 40), st.integers(1, 3), st.integers(1, 2),
              st.integers(1, 3), st.sampled_from([None, NMSparsity(2, 4), NMSparsity(1, 4)])),
    st.builds(lambda m, k, n, nm: GemmLayer("gemm", m=m, k=k, n=n, weight_sparsity=nm),
              st.integers(1, 100), st.integers(1, 200), st.integers(1, 100),
              st.sampled_from([None, NMSparsity(2, 4), NMSparsity(1, 2)])),
)


@settings(max_examples=30, deadline=None)
@given(layer=layers, sms=st.sampled_from([4, 16, 108]))
def test_layer_reference_equals_fast(layer, sms):
    arch = load_arch("ampere_a100", {"tensor_core.sms": sms})
    fast, reference = simulate_layer(arch, layer), simulate_layer_reference(arch, layer)
    def fields(result):
        return [dict(value) if isinstance(value, MappingProxyType) else value
                for value in (getattr(result, f.name) for f in dataclasses.fields(result))]
    assert fields(fast) == fields(reference)
