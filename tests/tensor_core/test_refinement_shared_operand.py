"""A batched GEMM whose consecutive instances read one operand (``operand_shared_by``): the decode attention of a
kernel that runs one thread block per query head (TensorRT-LLM's masked multi-head attention), each reading its
KV head's cache. Counted by hand on both paths (A from L2 once per CTA, from DRAM once per wave and distinct
panel, or once per kernel when A and B fit the L2), and fast == reference on generated cases."""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim import load_arch
from accel_sim.foundations.contract import counter_differences
from accel_sim.foundations.workload.layer import BatchedGemmLayer
from accel_sim.foundations.workload.llm.generator import attention_layers
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.models.tensor_core.family import FAMILY
from accel_sim.models.tensor_core.spec import KernelTile
from accel_sim.systems.serving.parallel import shard
from tests.tensor_core.archs import a100

TILE = KernelTile(m=16, n=8, k=32, warp_m=16, warp_n=8)
PATHS = [FAMILY.fast, FAMILY.reference]
LLAMA_70B = "workloads/llm/configs/llama_2_70b.json"


def _counters(arch, layer, count):
    return count(FAMILY.plan(arch, layer.as_grouped()), None)


@pytest.mark.parametrize("count", PATHS)
@pytest.mark.parametrize("shared, sms, l2_size, dram_panels", [
    (1, 4, 40 * 2**20, 4),   # each instance its own A: four panels from DRAM
    (2, 4, 40 * 2**20, 2),   # instances (0, 1) and (2, 3) read one A each: two panels
    (2, 3, 1024, 3),         # not L2-resident, waves (0, 1, 2) and (3): A of (2, 3) read in both waves
    (2, 3, 40 * 2**20, 2),   # resident: each panel once per kernel
])
def test_shared_operand_by_hand(count, shared, sms, l2_size, dram_panels):
    # four instances of 1 x 64 @ 64 x 16 (C 16 x 1 = A 16 x 64 x B 64 x 1): one 16 x 8 CTA each; every CTA fills
    # its A panel (16 x 64 slots) and B column (64) from L2, whatever the sharing
    arch = a100(sms=sms, kernels=(TILE,), l2_size=l2_size)
    layer = BatchedGemmLayer("attn_decode", instances=4, m=1, k=64, n=16, operand_shared_by=shared)
    c = _counters(arch, layer, count)
    assert (c.ctas, c.waves) == (4, -(-4 // sms))
    assert (c.fill_a, c.fill_b) == (4 * 16 * 64, 4 * 64)
    assert (c.dram_a, c.dram_b) == (dram_panels * 16 * 64, 4 * 64)


@pytest.mark.parametrize("count", PATHS)
def test_llama_2_70b_decode_layer_bytes_by_hand(count):
    # one block of Llama-2-70B at TP4 (16 query heads, 2 KV heads of 128 per device), 8 sequences attending to
    # 1152 positions, FP16 on the A100 80GB: a KV head's K and V of one sequence are 2 x 1152 x 128 x 2 B =
    # 589,824 B; the queries / probabilities operand of one instance 2 x 1152 x 2 B = 4,608 B
    arch = load_arch("ampere_a100_80gb_serving")
    block = dataclasses.replace(shard(read_hf_config(LLAMA_70B), 4), layers=1)
    cache, query = 2 * 1152 * 128 * 2, 2 * 1152 * 2
    kv_head, per_query = (attention_layers(block, "l0_", 8, 1, 1152, True, reads)[0]
                          for reads in ("per_kv_head", "per_query_head"))
    assert (per_query.instances, per_query.m, per_query.operand_shared_by) == (8 * 16, 1, 8)
    gqa, mmha = _counters(arch, kv_head, count), _counters(arch, per_query, count)
    # both read the 8 x 2 caches once from DRAM (8 x 2 x 589,824 = 9,437,184 B); the per-query-head kernel
    # fills each from L2 once per query head: 8 x 16 x 589,824 = 75,497,472 B, 8 times as many
    assert 2 * gqa.dram_a == 2 * mmha.dram_a == 8 * 2 * cache == 9_437_184
    assert 2 * gqa.fill_a == 8 * 2 * cache
    assert 2 * mmha.fill_a == 8 * 16 * cache == 75_497_472
    # the queries: once from DRAM; from L2 once per CTA of the instance (one per tile row of the cache's d)
    assert 2 * mmha.dram_b == 8 * 16 * query
    assert mmha.fill_b == mmha.ctas // (8 * 16) * mmha.dram_b
    # the eight-fold L2 stream bounds the kernel: at least its L2 bytes over the L2 bandwidth
    spec = arch.tensor_core
    assert mmha.cycles >= 2 * (mmha.fill_a + mmha.fill_b) / spec.l2_bandwidth
    assert mmha.cycles > 2 * gqa.cycles


def test_sharing_must_divide_the_instances():
    with pytest.raises(ValueError, match="operand_shared_by 3 must divide instances 4"):
        BatchedGemmLayer("attn", instances=4, m=1, k=64, n=16, operand_shared_by=3)
    with pytest.raises(ValueError, match="kv_reads"):
        attention_layers(read_hf_config(LLAMA_70B), "l0_", 1, 1, 64, True, "per_token")


@st.composite
def shared_cases(draw):
    arch = a100(16, sms=draw(st.integers(1, 9)), memory_latency=draw(st.sampled_from([0, 7, 400])),
                l2_size=draw(st.sampled_from([1024, 64 * 1024, 40 * 2**20])),
                l2_bandwidth=draw(st.sampled_from([100.0, 5120.0])), dram_bandwidth=draw(st.sampled_from([3.5, 1102.8])),
                kernels=(TILE, KernelTile(64, 8, 64, 16, 8)), batched_split_limit=draw(st.sampled_from([1, 4, 128])))
    shared = draw(st.sampled_from([1, 2, 4, 8]))
    layer = BatchedGemmLayer("attn_decode", instances=shared * draw(st.integers(1, 3)), m=draw(st.integers(1, 8)),
                             k=draw(st.sampled_from([64, 128, 384])), n=draw(st.sampled_from([16, 64, 128])),
                             operand_shared_by=shared)
    return arch, layer.as_grouped()


@settings(derandomize=True, max_examples=40, deadline=None)
@given(case=shared_cases())
def test_fast_and_reference_agree_with_shared_operands(case):
    plan = FAMILY.plan(*case)
    assert counter_differences(FAMILY.fast(plan, None), FAMILY.reference(plan, None)) == []
