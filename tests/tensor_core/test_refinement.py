"""Tensor-core refinement: the fast path and the SimPy reference agree on every counter, on
generated layers and configs covering every spec switch (word width and pattern, sparse path on
and off, SMs, sub-partitions, MMA shape and rate, metadata width, every bandwidth, L2 size and
residency, latency, shared-memory capacity, kernel lists with ties), and under the max_cycles
guard."""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from accel_sim.foundations.errors import InputError, SimulationError
from accel_sim.foundations.contract import counter_differences
from accel_sim.models.tensor_core.counters import TensorCoreCounters
from accel_sim.models.tensor_core.family import FAMILY
from accel_sim.models.tensor_core.spec import KernelTile
from accel_sim.foundations.workload import ConvLayer, GemmLayer, NMSparsity
from accel_sim.foundations.workload.layer import BatchedGemmLayer
from tests.tensor_core.archs import a100

TILES = (KernelTile(128, 256, 64, 64, 64), KernelTile(128, 128, 32, 64, 64), KernelTile(64, 64, 64, 32, 32),
         KernelTile(128, 16, 64, 32, 16), KernelTile(64, 8, 128, 16, 8), KernelTile(32, 24, 96, 16, 8),
         KernelTile(16, 8, 32, 16, 8))

FIELDS = [f.name for f in dataclasses.fields(TensorCoreCounters)]


@st.composite
def cases(draw):
    word_bits = draw(st.sampled_from([8, 16, 32]))
    pattern = draw(st.sampled_from([(2, 4), (1, 4)]))
    hardware = (1, 2) if word_bits == 32 else pattern
    arch = a100(
        word_bits, sms=draw(st.integers(1, 9)), tensor_cores_per_sm=draw(st.integers(1, 4)),
        dense_macs_per_cycle=draw(st.sampled_from([128, 256, 300])), sparse_support=draw(st.booleans()),
        nm_n=pattern[0], nm_m=pattern[1], mma_k=draw(st.sampled_from([8, 16, 16, 32])),
        metadata_bits_per_value=draw(st.sampled_from([2, 3])), memory_latency=draw(st.sampled_from([0, 7, 400])),
        l2_size=draw(st.sampled_from([1024, 64 * 1024, 40 * 2**20])), l2_bandwidth=draw(st.sampled_from([100.0, 5120.0])),
        l2_to_sm_bandwidth=draw(st.sampled_from([16.5, 64.0])), dram_bandwidth=draw(st.sampled_from([3.5, 1102.8])),
        shared_memory_bandwidth=draw(st.sampled_from([16.0, 128.0, 1000.0])),
        register_file_bandwidth=draw(st.sampled_from([50.0, 208.0])),
        shared_memory_size=draw(st.sampled_from([32 * 1024, 164 * 1024])),
        kernels=tuple(draw(st.lists(st.sampled_from(TILES), min_size=1, max_size=3))),
        sparse_kernels=tuple(draw(st.lists(st.sampled_from(TILES), min_size=0, max_size=2))),
        split_k_limit=draw(st.sampled_from([1, 2, 7])), batched_split_limit=draw(st.sampled_from([1, 4, 128])),
        dram_stream_cycles=draw(st.sampled_from([0, 0, 5, 2192])))
    nm = draw(st.sampled_from([None, NMSparsity(*hardware), NMSparsity(1, 4)]))
    if draw(st.booleans()):
        layer = GemmLayer("gemm", m=draw(st.integers(1, 120)), k=draw(st.sampled_from([draw(st.integers(1, 200)), 384, 768])),
                          n=draw(st.integers(1, 120)),
                          weight_sparsity=nm)
    else:
        groups = draw(st.integers(1, 2))
        layer = ConvLayer("conv", in_h=draw(st.integers(3, 8)), in_w=draw(st.integers(3, 8)),
                          in_channels=4 * groups * draw(st.integers(1, 3)), out_channels=groups * draw(st.integers(1, 20)),
                          kernel_h=draw(st.integers(1, 3)), kernel_w=draw(st.integers(1, 3)),
                          stride_h=draw(st.integers(1, 2)), groups=groups, batch=draw(st.integers(1, 2)),
                          weight_sparsity=nm)
    return arch, layer


@settings(derandomize=True, max_examples=100, deadline=None)
@given(case=cases())
def test_fast_and_reference_agree_on_every_counter(case):
    arch, layer = case
    try:
        plan = FAMILY.plan(arch, layer)
    except InputError:
        assume(False)   # no kernel fits shared memory with whole MMAs of the mode
    fast, reference = FAMILY.fast(plan, None), FAMILY.reference(plan, None)
    assert counter_differences(fast, reference) == []
    assert fast.kernel < len(plan.kernels)
    for counters in (fast, reference):    # counters are integers (a float count is a bug even if equal)
        assert {name: type(value) for name, value in counters.as_dict().items()} == dict.fromkeys(FIELDS, int)


def test_both_paths_stop_at_the_max_cycles_guard():
    # three kernels: the first is slower than the third; the guard sits at the third's cycles
    arch = a100(sms=3, kernels=(KernelTile(64, 8, 128, 16, 8), KernelTile(128, 256, 64, 64, 64),
                                KernelTile(32, 24, 96, 16, 8)))
    layer = GemmLayer("g", m=40, k=300, n=100)
    plan = FAMILY.plan(arch, layer)
    best = FAMILY.fast(plan, None)
    assert best.kernel == 2
    for count in (FAMILY.fast, FAMILY.reference):
        assert count(plan, best.cycles) == best
        with pytest.raises(SimulationError, match="max_cycles"):
            count(plan, best.cycles - 1)


@st.composite
def split_cases(draw):
    """Skinny GEMMs and batched GEMMs with long K on few SMs: the split-K rules pick factors > 1."""
    arch = a100(16, sms=draw(st.integers(2, 9)), tensor_cores_per_sm=draw(st.integers(1, 4)),
                memory_latency=draw(st.sampled_from([0, 7, 400])), l2_size=draw(st.sampled_from([1024, 40 * 2**20])),
                l2_to_sm_bandwidth=draw(st.sampled_from([16.5, 64.0])), dram_bandwidth=draw(st.sampled_from([3.5, 1102.8])),
                loads_in_flight=draw(st.sampled_from(["unbounded", "stages"])),
                kernels=tuple(draw(st.lists(st.sampled_from(TILES[3:]), min_size=1, max_size=2))),
                split_k_limit=draw(st.sampled_from([2, 7])), batched_split_limit=draw(st.sampled_from([4, 128])))
    k = draw(st.sampled_from([96, 128, 384, 768]))
    if draw(st.booleans()):
        layer = GemmLayer("skinny", m=draw(st.integers(1, 16)), k=k, n=draw(st.integers(1, 64)))
    else:
        layer = BatchedGemmLayer("attention", instances=draw(st.integers(1, 3)), m=draw(st.integers(1, 8)), k=k,
                                 n=draw(st.integers(1, 40))).as_grouped()
    return arch, layer


@settings(derandomize=True, max_examples=40, deadline=None)
@given(case=split_cases())
def test_split_k_fast_and_reference_agree_on_every_counter(case):
    arch, layer = case
    plan = FAMILY.plan(arch, layer)
    fast, reference = FAMILY.fast(plan, None), FAMILY.reference(plan, None)
    assert counter_differences(fast, reference) == []


def test_split_k_cases_split():
    """The split cases do exercise split-K (single and batched GEMMs), not only unsplit kernels."""
    seen = set()

    @settings(derandomize=True, max_examples=40, deadline=None)
    @given(case=split_cases())
    def collect(case):
        plan = FAMILY.plan(*case)
        seen.update((grid.split > 1, plan.problem.groups > 1) for grid in plan.grids)
    collect()
    assert {(True, False), (True, True)} <= seen
