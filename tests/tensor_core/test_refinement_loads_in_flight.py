"""``tensor_core.loads_in_flight: stages`` (CUTLASS's buffer ring: at most stages - 1 loads ahead of the tensor
cores): the fast path and the SimPy reference agree on every counter; the ring only ever delays (never faster
than unbounded, the same when the ring holds every stage or nothing waits on memory); a CTA moves at most
stages - 1 stages per memory latency (Little's law); a wrong value is one clear input error."""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import assume, given, settings

from accel_sim.pipeline.catalog import load_arch
from accel_sim.foundations.errors import InputError
from accel_sim.models.tensor_core.family import FAMILY
from accel_sim.models.tensor_core.spec import KernelTile
from accel_sim.foundations.workload import GemmLayer, NMSparsity
from tests.tensor_core.archs import a100
from tests.tensor_core.test_refinement import cases


def ring(arch, mode: str = "stages"):
    return dataclasses.replace(arch, tensor_core=dataclasses.replace(arch.tensor_core, loads_in_flight=mode))


@settings(derandomize=True, max_examples=40, deadline=None)
@given(cases())
def test_fast_and_reference_agree_on_every_counter(case):
    arch, layer = case
    try:
        FAMILY.plan(arch, layer)
    except InputError:
        assume(False)
    assert FAMILY.refinement(ring(arch), layer) == []


@pytest.mark.parametrize("stages", [1, 2, 3, 6])
@pytest.mark.parametrize("sparse", [False, True])
def test_a_cta_moves_at_most_its_ring_per_latency(stages, sparse):
    latency, k = 400, 64 * 24                                             # 24 stages of K
    tile = KernelTile(64, 8, 64, 16, 8, stages)
    arch = a100(16, sms=1, memory_latency=latency, kernels=(tile,))
    layer = GemmLayer("gemv", m=1, k=k, n=64, weight_sparsity=NMSparsity(2, 4) if sparse else None)
    free = FAMILY.counters(arch, layer)[1]
    bounded = FAMILY.counters(ring(arch), layer)[1]
    n = k // tile.k
    # load j waits for stage j - (stages - 1) to reach the tensor cores, a memory latency after its own load
    assert bounded.cycles >= (n - 1) // max(1, stages - 1) * latency
    assert bounded.cycles >= free.cycles
    if stages <= 3:      # (stages - 1) loads of 128 port cycles each cannot cover 400 cycles of latency
        assert bounded.cycles > free.cycles
    assert {f: getattr(bounded, f) for f in bounded.as_dict() if f != "cycles"} == \
        {f: getattr(free, f) for f in free.as_dict() if f != "cycles"}    # only the time moves


def test_ring_is_free_when_it_holds_every_stage_or_nothing_waits():
    layer = GemmLayer("gemm", m=40, k=256, n=96, weight_sparsity=NMSparsity(2, 4))
    deep = a100(16, sms=2, kernels=(KernelTile(64, 16, 64, 16, 8, 5),))   # 4 stages of K, 4 loads ahead
    assert FAMILY.counters(ring(deep), layer)[1] == FAMILY.counters(deep, layer)[1]
    shallow = a100(16, sms=2, memory_latency=0, kernels=(KernelTile(64, 16, 64, 16, 8, 2),))
    assert FAMILY.counters(ring(shallow), layer)[1].cycles >= FAMILY.counters(shallow, layer)[1].cycles


def test_shipped_config_keeps_unbounded_loads():
    assert load_arch("ampere_a100").tensor_core.loads_in_flight == "unbounded"


def test_unknown_mode_is_one_clear_input_error():
    with pytest.raises(InputError) as err:
        load_arch("ampere_a100", {"tensor_core.loads_in_flight": "ring"})
    message = str(err.value)
    assert "tensor_core.loads_in_flight" in message and "unbounded" in message and len(message.splitlines()) == 1
