"""dense_gemv, the CUDA-core batch-1 baseline (a warp per output row): the fast path and the SimPy reference
agree on every counter; at full occupancy it is DRAM-bound with B fetched about once per SM; with few
warps resident its rate is the bytes in flight per memory latency (Little's law), and more resident warps
make it faster until DRAM limits it."""
from __future__ import annotations

import dataclasses
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.models.simt.family import FAMILY
from accel_sim.foundations.workload import GemmLayer
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
    # 64 warps x 512 B per SM cover DRAM bandwidth x latency (~5.6 KB per SM at 575 cycles): DRAM-bound
    assert cycles[2048].cycles == cycles[2048].dram_cycles < cycles[128].cycles


def test_schedule_counted_by_hand():
    """3 output rows of K = 300 FP16 weights (600 bytes: 2 iterations of 512 bytes per warp), batch 2, CTAs of
    2 warps (rows 0-1 and row 2, per column). Both paths read the plan, so its numbers are checked by hand."""
    arch = fp16(threads_per_cta=64, loop_overhead_instructions=1)
    s = FAMILY.plan(arch, GemmLayer("g", m=2, k=300, n=3)).candidates[0].schedule
    # per warp: 2 iterations x (2 loads + 8 FMAs x 2 issue cycles + 1 loop) + 2 set-up + 5 halvings x (1 + 2) + 1 store
    assert s.group_issue.tolist() == [56] * 6
    assert s.group_latency.tolist() == [2 * 575] * 6               # 2 iterations x the 575-cycle DRAM latency (gpu-benches)
    assert (s.shared_memory_per_cta, s.tensor_core, s.tensor_macs) == (0, False, 0)   # CUDA cores, no staging
    warm = FAMILY.plan(dataclasses.replace(arch, simt=dataclasses.replace(arch.simt, warm_l2=True)),
                       GemmLayer("g", m=2, k=300, n=3))
    for path in (FAMILY.fast, FAMILY.reference):                    # B in L2 already, y kept there
        assert (path(warm, None).dram_read_bytes, path(warm, None).dram_write_bytes) == (3 * 600, 0)
    assert s.warp_cta.tolist() == [0, 0, 1, 2, 2, 3]               # column 0's two CTAs, then column 1's
    # A rows of 600 bytes at 0, 600, 1200 span 19, 20, 20 sectors of 32 bytes; B's column 19 sectors; y: 1 sector
    assert s.cta_l1_bytes.tolist() == [(19 + 19 + 20 + 19) * 32, (20 + 19) * 32] * 2
    assert s.cta_l2_sectors.tolist() == [19 + 20 + 1, 20 + 1] * 2
    assert s.cached_ptr.tolist() == [0, 19, 38, 57, 76]
    assert s.cached_sectors.tolist() == (list(range(19)) * 2 + list(range(19, 38)) * 2)
    assert (s.dram_read_bytes, s.dram_write_bytes, s.fmas, s.products) == (3 * 600 + 2 * 600, 3 * 2 * 2, 3 * 300 * 2,
                                                                      3 * 300 * 2)


def test_each_ctas_output_sectors_counted_by_hand():
    """40 rows of K = 256 FP16 weights (512 bytes: 16 whole sectors each), CTAs of 32 warps: CTA 0 stores y's
    first 32 values (64 bytes, 2 sectors), CTA 1 the last 8 (16 bytes at byte 64, 1 sector)."""
    s = FAMILY.plan(fp16(threads_per_cta=1024), GemmLayer("g", m=1, k=256, n=40)).candidates[0].schedule
    assert s.cta_l2_sectors.tolist() == [32 * 16 + 2, 8 * 16 + 1]
