"""Fast path and per-cycle reference agree cycle for cycle on generated small layers."""
import numpy as np
import pytest

from accel_sim.scnn.model import simulate_layer, simulate_layer_reference
from accel_sim.scnn.timeline import tile_timing
from accel_sim.scnn.reference import simpy_tile_timing
from tests.scnn._layers import chunked_case, small_case

CHUNKS, PER_CHUNK = 5, 44   # 220 generated layers
CHANNEL_CHUNKED = 80        # generated layers whose input channels do not fit the IARAM at once


def agreeing_run(arch, layer, seed):
    """The fast path's result, after checking the reference gives the same cycles, metrics and actions."""
    fast, ref = simulate_layer(arch, layer), simulate_layer_reference(arch, layer)
    assert (fast.cycles, fast.compute_cycles, fast.stall_cycles) == \
        (ref.cycles, ref.compute_cycles, ref.stall_cycles), (seed, layer, arch.scnn)
    assert dict(fast.metrics) == dict(ref.metrics), seed
    assert fast.actions == ref.actions
    return fast


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fast_equals_reference_on_generated_layers(chunk):
    strides, kernels = set(), set()
    for seed in range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK):
        arch, layer = small_case(seed)
        agreeing_run(arch, layer, seed)
        strides.add(layer.stride_h)
        kernels.add(layer.kernel_h)
    assert strides == {1, 2} and kernels == {1, 3, 5}


def test_fast_equals_reference_on_layers_needing_channel_chunks():
    chunked, psums_through_dram, kinds = 0, 0, set()
    for seed in range(CHANNEL_CHUNKED):
        arch, layer = chunked_case(seed)
        fast = agreeing_run(arch, layer, seed)
        chunked += fast.metrics["channel_chunks"] > 1
        on_chip = any(a.component == "oaram" and a.bits == arch.scnn.accumulator_bits for a in fast.actions)
        psums_through_dram += fast.metrics["channel_chunks"] > 1 and not on_chip
        kinds.add((layer.kind, fast.metrics["temporal_tiles"] > 1))
    assert chunked >= CHANNEL_CHUNKED // 2 and psums_through_dram >= 10
    assert kinds >= {("gemm", False), ("conv", True)}


def test_simpy_timeline_equals_closed_form():
    rng = np.random.default_rng(3)
    for _ in range(100):
        pes, groups = int(rng.integers(1, 6)), int(rng.integers(1, 7))
        busy = rng.integers(0, 40, size=(pes, groups))
        drain = rng.integers(0, 60, size=groups)
        load, stream = int(rng.integers(0, 50)), int(rng.integers(0, 400))
        assert tile_timing(busy, drain, load, stream) == simpy_tile_timing(busy, drain, load, stream)


def test_double_buffering_hides_drain_behind_next_group():
    busy = np.array([[10, 10, 10]])
    # drains of 8 fit behind the next group's 10 cycles: only the last one shows
    assert tile_timing(busy, np.array([8, 8, 8]), 0, 0).compute_cycles == 38
    # drains of 15 > 10: the third group waits for the first buffer (start = drain_end[0] = 25)
    assert tile_timing(busy, np.array([15, 15, 15]), 0, 0).compute_cycles == 10 + 15 * 3


def test_generated_cases_exercise_every_mechanism():
    from accel_sim.scnn.model import simulate_layer as fast
    seen = {"temporal": 0, "groups": 0, "conflicts": 0, "stall": 0, "designs": set()}
    for seed in range(CHUNKS * PER_CHUNK):
        arch, layer = small_case(seed)
        m = fast(arch, layer).metrics
        seen["temporal"] += m["temporal_tiles"] > 1
        seen["groups"] += m["output_groups"] > 1
        seen["conflicts"] += m["bank_conflict_cycles"] > 0
        seen["designs"].add(arch.scnn.design)
    assert min(seen["temporal"], seen["groups"], seen["conflicts"]) >= 20
    assert len(seen["designs"]) == 5
