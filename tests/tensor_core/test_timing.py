"""The per-stage behaviour on a case small enough to work out by hand."""
import pytest

from accel_sim.tensor_core.problem import TCProblem
from accel_sim.tensor_core.reference import reference_kernel_timing
from accel_sim.tensor_core.spec import KernelTile, TensorCoreSpec
from accel_sim.tensor_core.timing import kernel_timing

TILE = KernelTile(m=16, n=8, k=32, warp_m=16, warp_n=8)


@pytest.mark.parametrize("timing", [kernel_timing, reference_kernel_timing])
def test_one_cta_two_stages_by_hand(timing):
    # C 16 x 8 = A 16 x 64 (FP16, dense) x B 64 x 8: one CTA, one warp, two stages of K 32.
    spec = TensorCoreSpec(sms=1, kernels=(TILE,))
    problem = TCProblem(m=16, n=8, k=64, groups=1, word_bits=16, sparse=False, nm_n=2, nm_m=4)
    run = timing(spec, problem, TILE, 400)
    # a stage: A 16 x 32 and B 32 x 8 FP16 = 12,288 bits filled, the same read back by the one warp
    load = 24     # max(L2 ceil(1536 B / 5120), SM port ceil(1536 B / 64) = 24, DRAM ceil(1536 B / 1102.8) = 2)
    smem = 24     # (1536 + 1536) B / 128 B per cycle
    compute = 16  # 2 MMAs m16n8k16 x 8 cycles; register file 2 x (A 512 + B 256 + C 512 B) / 208 = 13 cycles overlaps
    epilogue = 4  # C 16 x 8 FP16 = 256 B over the 64 B/cycle SM port
    # stage 1: loaded at 24 + latency 400, through shared memory at 448, math done at 464;
    # stage 2: loaded at 48 + 400 = 448, shared memory 448 -> 472, math 472 -> 488; epilogue -> 492
    assert run.cycles == 400 + load + smem + smem + compute + epilogue == 492   # shared memory is the bottleneck
    assert dict(run.busy) == {"math": 32, "register_file": 26, "shared_memory": 48, "l2": 48, "dram": 4}
    assert run.bound == "latency"   # 492 - 48 > 48: fill and latency dominate
    assert run.compute_cycles == 2 * compute


def test_sparse_stage_covers_twice_the_k_per_mma():
    spec = TensorCoreSpec(sms=1, kernels=(TILE,))
    dense = TCProblem(m=16, n=8, k=64, groups=1, word_bits=16, sparse=False, nm_n=2, nm_m=4)
    sparse = TCProblem(m=16, n=8, k=64, groups=1, word_bits=16, sparse=True, nm_n=2, nm_m=4)
    d, s = kernel_timing(spec, dense, TILE, 0), kernel_timing(spec, sparse, TILE, 0)
    assert d.totals["mmas"] == 4 and s.totals["mmas"] == 2
    assert s.busy["math"] * 2 == d.busy["math"]
    # A: 16 rows x 32 kept slots x (16 + 2) bits instead of 16 x 64 x 16; B unchanged
    assert s.totals["fill_a"] == 16 * 32 and d.totals["fill_a"] == 16 * 64
    assert s.totals["fill_b"] == d.totals["fill_b"] == 64 * 8
