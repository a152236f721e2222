"""Group-wise quantization scales (W4A16: ``quant_group_size``, a scale and zero point per group of K of a
weight row, 32 bits by default as tinygemm's bf16 ``scales_and_zeros`` [K / G, N, 2]): counted by hand, fast
== reference, bytes moved >= the compressed footprint with its scales, bad group sizes refused."""
from __future__ import annotations

import math

import pytest

from accel_sim import load_arch
from accel_sim.foundations.workload.layer import BatchedGemmLayer, GemmLayer, Network, NMSparsity, OperandSource
from accel_sim.foundations.workload.memory import network_footprint, stored_weight_bits
from accel_sim.models.tensor_core.family import FAMILY
from accel_sim.models.tensor_core.spec import KernelTile
from accel_sim.pipeline.simulate import simulate_layer
from tests.cli.cli_helpers import assert_one_line_error, run_cli
from tests.tensor_core.archs import a100

TILE = KernelTile(m=16, n=8, k=32, warp_m=16, warp_n=8)


@pytest.mark.parametrize("count", [FAMILY.fast, FAMILY.reference])
def test_int4_with_group_32_by_hand(count):
    # tests/tensor_core/test_refinement_examples.py::test_weight_only_int4_moves_a_at_four_bits with a bf16 scale
    # and zero per 32 weights: an A row's stage (K 32) is 32 x 4 bits + one group's 32 bits = 20 B; a stage moves
    # 16 x 20 = 320 B of A + 512 B of B = 832 B. load 13 = port 832 / 64; shared memory: fill 832 / 128 -> 7 +
    # reads 7 = 14; math 16, register file 9 (unchanged). Stage 1 lands 400 .. 413 (fill kept up), reads -> 420,
    # math -> 436; stage 2 lands 413 .. 426, fill 420 -> 427, reads -> 434, math 436 -> 452; epilogue 256 B / 64
    # = 4 -> 456.
    layer = GemmLayer("g", m=8, k=64, n=16, quantized_weight_bits=4, quant_group_size=32)
    counters = count(FAMILY.plan(a100(sms=1, kernels=(TILE,)), layer), None)
    assert (counters.cycles, counters.l2_busy_cycles, counters.shared_memory_busy_cycles, counters.dram_busy_cycles) \
        == (456, 26, 28, 2)
    result = FAMILY.account(FAMILY.plan(a100(sms=1, kernels=(TILE,)), layer), counters)
    # DRAM: A 16 x 64 x 4 bits = 512 B + 16 rows x 2 groups x 4 B = 128 B; B 64 x 8 x 2 B = 1024 B
    assert result.dram_read_bytes == 512 + 128 + 1024
    assert result.metrics["dram_group_scale_bytes"] == 128 and result.metrics["quant_group_size"] == 32
    scale_reads = [a for a in result.actions if a.component == "dram" and a.action == "read" and a.bits == 32]
    assert [a.count for a in scale_reads] == [32]          # 32 groups of 32 bits


@pytest.mark.parametrize("group,extra", [(32, 0.25), (64, 0.125), (128, 0.0625)])
def test_decode_gemv_scale_bytes(group, extra):
    # Llama-2-7B's q projection at batch 1 (K = N = 4096): int4 weights 8 MiB; scale and zero bytes
    # 4096 x 4096 / G x 4 B: +25 % at G = 32, +12.5 % at 64, +6.25 % at 128 of the int4 weights
    arch = load_arch("ampere_a100")
    plain = simulate_layer(arch, GemmLayer("q", m=1, k=4096, n=4096, quantized_weight_bits=4)).result
    grouped = simulate_layer(arch, GemmLayer("q", m=1, k=4096, n=4096, quantized_weight_bits=4,
                                             quant_group_size=group)).result
    weights = 4096 * 4096 // 2
    assert grouped.dram_read_bytes - plain.dram_read_bytes == 4096 * 4096 // group * 4 == weights * extra
    assert grouped.cycles > plain.cycles


@pytest.mark.parametrize("layer", [
    GemmLayer("g", m=3, k=96, n=80, quantized_weight_bits=4, quant_group_size=32),
    GemmLayer("g", m=5, k=256, n=48, quantized_weight_bits=4, quant_group_size=128),   # stages shorter than a group
    GemmLayer("g", m=2, k=192, n=64, quantized_weight_bits=8, quant_group_size=192, quant_scale_bits=16),
    GemmLayer("s", m=4, k=128, n=32, quantized_weight_bits=4, quant_group_size=64, weight_sparsity=NMSparsity(2, 4),
              operands=OperandSource(weight_pattern="nm")),
    BatchedGemmLayer("b", instances=3, m=2, k=64, n=40, quantized_weight_bits=4, quant_group_size=32).as_grouped(),
])
def test_fast_and_reference_agree(layer):
    for arch in (load_arch("ampere_a100"), a100(sms=2, split_k_limit=4)):
        assert FAMILY.refinement(arch, layer) == []


@pytest.mark.parametrize("group", [32, 64, 128])
@pytest.mark.parametrize("arch_name", ["ampere_a100", "ampere_a100_80gb"])
def test_bytes_moved_cover_the_compressed_footprint(arch_name, group):
    arch = load_arch(arch_name)
    layers = (GemmLayer("o", m=1, k=4096, n=4096, quantized_weight_bits=4, quant_group_size=group),
              GemmLayer("down", m=7, k=11008, n=4096, quantized_weight_bits=4, quant_group_size=group),
              GemmLayer("s", m=1, k=1024, n=1024, quantized_weight_bits=4, quant_group_size=group,
                        weight_sparsity=NMSparsity(2, 4), operands=OperandSource(weight_pattern="nm")))
    for layer in layers:
        result = simulate_layer(arch, layer).result
        stored = layer.weight_elements * stored_weight_bits(layer, arch.word_bits) / 8   # int4 + metadata + scales
        footprint = network_footprint(Network("n", (layer,)), arch.word_bits).weights_bytes
        assert stored == footprint
        assert result.dram_read_bytes >= math.floor(footprint + layer.input_elements * arch.word_bits / 8)
        assert result.sram_read_bytes >= footprint     # every weight and scale is read from L2 at least once


def test_footprint_counts_the_scales():
    layer = GemmLayer("q", m=1, k=4096, n=4096, quantized_weight_bits=4, quant_group_size=64)
    assert stored_weight_bits(layer, 16) == 4 + 32 / 64
    assert network_footprint(Network("n", (layer,)), 16).weights_bytes == 4096 * 4096 * 4.5 / 8


@pytest.mark.parametrize("fields,expected", [
    ("quant_group_size: 48", ("quant_group_size 48 must divide", "k = 64")),
    ("quant_group_size: 0", ("quant_group_size must be > 0",)),
    ("quant_group_size: -32", ("quant_group_size must be > 0",)),
    ("quant_scale_bits: 16", ("quant_scale_bits needs quant_group_size",)),
])
def test_bad_group_sizes_are_one_line_exit_2(tmp_path, capsys, fields, expected):
    path = tmp_path / "w.yaml"
    path.write_text(f"name: t\nlayers:\n  - {{name: g, type: gemm, m: 1, k: 64, n: 32, quantized_weight_bits: 4, "
                    f"{fields}}}\n")
    result = run_cli(capsys, "run", "--arch", "ampere_a100", "--workload", path)
    assert_one_line_error(result, "w.yaml", "layers[0] (g)", *expected)


def test_a_stage_shorter_than_a_group_carries_its_share_rounded_up():
    from accel_sim.models.tensor_core.plan.problem import ElementBits
    bits = ElementBits(a_value=4, a_metadata=0, b_value=16, c_value=16, a_group=64, a_group_bits=21)
    assert bits.group_stream(32) == 11 and bits.group_stream(64) == 21 and bits.group_stream(128) == 42
    assert bits.a_stream(32) == 32 * 4 + 11
    assert ElementBits(a_value=4, a_metadata=0, b_value=16, c_value=16).group_stream(64) == 0


def test_2_4_weights_keep_their_groups_along_dense_k():
    # 2:4 + int4 with a scale and zero per 64 weights of dense K: a group keeps 32 values; the scales are those of
    # the dense matrix (k / 64 per output column), the footprint 0.5 x (4 + 2 metadata bits) + 32 / 64 bits a weight
    nm = dict(weight_sparsity=NMSparsity(2, 4), operands=OperandSource(weight_pattern="nm"))
    layer = GemmLayer("s", m=1, k=1024, n=1024, quantized_weight_bits=4, quant_group_size=64, **nm)
    result = simulate_layer(load_arch("ampere_a100"), layer).result
    assert result.metrics["dram_group_scale_bytes"] == 1024 * 1024 // 64 * 4
    assert stored_weight_bits(layer, 16) == 0.5 * (4 + 2) + 0.5
    six = GemmLayer("s", m=1, k=96, n=64, quantized_weight_bits=4, quant_group_size=6, **nm)   # 3 kept values a group
    assert FAMILY.refinement(load_arch("ampere_a100"), six) == []
    from accel_sim.foundations.errors import InputError
    with pytest.raises(InputError, match="quant_group_size"):       # a group of 3 keeps 1.5 values
        FAMILY.plan(load_arch("ampere_a100"), GemmLayer("s", m=1, k=96, n=64, quantized_weight_bits=4,
                                                        quant_group_size=3, **nm))
