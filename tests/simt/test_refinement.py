"""SIMT refinement: the fast path and the SimPy reference agree on every counter, on generated
operands and configs covering every kernel and spec switch (transpose, swizzle, tiles, vector width,
merge shares, blocks, CSB beta, CTA size, registers, SMs, latencies, every bandwidth, L2 size, the
SM-shared L1 and its size, the L2 slices and their atomic units' turn), and under the max_cycles guard."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.foundations.errors import SimulationError
from accel_sim.models.simt.family import FAMILY
from accel_sim.models.simt.spec import SgemmTile
from accel_sim.foundations.workload import ConvLayer, GemmLayer, NMSparsity
from tests.simt.archs import simt

SPARSE = ("csr_scalar", "csr_vector", "sputnik", "merge", "csb", "sparsert", "csb_spmm", "merge_spmv")


@st.composite
def cases(draw):
    kernel = draw(st.sampled_from(SPARSE + ("dense_simt", "dense_tensor_core", "bsr", "nm_tensor_core", "sparsert_conv")))
    block = draw(st.sampled_from([8, 16]))
    tc = dict(sms=draw(st.integers(1, 6)), memory_latency=draw(st.sampled_from([0, 37, 400])),
              shared_memory_bandwidth=draw(st.sampled_from([32.0, 128.0])),
              l2_to_sm_bandwidth=draw(st.sampled_from([7.5, 64.0])), l2_bandwidth=draw(st.sampled_from([50.0, 5120.0])),
              dram_bandwidth=draw(st.sampled_from([3.3, 1102.8])), l2_size=draw(st.sampled_from([2048, 40 * 2**20])))
    arch = simt(tc, kernel=kernel, transpose=kernel in ("csr_scalar", "csr_vector", "csb") and draw(st.booleans()),
                threads_per_cta=draw(st.sampled_from([32, 64, 128])), registers_per_thread=draw(st.sampled_from([32, 255])),
                row_swizzle=draw(st.booleans()), tile_n=draw(st.sampled_from([8, 16, 64])),
                vector_width=draw(st.sampled_from([1, 2, 4])), merge_items_per_thread=draw(st.integers(1, 4)),
                csb_beta=draw(st.sampled_from([0, 4, 16])), block=block, bsr_tile_n=draw(st.sampled_from([16, 64])),
                l2_latency=draw(st.sampled_from([0, 193])), loop_overhead_instructions=draw(st.integers(0, 3)),
                sgemm_tiles=(SgemmTile(32, 32, 8, 32, 32), SgemmTile(64, 32, 8, 32, 32)),
                sparsert_rows=draw(st.sampled_from([(1,), (8, 3), (2, 32)])),
                sparsert_tile_n=draw(st.sampled_from([(64,), (8, 40), (33, 128)])),
                instruction_bytes=draw(st.sampled_from([8, 16])),
                sm_l1_kernels=draw(st.sampled_from([(), ("sparsert", "sputnik", "merge", "sparsert_conv", "csb_spmm")])),
                csb_balance=draw(st.booleans()), reverse_offset_alignment=draw(st.booleans()),
                l1_shared_memory_bytes=draw(st.sampled_from([512, 192 * 1024])),
                shared_memory_carveouts=draw(st.sampled_from([(0, 256), (0, 384, 512)])),
                l2_slices=draw(st.sampled_from([1, 3, 160])), l2_atomic_cycles=draw(st.sampled_from([1, 7, 300])),
                l2_ways=draw(st.sampled_from([0, 2, 16])))
    density = draw(st.sampled_from([0.05, 0.3, 1.0]))
    if kernel == "nm_tensor_core":
        return arch, GemmLayer("gemm", m=draw(st.integers(1, 40)), k=4 * draw(st.integers(1, 12)),
                               n=draw(st.integers(1, 40)), weight_sparsity=NMSparsity(2, 4))
    if kernel == "bsr":
        return arch, GemmLayer("gemm", m=draw(st.integers(1, 40)), k=block * draw(st.integers(1, 4)),
                               n=block * draw(st.integers(1, 4)), weight_density=density)
    if kernel != "sparsert_conv" and draw(st.booleans()):
        m = draw(st.integers(1, 3)) if kernel in ("csr_scalar", "csr_vector", "csb", "merge_spmv") else draw(st.integers(1, 70))
        return arch, GemmLayer("gemm", m=m, k=draw(st.integers(1, 90)), n=draw(st.integers(1, 90)),
                               weight_density=density)
    groups = 1 if kernel == "sparsert_conv" else draw(st.integers(1, 2))
    pad = draw(st.integers(0, 1)) if kernel == "sparsert_conv" else 0
    return arch, ConvLayer("conv", in_h=draw(st.integers(3, 5)), in_w=draw(st.integers(3 if kernel == "sparsert_conv" else 2, 5)),
                           in_channels=2 * groups,
                           out_channels=groups * draw(st.integers(1, 8)), kernel_h=draw(st.integers(1, 3)),
                           kernel_w=draw(st.integers(1, 3)) if kernel == "sparsert_conv" else 1, groups=groups,
                           stride_w=draw(st.integers(1, 2)) if kernel == "sparsert_conv" else 1,
                           pad_top=pad, pad_bottom=pad, pad_left=pad, pad_right=pad, weight_density=density)


@settings(derandomize=True, max_examples=120, deadline=None)
@given(cases())
def test_fast_and_reference_agree_on_every_counter(case):
    arch, layer = case
    assert FAMILY.refinement(arch, layer) == []
    plan, counters = FAMILY.counters(arch, layer)
    assert all(type(v) is int for v in counters.as_dict().values())      # counters are integers (the contract)
    s = plan.candidates[counters.candidate].schedule
    cta, serial = s.atomic_cta, s.atomic_serial
    assert counters.atomics == (0 if cta is None else cta.size)     # every atomic request listed
    assert cta is None or (serial >= 1).all()


@pytest.mark.parametrize("kernel", SPARSE + ("dense_simt", "bsr"))
def test_max_cycles_guard_raises_on_both_paths(kernel):
    arch = simt({"sms": 2}, kernel=kernel, block=8)
    layer = GemmLayer("gemm", m=1 if kernel in ("csr_scalar", "csr_vector", "csb") else 16, k=32, n=32,
                      weight_density=0.5)
    plan, counters = FAMILY.counters(arch, layer)
    for path in (FAMILY.fast, FAMILY.reference):
        assert path(plan, counters.cycles) == counters
        with pytest.raises(SimulationError, match="max_cycles"):
            path(plan, counters.cycles - 1)
