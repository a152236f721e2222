"""The split-K rules (plan/split.py) on the examples their sources give, and the serving kernels' bars.

FlashAttention's comment (csrc/flash_attn/flash_api.cpp, num_splits_heuristic): "if we have batch * n_heads = 48
and we have 108 SMs, having 2 splits (efficiency = 0.89) is better than having 3 splits (efficiency = 0.67)".
TensorRT-LLM's rule (cutlass_heuristic.cpp) counted by hand below."""
from __future__ import annotations

from accel_sim import load_arch
from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.foundations.workload.layer import BatchedGemmLayer, GemmLayer
from accel_sim.foundations.workload.llm.generator import attention_layers
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.models.tensor_core.family import FAMILY
from accel_sim.models.tensor_core.plan.split import batched_split, gemm_split
from accel_sim.models.tensor_core.spec import KernelTile
from accel_sim.pipeline.simulate import simulate_layer
from tests.tensor_core.archs import a100

SERVING = "ampere_a100_serving"
LLAMA = "workloads/llm/configs/llama_2_7b.json"


def test_flash_attention_example_two_splits():
    arch = a100(sms=108, batched_split_limit=128)
    # 48 (sequence, head) blocks of one tile each, K of 64 blocks of 64: 48 < 0.8 x 108 -> split;
    # efficiencies 0.44 (1), 0.89 (2), 0.67 (3), 0.89 (4), ..., 0.95 (32), best 0.98 (64);
    # the fewest splits within 85 % of the best: 2
    plan = FAMILY.plan(arch, BatchedGemmLayer("attn", instances=48, m=1, k=4096, n=64).as_grouped())
    tile = KernelTile(64, 8, 64, 16, 8)
    assert batched_split(arch.tensor_core, plan.problem, tile) == 2
    # 87 blocks fill 80 % of 108 SMs: no split
    full = FAMILY.plan(arch, BatchedGemmLayer("attn", instances=87, m=1, k=4096, n=64).as_grouped())
    assert batched_split(arch.tensor_core, full.problem, tile) == 1


def test_tensor_rt_llm_rule_by_hand():
    arch = a100(sms=108, split_k_limit=7)
    tile = KernelTile(64, 8, 128, 16, 8)
    # 768 outputs: 12 tiles; K 3072 = 24 stages: factors 1, 2, 3, 4, 6 cut it into whole stages (5, 7 do not).
    # idle share of the last wave: 1 - 12/108 = 0.89, 0.78, 0.67, 0.56, 1 - 72/108 = 0.33 -> 6
    problem = FAMILY.plan(arch, GemmLayer("down", m=1, k=3072, n=768)).problem
    assert gemm_split(arch.tensor_core, problem, tile) == 6
    # an output side of 256 x 108 features or more is never split
    wide = FAMILY.plan(arch, GemmLayer("wide", m=1, k=3072, n=256 * 108)).problem
    assert gemm_split(arch.tensor_core, wide, tile) == 1


def _bound_ratio(arch, layers) -> float:
    """Cycles of the layers' matrix kernels over their DRAM-bound time: the launch gap plus their DRAM bytes at
    the sustained bandwidth (each kernel pays one launch)."""
    table = load_energy_table(arch.energy_table)
    spec = arch.tensor_core
    runs = [simulate_layer(arch, layer, table).result for layer in layers]
    runs = [r for r in runs if "tile_m" in r.metrics]
    floor = sum(spec.kernel_launch_cycles + (r.dram_read_bytes + r.dram_write_bytes) / spec.dram_bandwidth for r in runs)
    return sum(r.cycles for r in runs) / floor


def test_fused_decode_attention_is_within_ten_percent_of_its_dram_bound():
    arch = load_arch(SERVING)
    config = read_hf_config(LLAMA)
    for batch in (1, 8):
        assert _bound_ratio(arch, attention_layers(config, "l0_", batch, 1, 2048, fused=True)) <= 1.10
    # the unfused kernels (score, softmax, context) are not
    assert _bound_ratio(arch, attention_layers(config, "l0_", 1, 1, 2048)) > 1.10


def test_skinny_768_wide_projection_splits_and_is_within_thirty_percent():
    arch = load_arch(SERVING)
    for batch in (1, 8, 16):
        down = GemmLayer("mlp_down", m=batch, k=3072, n=768)    # GPT-2's 768-wide projection
        result = simulate_layer(arch, down).result
        assert result.metrics["split_k"] > 1
        assert _bound_ratio(arch, [down]) <= 1.30
    assert simulate_layer(load_arch("ampere_a100"), GemmLayer("d", m=1, k=3072, n=768)).result.metrics["ctas"] == 12
