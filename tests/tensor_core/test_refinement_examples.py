"""Tensor-core worked examples: counters derived by hand from the behaviour (docs of ``fast`` and
``reference``), checked on both paths, so a bug in the shared plan fails too. Unless said
otherwise: FP16, one tile 16 x 8 x 32 with one 16 x 8 warp, A100 bandwidths (L2 5120, SM port 64,
DRAM 1102.8, shared memory 128, register file 208 B/clk), MMA m16n8k16 = 8 cycles."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from accel_sim.foundations.errors import InputError
from accel_sim.models.tensor_core.family import FAMILY
from accel_sim.models.tensor_core.plan.mma import cycles_per_mma, k_span_per_mma, mma_bits, mma_read_bits, mmas_per_warp
from accel_sim.models.tensor_core.plan.problem import TCProblem, element_bits, footprint_bits
from accel_sim.models.tensor_core.plan.sparsity import guarantees
from accel_sim.models.tensor_core.plan.tiling import fits_shared_memory, stage_fill_bits
from accel_sim.models.tensor_core.spec import KernelTile
from accel_sim.foundations.workload import ConvLayer, GemmLayer, NMSparsity
from accel_sim.foundations.workload.layer import OperandSource
from tests.tensor_core.archs import a100

TILE = KernelTile(m=16, n=8, k=32, warp_m=16, warp_n=8)
PATHS = [FAMILY.fast, FAMILY.reference]


def counts(arch, layer, count) -> dict:
    return count(FAMILY.plan(arch, layer), None).as_dict()


@pytest.mark.parametrize("count", PATHS)
def test_one_cta_two_stages(count):
    # C 16 x 8 = A 16 x 64 x B 64 x 8 (layer m 8, k 64, n 16): one CTA, two stages of K 32.
    # A stage: A 16 x 32 + B 32 x 8 FP16 = 1536 B filled, the same read back by the one warp.
    # load 24 = max(L2 1536 / 5120 -> 1, port 1536 / 64 = 24, DRAM 1536 / 1102.8 -> 2)
    # shared memory 24 = fill 1536 / 128 = 12 + reads 12; math 16 = 2 MMAs x 8; register file 13 = 2 x (A 512
    # + B 256 + C 512 B) / 208. Stage 1 starts landing at 400 and has landed at 424 (the fill, 12, keeps up
    # with it), reads 424 -> 436, math -> 452; stage 2 lands 424 .. 448, its fill waits for stage 1's reads
    # (436 -> 448), reads 448 -> 460, math 460 -> 476; epilogue C 256 B / 64 = 4 -> 480
    result = counts(a100(sms=1, kernels=(TILE,)), GemmLayer("g", m=8, k=64, n=16), count)
    assert result == dict(kernel=0, cycles=480, compute_cycles=32, math_busy_cycles=32, register_file_busy_cycles=26,
                          shared_memory_busy_cycles=48, l2_busy_cycles=48, dram_busy_cycles=4, waves=1, ctas=1,
                          dram_a=1024, dram_b=512, fill_a=1024, fill_b=512, read_a=1024, read_b=512, mmas=4, c=128, partial=0, split=1)


@pytest.mark.parametrize("count", PATHS)
def test_one_stage_fill_overlaps_its_arrival(count):
    # cp.async writes shared memory as the bytes land; only the ldmatrix reads wait for the whole stage.
    # C 16 x 8, K 32: one stage of 1536 B: load 24 (port), fill 1536 / 128 = 12, reads 12, math 16.
    # The stage lands 400 .. 424; its fill (12 cycles' work at 64 B/clk of arrivals) ends when the
    # last bytes land, 424; reads 424 -> 436 (not 400 + 24 + 24 = 448); math -> 452; epilogue 4 -> 456.
    result = counts(a100(sms=1, kernels=(TILE,)), GemmLayer("g", m=8, k=32, n=16), count)
    assert result == dict(kernel=0, cycles=456, compute_cycles=16, math_busy_cycles=16, register_file_busy_cycles=13,
                          shared_memory_busy_cycles=24, l2_busy_cycles=24, dram_busy_cycles=2, waves=1, ctas=1,
                          dram_a=512, dram_b=256, fill_a=512, fill_b=256, read_a=512, read_b=256, mmas=2, c=128,
                          partial=0, split=1)


@pytest.mark.parametrize("count", PATHS)
def test_three_stages_fill_waits_for_the_port(count):
    # K 96, latency 10, shared memory 96 B/clk: per stage load 24, fill 1536 / 96 = 16, reads 16,
    # math 16. Stage 1 lands 10 .. 34: fill 10 -> 26 held to the arrival, ends 34; reads -> 50;
    # math -> 66. Stage 2 lands 34 .. 58 but the port reads stage 1 until 50: fill 50 -> 66, reads
    # 66 -> 82; math -> 98. Stage 3 lands 58 .. 82: fill 82 -> 98, reads -> 114; math -> 130;
    # epilogue 4 -> 134 (with the fill after the arrival: 34 + 32 = 66, 98, 130, math 146, 150).
    arch = a100(sms=1, kernels=(TILE,), memory_latency=10, shared_memory_bandwidth=96.0)
    result = counts(arch, GemmLayer("g", m=8, k=96, n=16), count)
    assert result == dict(kernel=0, cycles=134, compute_cycles=48, math_busy_cycles=48, register_file_busy_cycles=39,
                          shared_memory_busy_cycles=96, l2_busy_cycles=72, dram_busy_cycles=6, waves=1, ctas=1,
                          dram_a=1536, dram_b=768, fill_a=1536, fill_b=768, read_a=1536, read_b=768, mmas=6, c=128,
                          partial=0, split=1)


@pytest.mark.parametrize("count", PATHS)
@pytest.mark.parametrize("latency, bound", [(16, "shared_memory"), (17, "latency")])
def test_latency_bound_once_fill_and_epilogue_exceed_the_busiest_path(count, latency, bound):
    # the CTA above takes latency + 80 cycles; shared memory (and L2) are busy 48: latency 16 gives
    # 96 = 2 x 48, not yet latency-bound (shared memory comes before L2 among equals)
    result = count(FAMILY.plan(a100(sms=1, kernels=(TILE,), memory_latency=latency), GemmLayer("g", m=8, k=64, n=16)),
                   None)
    assert (result.cycles, result.bound) == (latency + 80, bound)


@pytest.mark.parametrize("count", PATHS)
def test_ten_stages_shared_memory_bound(count):
    # the same CTA over K 320 without latency: shared memory (24 per stage: fill 12 + reads 12)
    # limits: stage 1 lands 0 .. 24, its fill keeping up, reads -> 36; then fill and reads back to
    # back: the last stage leaves at 36 + 9 x 24 = 252, math 16 more, epilogue 4
    arch = a100(sms=1, kernels=(TILE,), memory_latency=0)
    plan = FAMILY.plan(arch, GemmLayer("g", m=8, k=320, n=16))
    result = count(plan, None)
    assert result.as_dict() == dict(
        kernel=0, cycles=272, compute_cycles=160, math_busy_cycles=160, register_file_busy_cycles=130,
        shared_memory_busy_cycles=240, l2_busy_cycles=240, dram_busy_cycles=20, waves=1, ctas=1, dram_a=5120,
        dram_b=2560, fill_a=5120, fill_b=2560, read_a=5120, read_b=2560, mmas=20, c=128, partial=0, split=1)
    assert result.bound == "shared_memory"


@pytest.mark.parametrize("count", PATHS)
def test_eight_stages_math_bound(count):
    # fast ports and shared memory: load 2 (port 1536 / 1000 -> 2, DRAM 2), shared memory 4
    # (fill 2 + reads 2), math 16 per stage: stage 1 lands 0 .. 2 with its fill, reads -> 4; the
    # tensor cores run back to back from cycle 4: 4 + 8 x 16 = 132, epilogue 256 / 1000 -> 1
    arch = a100(sms=1, kernels=(TILE,), memory_latency=0, shared_memory_bandwidth=1000.0, l2_to_sm_bandwidth=1000.0)
    result = count(FAMILY.plan(arch, GemmLayer("g", m=8, k=256, n=16)), None)
    assert (result.cycles, result.math_busy_cycles, result.register_file_busy_cycles, result.shared_memory_busy_cycles,
            result.l2_busy_cycles, result.dram_busy_cycles) == (133, 128, 104, 32, 16, 16)
    assert result.bound == "math"


@pytest.mark.parametrize("count", PATHS)
def test_dram_bound(count):
    # DRAM at 16 B/clk: 1536 / 16 = 96 per stage; stage 1 landed at 96 (fill 12 kept up), reads
    # -> 108, math -> 124; stage 2 landed at 192, reads -> 204, math -> 220, epilogue 4
    arch = a100(sms=1, kernels=(TILE,), memory_latency=0, dram_bandwidth=16.0)
    result = count(FAMILY.plan(arch, GemmLayer("g", m=8, k=64, n=16)), None)
    assert (result.cycles, result.dram_busy_cycles, result.l2_busy_cycles) == (224, 192, 48)
    assert result.bound == "dram"


# C 32 x 12 (layer m 12, k 32, n 32) on 2 SMs: CTAs (launch order, tile row fastest) 16 x 8, 16 x 8,
# 16 x 4, 16 x 4 in two waves. A, B: 32 x 32 x 2 B + 32 x 12 x 2 B = 2816 B together.
# Wave 1: each CTA fills 1536 B: load = port 24; DRAM A panels 0, 1 and B panel 0 = 2560 B -> 3;
# shared memory 24 (fill 12, kept up with the arrival, + reads 12); math 16; epilogue 256 B per
# SM -> 4: 400 + 24 + 12 + 16 + 4 = 456.
# Wave 2: each fills 1280 B: port 20; DRAM B panel 1 = 256 B -> 1 (A panels again when A and B
# do not fit the L2: 2304 B -> 3); shared memory 20 (fill 10 + reads 10); math 16 (the warp
# computes its padding); epilogue 128 B -> 2: 400 + 20 + 10 + 16 + 2 = 448.
TWO_WAVES = GemmLayer("g", m=12, k=32, n=32)
TWO_WAVES_COUNTS = dict(kernel=0, cycles=904, compute_cycles=32, math_busy_cycles=32, register_file_busy_cycles=26,
                        shared_memory_busy_cycles=44, l2_busy_cycles=44, waves=2, ctas=4, dram_b=384, fill_a=2048,
                        fill_b=768, read_a=2048, read_b=768, mmas=8, c=384, partial=0, split=1)


@pytest.mark.parametrize("count", PATHS)
@pytest.mark.parametrize("l2_size, dram_busy, dram_a", [(2816, 4, 1024), (2815, 6, 2048)])
def test_two_waves_read_each_panel_once_when_the_operands_fit_l2(count, l2_size, dram_busy, dram_a):
    arch = a100(sms=2, kernels=(TILE,), l2_size=l2_size)
    assert FAMILY.plan(arch, TWO_WAVES).l2_resident == (l2_size == 2816)
    assert counts(arch, TWO_WAVES, count) == dict(TWO_WAVES_COUNTS, dram_busy_cycles=dram_busy, dram_a=dram_a)


@pytest.mark.parametrize("count", PATHS)
@pytest.mark.parametrize("l2_size, dram_busy, dram_a", [(3328, 5, 1024), (3327, 9, 3072)])
def test_three_waves_reread_a_each_wave_when_the_operands_do_not_fit_l2(count, l2_size, dram_busy, dram_a):
    # C 32 x 20: three waves of two CTAs (16 x 8, 16 x 8, 16 x 4 wide), each wave both A panels and
    # one B panel; A and B: 2048 + 1280 = 3328 B. DRAM per wave 3 (A and B 8 columns: 2560 B), or
    # 1 once A is in the L2 (512 B); loads stay port-bound: 456 + 456 + 448 cycles
    arch = a100(sms=2, kernels=(TILE,), l2_size=l2_size)
    result = counts(arch, GemmLayer("g", m=20, k=32, n=32), count)
    assert (result["cycles"], result["waves"], result["dram_busy_cycles"], result["dram_a"], result["dram_b"]) == \
        (1360, 3, dram_busy, dram_a, 20 * 32)


@pytest.mark.parametrize("count", PATHS)
def test_two_four_stage_with_a_ragged_k(count):
    # C 16 x 8, K 70, A 2:4 (FP16 + 2 metadata bits per kept value), one 16 x 8 x 64 tile.
    # Stage 1 (K 64): A 16 x 32 slots x 18 + B 64 x 8 x 16 bits = 2176 B: port 34, DRAM 2; shared
    # memory fill 2176 / 128 = 17 + reads 17; 2 sparse MMAs (K 32 each): math 16, register file
    # 2 x 1600 / 208 -> 16. Stage 2 (K 6): 4 slots per row: 16 x 4 x 18 + 6 x 8 x 16 bits = 240 B:
    # port 4, DRAM 1, shared memory fill 2 + reads 2; 1 MMA: math 8, register file 1600 / 208 -> 8.
    # Stage 1 lands 400 .. 434 (fill kept up), reads -> 451, math -> 467; stage 2 lands 434 .. 438,
    # fill 451 -> 453, reads -> 455; math 467 -> 475; epilogue 4.
    arch = a100(sms=1, kernels=(KernelTile(16, 8, 64, 16, 8),))
    result = counts(arch, GemmLayer("g", m=8, k=70, n=16, weight_sparsity=NMSparsity(2, 4)), count)
    assert result == dict(kernel=0, cycles=479, compute_cycles=24, math_busy_cycles=24, register_file_busy_cycles=24,
                          shared_memory_busy_cycles=38, l2_busy_cycles=38, dram_busy_cycles=3, waves=1, ctas=1,
                          dram_a=576, dram_b=560, fill_a=576, fill_b=560, read_a=576, read_b=560, mmas=3, c=128, partial=0, split=1)


@pytest.mark.parametrize("count", PATHS)
@pytest.mark.parametrize("tensor_cores, math, register_file, cycles", [(3, 48, 37, 256), (4, 32, 25, 240)])
def test_warps_spread_round_robin_over_the_tensor_cores(count, tensor_cores, math, register_file, cycles):
    # C 64 x 16 (layer m 16, n 64), K 32, one 64 x 16 tile of eight 16 x 8 warps: 2 MMAs per warp.
    # 3 tensor cores: the busiest has 3 warps = 6 MMAs = 48 cycles, register file 6 x 1280 / 208 -> 37;
    # 4: 2 warps = 32 cycles, 2560 ... 5120 / 208 -> 25. Load: 5120 B over the port = 80; shared
    # memory: fill 5120 B + reads (2 warp columns x A 64 x 32 + 4 warp rows x B 32 x 16) x 2 B
    # = 17408 B / 128 = 136 (fill 40, kept up with the arrival, + reads 96): out at 80 + 96 = 176;
    # epilogue 2048 B / 64 = 32. No latency.
    arch = a100(sms=1, tensor_cores_per_sm=tensor_cores, memory_latency=0, kernels=(KernelTile(64, 16, 32, 16, 8),))
    result = counts(arch, GemmLayer("g", m=16, k=32, n=64), count)
    assert result == dict(kernel=0, cycles=cycles, compute_cycles=math, math_busy_cycles=math,
                          register_file_busy_cycles=register_file, shared_memory_busy_cycles=136, l2_busy_cycles=80,
                          dram_busy_cycles=5, waves=1, ctas=1, dram_a=2048, dram_b=512, fill_a=2048, fill_b=512,
                          read_a=4096, read_b=2048, mmas=16, c=1024, partial=0, split=1)


@pytest.mark.parametrize("count", PATHS)
def test_warps_rereading_shared_memory_limit_four_stages(count):
    # the 64 x 16 tile above over K 128 on 4 tensor cores: per stage load 80, shared memory 136,
    # math 32: stage 1 lands at 80 (its fill kept up), reads -> 176, then shared memory runs back
    # to back to 176 + 3 x 136 = 584, math 32 more, epilogue 32
    arch = a100(sms=1, memory_latency=0, kernels=(KernelTile(64, 16, 32, 16, 8),))
    result = count(FAMILY.plan(arch, GemmLayer("g", m=16, k=128, n=64)), None)
    assert (result.cycles, result.shared_memory_busy_cycles, result.l2_busy_cycles, result.math_busy_cycles,
            result.register_file_busy_cycles, result.dram_busy_cycles) == (648, 544, 320, 128, 100, 20)
    assert result.bound == "shared_memory"


@pytest.mark.parametrize("count", PATHS)
def test_warps_in_padding_read_nothing(count):
    # C 20 x 4 on a 32 x 16 tile of 16 x 8 warps: rows 16 + 4, columns 4: only the two warps of
    # the first warp column hold outputs; each reads its 16 / 4 A rows and the 4 B columns
    arch = a100(sms=1, kernels=(KernelTile(32, 16, 32, 16, 8),))
    result = counts(arch, GemmLayer("g", m=4, k=32, n=20), count)
    assert (result["read_a"], result["read_b"], result["fill_a"], result["fill_b"]) == (20 * 32, 8 * 32, 20 * 32,
                                                                                          4 * 32)
    assert result["mmas"] == 4 * 2   # every warp computes its full tile: 4 warps x 2 MMAs


@pytest.mark.parametrize("count", PATHS)
def test_the_fastest_kernel_runs_and_ties_keep_the_first(count):
    # C 64 x 64, K 128 on 4 SMs: 4224 cycles on 16 x 8 tiles (32 CTAs in 8 waves), 1680 on one 64 x 64 tile
    slow, fast = KernelTile(16, 8, 32, 16, 8), KernelTile(64, 64, 64, 32, 32)
    layer = GemmLayer("g", m=64, k=128, n=64)
    for kernels, chosen in (((slow, fast), 1), ((fast, slow), 0), ((fast, fast), 0)):
        result = count(FAMILY.plan(a100(sms=4, kernels=kernels), layer), None)
        assert (result.kernel, result.cycles) == (chosen, 1680)


def test_kernels_need_whole_mmas_per_stage_and_must_fit_shared_memory():
    # sparse FP16: an MMA covers K 32, so a stage of K 16 is not whole MMAs
    k16, k32 = KernelTile(16, 8, 16, 16, 8), KernelTile(16, 8, 32, 16, 8)
    sparse = GemmLayer("g", m=8, k=64, n=16, weight_sparsity=NMSparsity(2, 4))
    assert FAMILY.plan(a100(kernels=(k16, k32)), sparse).kernels == (k32,)
    assert FAMILY.plan(a100(kernels=(k16, k32)), GemmLayer("g", m=8, k=64, n=16)).kernels == (k16, k32)
    # 3 stages of A 16 x 32 + B 32 x 8 FP16 = 3 x 1536 B
    assert FAMILY.plan(a100(kernels=(k16, k32), shared_memory_size=4608), GemmLayer("d", m=8, k=64, n=16)).kernels \
        == (k16, k32)
    assert FAMILY.plan(a100(kernels=(k16, k32), shared_memory_size=4607), GemmLayer("d", m=8, k=64, n=16)).kernels \
        == (k16,)
    with pytest.raises(InputError, match="no kernel fits shared memory"):
        FAMILY.plan(a100(kernels=(k16,)), sparse)


def test_cta_grid_launch_order_with_groups():
    # grouped conv: 2 groups of C 20 x 12 (10 filters... 20 per group) on 16 x 8 tiles: 2 x 2 tiles per group
    layer = ConvLayer("c", in_h=2, in_w=6, in_channels=4, out_channels=40, kernel_h=1, kernel_w=1, groups=2)
    plan = FAMILY.plan(a100(kernels=(TILE,)), layer)
    grid = plan.grids[0]
    assert (plan.problem.m, plan.problem.n, plan.problem.k, plan.problem.groups) == (20, 12, 2, 2)
    assert grid.rows.tolist() == [16, 4, 16, 4, 16, 4, 16, 4]
    assert grid.cols.tolist() == [8, 8, 4, 4, 8, 8, 4, 4]
    assert grid.row_panel.tolist() == [0, 1, 0, 1, 2, 3, 2, 3]
    assert grid.col_panel.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]


def test_which_layers_run_sparse():
    gemm = {"m": 8, "k": 64, "n": 16}
    assert FAMILY.plan(a100(), GemmLayer("g", **gemm, weight_sparsity=NMSparsity(1, 4))).problem.sparse
    assert not FAMILY.plan(a100(), GemmLayer("g", **gemm)).problem.sparse
    assert not FAMILY.plan(a100(sparse_support=False), GemmLayer("g", **gemm, weight_sparsity=NMSparsity(2, 4))) \
        .problem.sparse
    tf32 = FAMILY.plan(a100(32, mma_k=8), GemmLayer("g", **gemm, weight_sparsity=NMSparsity(1, 2))).problem
    assert tf32.sparse and (tf32.nm_n, tf32.nm_m) == (1, 2)
    assert (FAMILY.plan(a100(8, mma_k=32), GemmLayer("g", **gemm, weight_sparsity=NMSparsity(2, 4))).problem.nm_m) == 4
    with pytest.raises(InputError, match="not guaranteed 1:2"):
        FAMILY.plan(a100(32, mma_k=8), GemmLayer("g", **gemm, weight_sparsity=NMSparsity(2, 4)))


@pytest.mark.parametrize("declared, hardware, expected", [
    ((2, 4), (2, 4), True), ((1, 4), (2, 4), True), ((1, 2), (2, 4), True), ((1, 8), (2, 4), True),
    ((2, 8), (2, 4), True), ((3, 8), (2, 4), False), ((3, 4), (2, 4), False), ((2, 4), (1, 2), False),
    ((2, 3), (2, 4), False), ((4, 8), (2, 4), False), ((1, 2), (1, 2), True), ((2, 16), (2, 4), True),
    ((1, 2), (1, 4), False), ((1, 4), (1, 2), True),
])
def test_declared_patterns_that_guarantee_the_hardware_one(declared, hardware, expected):
    assert guarantees(*declared, *hardware) is expected


def test_problem_widths_and_mma_facts():
    arch = a100()
    spec = arch.tensor_core
    sparse = TCProblem(m=16, n=8, k=70, groups=3, word_bits=16, sparse=True, nm_n=2, nm_m=4)
    dense = TCProblem(m=16, n=8, k=70, groups=3, word_bits=16, sparse=False, nm_n=2, nm_m=4)
    assert [sparse.slots(e) for e in (1, 4, 5, 64, 70)] == [2, 2, 4, 32, 36]
    assert dense.slots(70) == 70
    assert sparse.useful_products_per_row() == 17 * 2 + 2 and dense.useful_products_per_row() == 70
    one_of_four = TCProblem(m=16, n=8, k=7, groups=1, word_bits=16, sparse=True, nm_n=1, nm_m=4)
    assert one_of_four.useful_products_per_row() == 2 and one_of_four.slots(7) == 2
    bits = element_bits(spec, sparse)
    assert (bits.a_value, bits.a_metadata, bits.a_slot, bits.b_value, bits.c_value) == (16, 2, 18, 16, 16)
    assert element_bits(spec, dense).a_slot == 16
    assert footprint_bits(sparse, bits) == 3 * (16 * 36 * 18 + 70 * 8 * 16)
    assert (k_span_per_mma(spec, dense), k_span_per_mma(spec, sparse), k_span_per_mma(spec, one_of_four)) == (16, 32, 64)
    three_of_four = TCProblem(m=16, n=8, k=7, groups=1, word_bits=16, sparse=True, nm_n=3, nm_m=4)
    assert k_span_per_mma(spec, three_of_four) == 21   # whole dense K: 16 x 4 / 3 rounded down
    assert cycles_per_mma(spec, dense) == 8
    assert cycles_per_mma(a100(dense_macs_per_cycle=300).tensor_core, dense) == 7   # 2048 / 300 -> 7
    assert mma_bits(spec, sparse) == {"a": 4096, "metadata": 512, "b": 4096, "c": 4096, "d": 4096}
    assert mma_read_bits(spec, dense) == 4096 + 2048 + 4096
    tile = KernelTile(64, 16, 96, 32, 16)
    assert mmas_per_warp(spec, dense, tile, 96) == 2 * 2 * 6 and mmas_per_warp(spec, sparse, tile, 70) == 2 * 2 * 3
    assert stage_fill_bits(spec, sparse, tile) == 64 * 48 * 18 + 96 * 16 * 16
    assert fits_shared_memory(a100(shared_memory_size=3 * (64 * 48 * 18 + 96 * 16 * 16) // 8).tensor_core, sparse, tile)


def test_the_plan_checks_the_weights_when_their_hashes_are_asked_for(tmp_path):
    path = tmp_path / "w.npz"
    weights = np.zeros((16, 8), dtype=np.float32)
    weights[0::4], weights[3::4] = 1.0, -2.0           # 2:4 along K (axis 0), dense along the outputs
    np.savez(path, weights=weights)
    layer = GemmLayer("fc", m=4, k=16, n=8, weight_sparsity=NMSparsity(2, 4), operands=OperandSource(payload=str(path)))
    assert set(FAMILY.plan(a100(), layer).operand_hashes) == {"weight_hash", "input_hash"}
    np.savez(path, weights=np.ones((16, 8), dtype=np.float32))
    plan = FAMILY.plan(a100(), dataclasses.replace(layer, name="fc2"))   # counting never needs the weights
    with pytest.raises(InputError, match=r"/w\.npz: weights: layer fc2 .*not 2:4 along K"):
        _ = plan.operand_hashes


def test_generated_two_four_weights_are_never_drawn_to_be_checked(monkeypatch):
    # the operand generator prunes them to the declared 2:4, which the plan has checked: hashing needs no tensor
    import accel_sim.foundations.workload.operands as operands
    monkeypatch.setattr(operands.LayerOperands, "weights", property(lambda ops: pytest.fail("weights drawn")))
    layer = GemmLayer("fc_generated", m=4, k=16, n=8, weight_sparsity=NMSparsity(2, 4))
    plan = FAMILY.plan(a100(), layer)
    assert plan.problem.sparse and set(plan.operand_hashes) == {"weight_hash", "input_hash"}


def test_the_plan_both_paths_share_is_immutable():
    plan = FAMILY.plan(a100(kernels=(TILE,)), GemmLayer("g", m=8, k=64, n=16, weight_sparsity=NMSparsity(2, 4)))
    counters = FAMILY.fast(plan, None)
    for part in (plan, plan.problem, plan.bits, plan.grids[0], counters):
        name = dataclasses.fields(part)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(part, name, getattr(part, name))


@pytest.mark.parametrize("count", PATHS)
def test_weight_only_int4_moves_a_at_four_bits(count):
    # test_one_cta_two_stages with the weights stored as INT4 (quantized_weight_bits 4), dequantized to FP16
    # in registers: a stage moves A 16 x 32 x 4 bits = 256 B + B 32 x 8 x 2 B = 512 B = 768 B.
    # load 12 = max(L2 768 / 5120 -> 1, port 768 / 64 = 12, DRAM 768 / 1102.8 -> 1); shared memory
    # fill 768 / 128 = 6 + reads 6; math 16 = 2 MMAs x 8; register file 2 x (A 16 x 16 x 4 + B 16 x 8 x 16 +
    # C 16 x 8 x 32 bits = 896 B) / 208 -> 9. Stage 1 lands 400 .. 412, reads -> 418, math -> 434; stage 2
    # lands 412 .. 424, fill 418 -> 424, reads -> 430, math 434 -> 450; epilogue 256 B / 64 = 4 -> 454. Element counts
    # are those of FP16 weights (slots, not bits).
    layer = GemmLayer("g", m=8, k=64, n=16, quantized_weight_bits=4)
    result = counts(a100(sms=1, kernels=(TILE,)), layer, count)
    assert result == dict(kernel=0, cycles=454, compute_cycles=32, math_busy_cycles=32, register_file_busy_cycles=18,
                          shared_memory_busy_cycles=24, l2_busy_cycles=24, dram_busy_cycles=2, waves=1, ctas=1,
                          dram_a=1024, dram_b=512, fill_a=1024, fill_b=512, read_a=1024, read_b=512, mmas=4, c=128, partial=0, split=1)


@pytest.mark.parametrize("count", PATHS)
@pytest.mark.parametrize("launch", [0, 1, 1886])
def test_the_launch_gap_comes_before_the_first_wave(count, launch):
    # the CTA of test_one_cta_two_stages (480 cycles) starts kernel_launch_cycles after the call; nothing else moves
    result = counts(a100(sms=1, kernels=(TILE,), kernel_launch_cycles=launch), GemmLayer("g", m=8, k=64, n=16), count)
    assert result["cycles"] == 480 + launch
    assert result["compute_cycles"] == 32 and result["shared_memory_busy_cycles"] == 48


@pytest.mark.parametrize("count", PATHS)
@pytest.mark.parametrize("drain", [0, 1, 2192])
def test_the_dram_stream_costs_once_after_the_last_wave(count, drain):
    # the CTA of test_one_cta_two_stages (480 cycles) reads its A and B from DRAM: the kernel ends
    # dram_stream_cycles after its wave, after the launch gap; the counters other than the time do not move
    arch = a100(sms=1, kernels=(TILE,), kernel_launch_cycles=1886, dram_stream_cycles=drain)
    result = counts(arch, GemmLayer("g", m=8, k=64, n=16), count)
    assert result["cycles"] == 1886 + 480 + drain
    assert result["dram_busy_cycles"] == 4 and result["shared_memory_busy_cycles"] == 48
    # two C tiles (layer m 16: two B column panels) on one SM: two waves, one drain for the kernel, not one per wave
    two = [counts(a100(sms=1, kernels=(TILE,), dram_stream_cycles=d), GemmLayer("g", m=16, k=64, n=16), count)
           for d in (0, drain)]
    assert two[1]["waves"] == 2 and two[1]["cycles"] - two[0]["cycles"] == drain
    # A 8 x 64 and B 64 x 8: as many A as B elements read from DRAM (512 each); the kernel still pays it once
    even = [counts(a100(sms=1, kernels=(TILE,), dram_stream_cycles=d), GemmLayer("g", m=8, k=64, n=8), count)
            for d in (0, drain)]
    assert even[1]["dram_a"] == even[1]["dram_b"] == 512 and even[1]["cycles"] - even[0]["cycles"] == drain


@pytest.mark.parametrize("count", PATHS)
def test_split_k_by_hand(count):
    # C 128 x 1 = A 128 x 768 x B 768 x 1 on 8 SMs, tile 64 x 8 x 128: 2 C tiles, 6 stages of K.
    # TensorRT-LLM's rule over the factors its is_valid_split_k_factor admits (768 and 768 / factor whole k_tiles
    # of 64: 1, 2, 3, 4, 6; limit 7): idle share of the last wave 1 - 2/8 = 0.75, 1 - 4/8 = 0.5, 1 - 6/8 = 0.25,
    # 1 - 8/8 = 0, 2 - 12/8 = 0.5 -> split 4, 8 CTAs of 192 K (a 128-stage and a 64-stage each).
    # Partials: each tile's slices 0, 1 and 2 write, slices 1, 2 and 3 read: 6 x 64 = 384 a tile, 768 in all.
    arch = a100(sms=8, kernels=(KernelTile(64, 8, 128, 16, 8),), split_k_limit=7)
    result = counts(arch, GemmLayer("g", m=1, k=768, n=128), count)
    assert {name: result[name] for name in ("split", "ctas", "waves", "partial", "c", "dram_a", "dram_b", "fill_b")} == dict(
        split=4, ctas=8, waves=1, partial=768, c=128, dram_a=128 * 768, dram_b=4 * 192, fill_b=8 * 192)
