"""The split-K rules (plan/split.py) on the examples their sources give, and the serving kernels' bars.

FlashAttention's comment (csrc/flash_attn/flash_api.cpp, num_splits_heuristic): "if we have batch * n_heads = 48
and we have 108 SMs, having 2 splits (efficiency = 0.89) is better than having 3 splits (efficiency = 0.67)".
TensorRT-LLM's rule (cutlass_heuristic.cpp) counted by hand below."""
from __future__ import annotations

from accel_sim import load_arch
from accel_sim.foundations.contract import counter_differences
from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.foundations.workload.layer import BatchedGemmLayer, GemmLayer
from accel_sim.foundations.workload.llm.generator import attention_layers
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.models.tensor_core.family import FAMILY
from accel_sim.models.tensor_core.plan.split import batched_split, gemm_split, split_factor
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
    # 90 blocks (0.83 of a wave) fill 80 %: no split, though 6 splits of K's 12 blocks would make 5 whole waves
    ninety = FAMILY.plan(arch, BatchedGemmLayer("attn", instances=90, m=1, k=768, n=64).as_grouped())
    assert batched_split(arch.tensor_core, ninety.problem, tile) == 1


def test_batched_gemms_take_flash_attentions_rule_and_single_ones_tensor_rt_llms():
    arch = a100(sms=108, split_k_limit=7, batched_split_limit=128)
    tile = KernelTile(64, 8, 64, 16, 8)
    # two instances, K of 12 blocks: FlashAttention's rule takes 12 splits (24 CTAs, the best efficiency 0.22);
    # TensorRT-LLM's rule on the same tiles takes 6 (12 CTAs; 7 does not cut 12 blocks evenly)
    two = FAMILY.plan(arch, BatchedGemmLayer("attn", instances=2, m=1, k=768, n=64).as_grouped()).problem
    assert split_factor(arch.tensor_core, two, tile) == batched_split(arch.tensor_core, two, tile) == 12
    assert gemm_split(arch.tensor_core, two, tile) == 6


def test_tensor_rt_llm_rule_by_hand():
    arch = a100(sms=108, split_k_limit=7)
    tile = KernelTile(64, 8, 128, 16, 8)
    # 768 outputs: 12 tiles; K 3072 = 48 k_tiles of 64: factors 1, 2, 3, 4, 6 cut it into whole k_tiles (5, 7 do not).
    # idle share of the last wave: 1 - 12/108 = 0.89, 0.78, 0.67, 0.56, 1 - 72/108 = 0.33 -> 6
    problem = FAMILY.plan(arch, GemmLayer("down", m=1, k=3072, n=768)).problem
    assert gemm_split(arch.tensor_core, problem, tile) == 6
    # an output side of 256 x 108 features or more is never split: 27,712 outputs are 433 tiles, 4.01 waves
    # (idle share 0.99), which split 2 would make 8.02 waves (0.98)
    wide = FAMILY.plan(arch, GemmLayer("wide", m=1, k=3072, n=256 * 108 + 64)).problem
    assert gemm_split(arch.tensor_core, wide, tile) == 1


def test_tensor_rt_llm_counts_slices_in_k_tiles_of_64_not_in_the_tiles_stages():
    arch = a100(sms=108, split_k_limit=7)
    tile = KernelTile(64, 8, 128, 16, 8)
    # GPT-2's attn_q at batch 16: 768 outputs x 16 columns = 12 x 2 = 24 tiles; 768 = 12 k_tiles of 64 admits
    # 1, 2, 3, 4, 6 (CTAs 24, 48, 72, 96, 144); idle share 0.78, 0.56, 0.33, 1 - 96/108 = 0.11, 2 - 144/108 = 0.67
    # -> 4: slices of 192, one and a half of the tile's 128-deep stages (whole stages alone would stop at 3)
    q16 = FAMILY.plan(arch, GemmLayer("attn_q", m=16, k=768, n=768)).problem
    assert gemm_split(arch.tensor_core, q16, tile) == 4
    # 512 outputs on 8 SMs: 8 tiles fill the wave, idle share 0 unsplit; split 2 (16 CTAs, two full waves) is no better
    full = FAMILY.plan(a100(sms=8, split_k_limit=7), GemmLayer("full", m=1, k=768, n=512)).problem
    assert gemm_split(a100(sms=8, split_k_limit=7).tensor_core, full, tile) == 1
    # K 800 is not whole k_tiles of 64: the library admits no split (the tile's 32-deep stages would cut it in 5)
    k800 = FAMILY.plan(arch, GemmLayer("ip1", m=1, k=800, n=500)).problem
    assert gemm_split(arch.tensor_core, k800, KernelTile(128, 128, 32, 64, 64)) == 1


def test_attn_q_at_batch_16_by_hand():
    # ampere_a100_serving, the 768 x 768 projection of 16 tokens, tile 64 x 8 x 128 split 4: 96 CTAs in one wave,
    # each a 128-deep then a 64-deep stage. Per stage (A 64 rows, B 8 columns, 2 B elements):
    # - load: DRAM 48 A panels x 64 rows + 8 B panels x 8 columns = 3,136 rows of 256 B = 802,816 B / 1056.7
    #   -> 760 (the 64-deep stage 380); L2 96 x 18,432 B / 3837.5 -> 462 (231), port 18,432 / 64 = 288: load 760 (380)
    # - shared memory: fill 18,432 B / 128 = 144 (72) + ldmatrix reads (A 64 x 256 + 4 warp rows x B 8 x 256 =
    #   24,576 B) / 128 = 192 (96); tensor cores: 1 warp per sub-partition x 8 MMAs x 8 cycles = 64 (32)
    # pipeline: stage 1 lands 575 .. 1,335, the fill keeping up (cp.async), its reads end 1,527, its MMAs 1,591;
    # stage 2 lands 1,335 .. 1,715, its fill 1,527 -> 1,599, reads 1,715 -> 1,811, MMAs 1,843. Epilogue: per tile,
    # slices 0-2 write a 32-bit partial, 1-3 read one, 3 writes C (16 bits): 208 bits x 512 outputs x 24 tiles =
    # 319,488 B / 3837.5 -> 84 (port 512 x 64 bits = 4,096 B / 64 = 64). Cycles: launch 1,886 + 1,843 + 84 = 3,813.
    arch = load_arch(SERVING)
    plan = FAMILY.plan(arch, GemmLayer("attn_q", m=16, k=768, n=768))
    fast, reference = FAMILY.fast(plan, None), FAMILY.reference(plan, None)
    assert counter_differences(fast, reference) == []
    assert (fast.split, fast.ctas, fast.waves, fast.cycles, fast.dram_busy_cycles) == (4, 96, 1, 3813, 760 + 380)
    assert str(plan.kernels[fast.kernel]) == "64x8x128/w16x8"
    assert _bound_ratio(arch, [GemmLayer("attn_q", m=16, k=768, n=768)]) <= 1.30


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
