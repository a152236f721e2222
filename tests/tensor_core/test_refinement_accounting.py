"""Tensor-core accounting: actions, bytes and metrics of a worked example by hand, the action
classes per word width, and the conservation laws on generated layers."""
from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.models.tensor_core.counters import LATENCY_BOUND, PATHS
from accel_sim.models.tensor_core.family import FAMILY
from accel_sim.models.tensor_core.spec import KernelTile
from accel_sim.foundations.workload import GemmLayer, NMSparsity
from tests.tensor_core.archs import a100
from tests.tensor_core.test_refinement import cases

L2, SMEM, RF = 40 * 2**20, 164 * 1024, 256 * 1024


def test_two_four_example_by_hand():
    # The ragged-K 2:4 example of test_refinement_examples: C 16 x 8, K 70, one 16 x 8 x 64 tile.
    # A: 16 rows x 36 slots = 576 slots of 16 + 2 bits at every level; B: 70 x 8 = 560 elements;
    # C: 128 elements. 3 sparse MMAs (m16n8k16 volume each: 2048 products, 6144 executed; useful
    # 16 x 8 x (17 x 2 + 2) = 4608). Register file per MMA: A 4096 + metadata 512 + B 4096 + C 4096
    # bits read, D 4096 written; ldmatrix writes what the warp read. A stage (3 by default) fills 16 rows x
    # 32 slots of A at 18 bits and 64 x 8 B elements at 16.
    arch = a100(sms=1, kernels=(KernelTile(16, 8, 64, 16, 8),))
    result = FAMILY.layer_result(arch, GemmLayer("g", m=8, k=70, n=16, weight_sparsity=NMSparsity(2, 4)))
    assert result.actions == (
        ActionCount("dram", "dram", "read", 1136, 16),
        ActionCount("dram", "dram", "write", 128, 16),
        ActionCount("l2", "sram", "write", 1264, 16, L2),
        ActionCount("l2", "sram", "read", 1136, 16, L2),
        ActionCount("shared_memory", "sram", "write", 1136, 16, SMEM),
        ActionCount("shared_memory", "sram", "read", 1136, 16, SMEM),
        ActionCount("register_file", "register_file", "read", 3 * 12800 // 32, 32, RF),
        ActionCount("register_file", "register_file", "write", (576 * 18 + 560 * 16 + 3 * 4096) // 32, 32, RF),
        ActionCount("tensor_core", "mult_fp", "op", 6144, 16),
        ActionCount("tensor_core", "add_fp", "op", 6144, 32),
        ActionCount("dram", "dram", "read", 576, 2),
        ActionCount("l2", "sram", "write", 576, 2, L2),
        ActionCount("l2", "sram", "read", 576, 2, L2),
        ActionCount("shared_memory", "sram", "write", 576, 2, SMEM),
        ActionCount("shared_memory", "sram", "read", 576, 2, SMEM),
        ActionCount("operand_select", "mux", "select", 6144, 16),
    )
    assert (result.cycles, result.compute_cycles, result.stall_cycles) == (479, 24, 455)
    assert (result.macs_dense, result.macs_issued, result.peak_macs_per_cycle) == (8960, 4608, 1024)
    assert (result.dram_read_bytes, result.dram_write_bytes) == ((576 * 18 + 560 * 16) // 8, 256)
    assert result.sram_read_bytes == (2 * 576 * 18 + 2 * 560 * 16) // 8
    assert result.sram_write_bytes == (2 * 576 * 18 + 2 * 560 * 16 + 128 * 16) // 8
    assert dict(result.metrics) == {
        "math_busy_cycles": 24.0, "register_file_busy_cycles": 24.0, "shared_memory_busy_cycles": 38.0,
        "l2_busy_cycles": 38.0, "dram_busy_cycles": 3.0,
        "bound_math": 0.0, "bound_register_file": 0.0, "bound_shared_memory": 0.0, "bound_l2": 0.0, "bound_dram": 0.0,
        "bound_latency": 1.0, "sparse": 1.0, "tile_m": 16.0, "tile_n": 8.0, "tile_k": 64.0, "warp_m": 16.0,
        "warp_n": 8.0, "stages": 3.0, "stage_fill_bits": 16 * 32 * 18 + 64 * 8 * 16.0,
        "waves": 1.0, "ctas": 1.0, "split_k": 1.0, "executed_macs": 6144.0, "padding_macs": 1536.0,
        "l2_resident": 1.0, "dram_metadata_bytes": 144.0}
    assert set(result.operand_hashes) == {"weight_hash", "input_hash"}


def test_metadata_bytes_round_up():
    # C 1 x 1, K 3, 2:4: one A row of ceil(3 / 4) x 2 = 2 slots: 4 metadata bits round up to a byte;
    # DRAM reads A 2 x 18 + B 3 x 16 bits = 10.5 -> 11 bytes
    arch = a100(sms=1, kernels=(KernelTile(16, 8, 32, 16, 8),))
    result = FAMILY.layer_result(arch, GemmLayer("g", m=1, k=3, n=1, weight_sparsity=NMSparsity(2, 4)))
    assert result.metrics["dram_metadata_bytes"] == 1.0
    assert result.dram_read_bytes == math.ceil((2 * 18 + 3 * 16) / 8)


@pytest.mark.parametrize("word_bits, mma_k, mult, add", [(8, 32, "mult_int", "add_int"), (16, 16, "mult_fp", "add_fp"),
                                                          (32, 8, "mult_fp", "add_fp")])
def test_dense_actions_per_word_width(word_bits, mma_k, mult, add):
    # C 16 x 8, K 64, dense: 16 x 64 A + 64 x 8 B words read once, 128 C words written; the one
    # warp issues 64 / mma_k MMAs, 16 x 8 x 64 = 8192 products (no padding)
    arch = a100(word_bits, sms=1, mma_k=mma_k, kernels=(KernelTile(16, 8, 32, 16, 8),))
    result = FAMILY.layer_result(arch, GemmLayer("g", m=8, k=64, n=16))
    mmas = 64 // mma_k
    read_bits = 16 * mma_k * word_bits + mma_k * 8 * word_bits + 16 * 8 * 32
    write_bits = (16 * 64 + 64 * 8) * word_bits + mmas * 16 * 8 * 32
    assert result.actions == (
        ActionCount("dram", "dram", "read", 1536, word_bits),
        ActionCount("dram", "dram", "write", 128, word_bits),
        ActionCount("l2", "sram", "write", 1664, word_bits, L2),
        ActionCount("l2", "sram", "read", 1536, word_bits, L2),
        ActionCount("shared_memory", "sram", "write", 1536, word_bits, SMEM),
        ActionCount("shared_memory", "sram", "read", 1536, word_bits, SMEM),
        ActionCount("register_file", "register_file", "read", math.ceil(mmas * read_bits / 32), 32, RF),
        ActionCount("register_file", "register_file", "write", math.ceil(write_bits / 32), 32, RF),
        ActionCount("tensor_core", mult, "op", 8192, word_bits),
        ActionCount("tensor_core", add, "op", 8192, 32),
    )
    assert result.macs_issued == result.macs_dense == 8192 and result.metrics["padding_macs"] == 0.0
    assert result.dram_read_bytes == 1536 * word_bits // 8 and result.metrics["sparse"] == 0.0


@settings(derandomize=True, max_examples=40, deadline=None)
@given(case=cases())
def test_conservation_laws(case):
    arch, layer = case
    try:
        plan = FAMILY.plan(arch, layer)
    except InputError:
        assume(False)
    counters = FAMILY.fast(plan, None)
    result = FAMILY.account(plan, counters)
    problem, bits = plan.problem, plan.bits
    # MACs: issued + skipped = dense; executed (padding included) >= issued; 2:4 issues about half
    assert result.macs_issued + result.macs_skipped == result.macs_dense == layer.macs
    assert result.metrics["executed_macs"] >= result.macs_issued
    if not problem.sparse:
        assert result.macs_issued == layer.macs
    counts = ("cycles", "compute_cycles", "stall_cycles", "macs_dense", "macs_issued", "peak_macs_per_cycle",
              "dram_read_bytes", "dram_write_bytes", "sram_read_bytes", "sram_write_bytes")
    assert all(type(getattr(result, name)) is int for name in counts)
    assert all(type(action.count) is int for action in result.actions)
    if problem.sparse:
        assert result.macs_issued <= math.ceil(layer.macs * problem.nm_n / problem.nm_m) + layer.macs // problem.k
    # time: at least the math at peak, and at least every path's busy time
    assert result.cycles >= math.ceil(result.macs_issued / result.peak_macs_per_cycle)
    assert result.cycles >= result.compute_cycles and all(result.cycles >= counters.busy(p) for p in PATHS)
    assert sum(result.metrics[f"bound_{p}"] for p in PATHS + (LATENCY_BOUND,)) == 1.0
    # bytes: every operand element leaves DRAM at least once and reaches shared memory at least once
    a_slots, b_elements = problem.groups * problem.m * problem.slots(problem.k), problem.groups * problem.k * problem.n
    assert counters.dram_a >= a_slots and counters.dram_b >= b_elements
    assert counters.fill_a >= counters.dram_a and counters.fill_b >= counters.dram_b
    assert counters.read_a >= a_slots and counters.read_b >= b_elements
    assert result.dram_read_bytes >= (a_slots * bits.a_slot + b_elements * bits.b_value) // 8
    assert counters.c == problem.groups * problem.m * problem.n == layer.output_elements
    assert result.dram_write_bytes == math.ceil(layer.output_elements * arch.word_bits / 8)
    assert counters.ctas >= counters.waves >= math.ceil(counters.ctas / plan.spec.sms)
