"""The broad sweep: fast path and discrete-event reference agree on every counter of 300
generated layers (the refinement files run a smaller, faster set once per mutant)."""
import pytest

from accel_sim.models.scnn.family import FAMILY
from tests.scnn._layers import chunked_case, small_case

CHUNKS, PER_CHUNK = 5, 44   # 220 generated layers
CHANNEL_CHUNKED = 80        # generated layers whose input channels do not fit the IARAM at once


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fast_equals_reference_on_generated_layers(chunk):
    strides, kernels = set(), set()
    for seed in range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK):
        arch, layer = small_case(seed)
        assert FAMILY.refinement(arch, layer) == [], (seed, layer, arch.scnn)
        strides.add(layer.stride_h)
        kernels.add(layer.kernel_h)
    assert strides == {1, 2} and kernels == {1, 3, 5}


def test_fast_equals_reference_on_layers_needing_channel_chunks():
    chunked, psums_through_dram, kinds = 0, 0, set()
    for seed in range(CHANNEL_CHUNKED):
        arch, layer = chunked_case(seed)
        assert FAMILY.refinement(arch, layer) == [], seed
        plan, counters = FAMILY.counters(arch, layer)
        chunked += plan.tiling.channel_chunks > 1
        psums_through_dram += plan.tiling.channel_chunks > 1 and counters.psum_oaram_words == 0
        kinds.add((layer.kind, plan.tiling.temporal_tiles > 1))
    assert chunked >= CHANNEL_CHUNKED // 2 and psums_through_dram >= 10
    assert kinds >= {("gemm", False), ("conv", True)}


def test_generated_cases_exercise_every_mechanism():
    seen = {"temporal": 0, "groups": 0, "conflicts": 0, "designs": set()}
    for seed in range(CHUNKS * PER_CHUNK):
        arch, layer = small_case(seed)
        plan, counters = FAMILY.counters(arch, layer)
        seen["temporal"] += plan.tiling.temporal_tiles > 1
        seen["groups"] += plan.tiling.out_groups > 1
        seen["conflicts"] += counters.bank_conflict_cycles > 0
        seen["designs"].add(arch.scnn.design)
    assert min(seen["temporal"], seen["groups"], seen["conflicts"]) >= 20
    assert len(seen["designs"]) == 5
