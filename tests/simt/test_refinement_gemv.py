"""dense_gemv, the CUDA-core batch-1 baseline (a warp per output row): the fast path and the SimPy reference
agree on every counter; at full occupancy it is DRAM-bound with B fetched about once per SM; with few
warps resident its rate is the bytes in flight per memory latency (Little's law), and more resident warps
make it faster until DRAM limits it."""
from __future__ import annotations

import dataclasses
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.simt.family import FAMILY
from accel_sim.workload import GemmLayer
from tests.simt.archs import simt

LANE_BYTES = 16     # one 128-bit load per lane per iteration


def fp16(**fields):
    return dataclasses.replace(simt(kernel="dense_gemv", **fields), word_bits=16)


@st.composite
def cases(draw):
    tc = dict(sms=draw(st.integers(1, 5)), memory_latency=draw(st.sampled_from([0, 37, 400])),
              shared_memory_bandwidth=draw(st.sampled_from([32.0, 128.0])),
              l2_to_sm_bandwidth=draw(st.sampled_from([7.5, 64.0])), l2_bandwidth=draw(st.sampled_from([50.0, 5120.0])),
              dram_bandwidth=draw(st.sampled_from([3.3, 1102.8])), l2_size=draw(st.sampled_from([2048, 40 * 2**20])))
    arch = simt(tc, kernel="dense_gemv", threads_per_cta=draw(st.sampled_from([32, 64, 128])),
                max_threads_per_sm=draw(st.sampled_from([128, 2048])), l2_latency=draw(st.sampled_from([0, 193])),
                loop_overhead_instructions=draw(st.integers(0, 3)),
                sm_l1_kernels=draw(st.sampled_from([(), ("dense_gemv",)])),
                l1_shared_memory_bytes=draw(st.sampled_from([256, 192 * 1024])), shared_memory_carveouts=(0, 256))
    layer = GemmLayer("gemv", m=draw(st.integers(1, 3)), k=draw(st.integers(1, 300)), n=draw(st.integers(1, 40)),
                      weight_density=draw(st.sampled_from([0.3, 1.0])))
    return arch, layer


@settings(derandomize=True, max_examples=40, deadline=None)
@given(cases())
def test_fast_and_reference_agree_on_every_counter(case):
    arch, layer = case
    assert FAMILY.refinement(arch, layer) == []


def test_full_occupancy_streams_the_weights_at_dram_bandwidth():
    arch = fp16()
    layer = GemmLayer("gemv", m=1, k=2048, n=2048)
    plan, c = FAMILY.counters(arch, layer)
    m = plan.machine
    weights = 2048 * 2048 * 2
    assert c.fmas == 2048 * 2048                                         # every product, zeros included
    assert c.cycles == c.dram_cycles == math.ceil((weights + 2 * 2048 * 2) / m.dram_bandwidth)
    b_sectors = 2048 * 2 // m.sector
    assert c.l1_misses <= m.sms * b_sectors < c.l1_misses + c.l1_hits    # B about once per SM, not once per CTA


def test_few_warps_in_flight_bound_the_rate_by_littles_law():
    rows, k = 8192, 1024
    layer = GemmLayer("gemv", m=1, k=k, n=rows)
    cycles = {}
    for threads in (128, 256, 2048):                     # resident threads per SM: 4, 8, 64 warps
        plan, c = FAMILY.counters(fp16(max_threads_per_sm=threads), layer)
        m = plan.machine
        warps_in_flight = m.sms * threads // m.warp_size
        # each warp keeps one 512-byte iteration in flight per memory latency: the GPU moves at most
        # warps x 512 bytes per latency (Little's law), so the weights take at least this long
        little = rows * k * 2 / (warps_in_flight * m.warp_size * LANE_BYTES) * m.dram_latency
        assert c.cycles >= little
        cycles[threads] = c
    assert cycles[128].sm_cycles > cycles[256].sm_cycles > cycles[2048].sm_cycles     # more in flight, faster
    assert cycles[128].cycles > 1.5 * cycles[128].dram_cycles                         # latency-bound, not DRAM
    # 64 warps x 512 B per SM cover DRAM bandwidth x latency (~4 KB per SM at 400 cycles): DRAM-bound
    assert cycles[2048].cycles == cycles[2048].dram_cycles < cycles[128].cycles
