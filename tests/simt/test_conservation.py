"""SIMT conservation laws on the shipped A100 (fast path): products never exceed the dense layer,
CSR-family kernels multiply exactly the non-zeros, cycles are at least every throughput bound
(DRAM, L2, the SMs' issue, each CTA's chain, the busiest L2 slice's atomic unit), DRAM moves at least the
compressed footprint, every atomic request is one sector of L2 traffic and at least one atomic-unit turn."""
from __future__ import annotations

import math

import numpy as np
import pytest

from accel_sim.models.simt.family import FAMILY
from accel_sim.foundations.workload import ConvLayer, GemmLayer, NMSparsity
from tests.simt.archs import simt

LAYERS = (GemmLayer("fc", m=8, k=256, n=128, weight_density=0.1),
          ConvLayer("conv", in_h=8, in_w=8, in_channels=16, out_channels=32, kernel_h=3, kernel_w=3, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1,
                    weight_density=0.3))


@pytest.mark.parametrize("kernel", ["dense_simt", "dense_tensor_core", "csr_scalar", "csr_vector", "sputnik", "merge",
                                    "csb", "bsr", "sparsert", "dense_gemv"])
@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.name)
@pytest.mark.parametrize("transpose", [False, True])
def test_laws(kernel, layer, transpose):
    if transpose and kernel not in ("csr_scalar", "csr_vector", "csb"):
        pytest.skip("only the CSR and CSB kernels run A^T x")
    arch = simt(kernel=kernel, block=16, transpose=transpose)
    plan, c = FAMILY.counters(arch, layer)
    result = FAMILY.account(plan, c)
    m = plan.machine
    nnz = plan.problem.nnz if kernel not in ("dense_simt", "dense_tensor_core", "bsr", "dense_gemv") else None
    assert result.macs_issued <= result.macs_dense
    if nnz is not None:
        assert result.macs_issued == nnz * plan.problem.n == c.fmas
    assert c.cycles >= math.ceil((c.dram_read_bytes + c.dram_write_bytes) / m.dram_bandwidth)
    assert c.cycles >= math.ceil(c.l2_sectors * m.sector / m.l2_bandwidth)
    assert c.cycles >= c.issue_slots / (m.sms * m.schedulers)
    assert c.cycles * c.ctas >= c.latency_cycles                   # no CTA is shorter than its slowest warp
    assert c.cta_cycles >= max(c.latency_cycles, c.issue_cycles, c.l1_cycles, c.l2_port_cycles)
    values = nnz if nnz is not None else 0
    assert c.dram_read_bytes >= values * plan.problem.value_bytes
    assert result.cycles == result.compute_cycles + result.stall_cycles
    cand = plan.candidates[c.candidate]
    s = cand.schedule
    listed = s.atomic_cta
    assert c.atomics == (0 if listed is None else listed.size)                  # every request listed once
    assert int(cand.atomic_cycles.sum()) >= c.atomics * m.l2_atomic_cycles      # a turn per request at least
    busiest = np.bincount(cand.atomic_slice, weights=cand.atomic_cycles, minlength=m.l2_slices).max()
    assert c.cycles >= c.atomic_cycles >= busiest
    assert c.l2_sectors >= c.atomics                                             # each request crosses to L2


def test_two_four_halves_the_stored_products():
    layer = GemmLayer("fc", m=64, k=256, n=128, weight_sparsity=NMSparsity(2, 4))
    result = FAMILY.layer_result(simt(kernel="nm_tensor_core"), layer)
    assert 2 * result.macs_issued == result.macs_dense
