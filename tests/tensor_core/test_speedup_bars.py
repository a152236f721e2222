"""The issue's bars: 2x math on a compute-bound GEMM; GEMV bandwidth-bound with no real speed-up;
and what the model says about where real 2:4 speed-ups go."""
import dataclasses

import pytest

from accel_sim import load_arch
from accel_sim.studies.ampere_2to4_gemv import TWO_FOUR
from accel_sim.models.tensor_core.family import FAMILY
from accel_sim.foundations.workload import GemmLayer

BIG = 8192


def gemm_counters(arch, m: int, n: int, k: int, sparse: bool):
    """One GEMM (output m x n = input m x k @ weights k x n), the weights 2:4 when ``sparse``: its counters."""
    return FAMILY.counters(arch, GemmLayer("gemm", m=m, k=k, n=n, weight_sparsity=TWO_FOUR if sparse else None))[1]


@pytest.fixture(scope="module")
def arch():
    return load_arch("ampere_a100")


def test_compute_bound_gemm_gets_twice_the_math(arch):
    plan, dense = FAMILY.counters(arch, GemmLayer("g", m=BIG, k=BIG, n=BIG))
    assert dense.bound == "math"
    # the same tile both ways: the tensor cores are busy half as long with 2:4 weights
    tile = (plan.kernels[dense.kernel],)
    one_kernel = dataclasses.replace(arch, tensor_core=dataclasses.replace(arch.tensor_core, kernels=tile,
                                                                           sparse_kernels=tile))
    sparse = gemm_counters(one_kernel, BIG, BIG, BIG, sparse=True)
    assert dense.math_busy_cycles / sparse.math_busy_cycles == pytest.approx(2.0, abs=0.05)


def test_large_gemm_speedup_is_limited_by_the_dense_operand_path(arch):
    dense, sparse = gemm_counters(arch, BIG, BIG, BIG, sparse=False), gemm_counters(arch, BIG, BIG, BIG, sparse=True)
    speedup = dense.cycles / sparse.cycles
    assert 1.3 < speedup < 1.95
    assert sparse.bound == "shared_memory"   # math halved; B's fills and ldmatrix reads did not
    assert sparse.shared_memory_busy_cycles > sparse.math_busy_cycles


def test_gemv_is_bandwidth_bound_with_no_real_speedup(arch):
    # one output feature: the big matrix is the dense operand, which 2:4 weights do not shrink
    dense, sparse = gemm_counters(arch, BIG, 1, BIG, sparse=False), gemm_counters(arch, BIG, 1, BIG, sparse=True)
    assert dense.bound in ("dram", "l2") and sparse.bound in ("dram", "l2")
    assert dense.cycles / sparse.cycles < 1.2


def test_batch1_gemv_gains_at_most_the_footprint_ratio(arch):
    # batch 1, the 2:4 weights are the matrix: DRAM-bound, bits 16+2 per kept value of 2 in 4
    dense, sparse = gemm_counters(arch, 1, BIG, BIG, sparse=False), gemm_counters(arch, 1, BIG, BIG, sparse=True)
    assert sparse.bound == "dram"
    assert 1.5 < dense.cycles / sparse.cycles <= 64 / 36


def test_tiny_gemm_is_latency_bound_and_gains_nothing(arch):
    dense, sparse = gemm_counters(arch, 16, 16, 16, sparse=False), gemm_counters(arch, 16, 16, 16, sparse=True)
    assert sparse.bound == "latency" and dense.cycles / sparse.cycles < 1.05


def test_dense_only_arch_gives_no_speedup():
    arch = load_arch("ampere_a100_dense")
    assert gemm_counters(arch, 1024, 1024, 1024, sparse=True).cycles == gemm_counters(arch, 1024, 1024, 1024, sparse=False).cycles


def test_kernel_choice_picks_small_tiles_for_batch_one(arch):
    plan, run = FAMILY.counters(arch, GemmLayer("g", m=1, k=4096, n=4096, weight_sparsity=TWO_FOUR))
    assert plan.kernels[run.kernel].n <= 16


def test_sparse_runs_choose_from_cutlass_sparse_tiles(arch):
    # dense layers choose from `kernels`, 2:4 layers from `sparse_kernels` (CUTLASS's SparseGemm tiles)
    spec = arch.tensor_core
    dense_plan = FAMILY.plan(arch, GemmLayer("g", m=64, k=4096, n=4096))
    sparse_plan = FAMILY.plan(arch, GemmLayer("g", m=64, k=4096, n=4096, weight_sparsity=TWO_FOUR))
    assert dense_plan.kernels == spec.kernels and sparse_plan.kernels == spec.sparse_kernels
    assert min(t.n for t in spec.sparse_kernels) == 16 > min(t.n for t in spec.kernels)
    # no sparse tile shorter than 64 rows: one output feature at batch 1 pads it and is slower sparse
    dense, sparse = gemm_counters(arch, 1, 1, 4096, sparse=False), gemm_counters(arch, 1, 1, 4096, sparse=True)
    # kernel times without the launch gap both runs pay (kernel_launch_cycles): the padded sparse kernel is slower
    launch = spec.kernel_launch_cycles
    assert sparse.bound == "math" and (dense.cycles - launch) / (sparse.cycles - launch) < 0.6


def test_cutlass_128x128_sparse_tile_is_l2_bound_at_the_measured_l2_rate():
    # PyTorch's one CUTLASS sparse kernel (128x128x64) streams 25.6 KB per CTA per 64-K stage from L2 at twice the
    # math rate: 108 CTAs want 5400 B/clk, above the A100's sustained 3837.5 (gpu-benches); the dense baseline's
    # 128x256x64 tile wants about 2600 and stays math-bound; the 256x128x64 sparse tile (about 3670) is not L2-bound
    cutlass = load_arch("ampere_a100_cutlass_sparse")
    assert cutlass.tensor_core.l2_bandwidth == pytest.approx(3837.5)
    sparse = gemm_counters(cutlass, 4096, 4096, 4096, sparse=True)
    dense = gemm_counters(load_arch("ampere_a100_dense"), 4096, 4096, 4096, sparse=False)
    best = gemm_counters(load_arch("ampere_a100"), 4096, 4096, 4096, sparse=True)
    assert sparse.bound == "l2" and dense.bound == "math" and best.bound == "shared_memory"
    assert 1.3 < dense.cycles / sparse.cycles < 1.5 < dense.cycles / best.cycles
