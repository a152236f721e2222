"""W8A8 (``precision: int8``) and FP8 (``precision: fp8``, E4M3) layers: 8-bit A and B at the tensor core's 8-bit
rate (A100: INT8 624 TOPS = 2x FP16, no FP8; H100 SXM: FP8 and INT8 1,979 = 2x FP16), one fp32 scale per weight
row (output channel) and per activation column (token) as TensorRT-LLM's SmoothQuantLinear stores them
(tensorrt_llm/quantization/layers.py: per_channel_scale (1, out_features) float32, per-token float32 scales).
Counted by hand, fast == reference, the scale bytes exact, a missing path refused in one line."""
from __future__ import annotations

import pytest

from accel_sim import load_arch
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import BatchedGemmLayer, GemmLayer, NMSparsity, OperandSource
from accel_sim.models.tensor_core.family import FAMILY
from accel_sim.models.tensor_core.spec import KernelTile
from accel_sim.pipeline.simulate import simulate_layer
from tests.cli.cli_helpers import assert_one_line_error, run_cli
from tests.tensor_core.archs import a100

TILE = KernelTile(m=16, n=8, k=32, warp_m=16, warp_n=8)
NM = dict(weight_sparsity=NMSparsity(2, 4), operands=OperandSource(weight_pattern="nm"))


@pytest.mark.parametrize("count", [FAMILY.fast, FAMILY.reference])
def test_w8a8_by_hand(count):
    # tests/tensor_core/test_refinement_group_scales.py's 16 x 8 x 64 GEMM at INT8: an A row's stage (K 32) is
    # 32 B + its half of the row's 4 B scale = 34 B, a B column's the same; a stage moves 16 x 34 + 8 x 34 = 816 B:
    # load 13 = port 816 / 64; shared memory 816 fills / 128 -> 7 + 816 ldmatrix reads / 128 -> 7 = 14. One
    # m16n8k32 INT8 MMA (512 MACs / clk: K 32 in the FP16 MMA's 8 cycles) per stage: math 8; register file (A 512 B
    # + B 256 B + C 512 B) / 208 = 7. Stage 1 lands 400 .. 413 (fill kept up), reads -> 420, math -> 428; stage 2
    # lands 413 .. 426, fill 420 -> 427, reads -> 434, math -> 442; the epilogue writes C at FP16, 256 B / 64 = 4
    # -> 446.
    layer = GemmLayer("g", m=8, k=64, n=16, precision="int8")
    plan = FAMILY.plan(a100(sms=1, kernels=(TILE,)), layer)
    counters = count(plan, None)
    assert (counters.cycles, counters.math_busy_cycles, counters.register_file_busy_cycles,
            counters.shared_memory_busy_cycles) == (446, 16, 14, 28)
    result = FAMILY.account(plan, counters)
    # DRAM: A 16 x 64 B + B 8 x 64 B + 16 weight scales and 8 token scales of 4 B
    assert result.dram_read_bytes == 1024 + 512 + 64 + 32
    assert (result.metrics["dram_weight_scale_bytes"], result.metrics["dram_activation_scale_bytes"]) == (64, 32)
    assert result.peak_macs_per_cycle == 1 * 4 * 512     # one SM's 4 tensor cores at the INT8 rate
    kinds = {(a.component, a.component_class, a.bits): a.count for a in result.actions}
    assert kinds[("tensor_core", "mult_int", 8)] == 16 * 8 * 64
    assert kinds[("dram", "dram", 32)] == 24 and kinds[("scale_unit", "mult_fp", 32)] == 2 * 16 * 8
    assert all(type(a.count) is int for a in result.actions)      # whole scales (a share rounded up), never a float


def test_a_stage_share_of_a_row_scale_rounds_up_to_whole_scales():
    # K = 4096 in stages of 64: each stage of an A row carries 32 x 64 / 4096 = 0.5 bit of its scale, rounded up
    # to 1 bit in the stage's timing; the bytes counted are the exact 4 B a row and a token
    layer = GemmLayer("g", m=3, k=4096, n=48, precision="int8")
    plan = FAMILY.plan(load_arch("ampere_a100"), layer)
    assert plan.bits.a_stream(64) == 64 * 8 + 1 and plan.bits.b_stream(64) == 64 * 8 + 1
    result = FAMILY.account(plan, FAMILY.fast(plan))
    assert (result.metrics["dram_weight_scale_bytes"], result.metrics["dram_activation_scale_bytes"]) == (48 * 4, 3 * 4)
    assert all(type(a.count) is int for a in result.actions)


@pytest.mark.parametrize("layer", [
    GemmLayer("g", m=3, k=96, n=80, precision="int8"),
    GemmLayer("g", m=5, k=4096, n=48, precision="int8"),         # stages far shorter than a row's scale
    GemmLayer("s", m=4, k=128, n=32, precision="int8", **NM),    # 2:4 INT8 (m16n8k64 sparse)
    BatchedGemmLayer("b", instances=3, m=2, k=64, n=40, precision="int8").as_grouped(),
])
def test_w8a8_fast_and_reference_agree(layer):
    for arch in (load_arch("ampere_a100"), a100(sms=2, split_k_limit=4)):
        assert FAMILY.refinement(arch, layer) == []


@pytest.mark.parametrize("layer", [GemmLayer("g", m=3, k=96, n=80, precision="fp8"),
                                   GemmLayer("g", m=1, k=4096, n=4096, precision="fp8")])
def test_fp8_on_h100_fast_and_reference_agree(layer):
    arch = load_arch("hopper_h100_serving")
    assert FAMILY.refinement(arch, layer) == []
    plan = FAMILY.plan(arch, layer)
    assert type(plan.problem.precision.mma_k) is int and plan.problem.precision.mma_k == 16 * 1024 // 512
    result = FAMILY.account(plan, FAMILY.fast(plan))
    classes = {a.component_class for a in result.actions if a.component == "tensor_core"}
    assert classes == {"mult_fp", "add_fp"}                        # E4M3 multiplies, FP32 accumulation


def test_8_bit_gemms_halve_the_math_and_the_bytes():
    # a prefill-sized GEMM is math-bound at FP16: the 8-bit one runs near twice as fast; a decode GEMV moves
    # half the weight bytes plus 4 B per output channel and per token
    for name, precision in (("ampere_a100", "int8"), ("hopper_h100", "fp8"), ("hopper_h100", "int8")):
        arch = load_arch(name)
        big = [simulate_layer(arch, GemmLayer("p", m=4096, k=4096, n=4096, precision=p)).result
               for p in (None, precision)]
        assert 1.6 < big[0].cycles / big[1].cycles <= 2.0
        gemv = [simulate_layer(arch, GemmLayer("q", m=1, k=4096, n=4096, precision=p)).result
                for p in (None, precision)]
        assert gemv[1].dram_read_bytes == 4096 * 4096 + 4096 + 4096 * 4 + 4
        assert gemv[0].dram_read_bytes == 2 * (4096 * 4096 + 4096)


def test_fp8_on_an_a100_is_refused_naming_the_field():
    with pytest.raises(InputError, match=r"tensor_core\.fp8_macs_per_cycle"):
        FAMILY.plan(load_arch("ampere_a100"), GemmLayer("g", m=1, k=64, n=64, precision="fp8"))


@pytest.mark.parametrize("fields,expected", [
    ("precision: fp8", ("ampere_a100", "tensor_core.fp8_macs_per_cycle", "no fp8 path")),
    ("precision: int4", ("precision", "int8 (W8A8) or fp8 (E4M3)")),
    ("precision: int8, quantized_weight_bits: 4", ("quantized_weight_bits", "8-bit weights")),
    ("precision: int8, quantized_weight_bits: 4, quant_group_size: 32", ("quant_group_size",)),
])
def test_bad_precisions_are_one_line_exit_2(tmp_path, capsys, fields, expected):
    path = tmp_path / "w.yaml"
    path.write_text(f"name: t\nlayers:\n  - {{name: g, type: gemm, m: 1, k: 64, n: 32, {fields}}}\n")
    result = run_cli(capsys, "run", "--arch", "ampere_a100", "--workload", path)
    assert_one_line_error(result, *expected)
