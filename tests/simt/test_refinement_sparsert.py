"""SparseRT's generated SpMM (kernel sparsert): a hand-derived example on both paths, the per-layer
autotuning keeping the fastest (rows x columns) kernel, and a CTA above the thread limit as bad input."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.foundations.errors import InputError
from accel_sim.models.simt.family import FAMILY
from accel_sim.foundations.workload import GemmLayer
from tests.cli.cli_helpers import assert_one_line_error, run_cli
from tests.simt.archs import payload_layer, simt


@pytest.fixture()
def three_rows(tmp_path):
    """A (3 x 4): row 0 in columns {0, 2}, row 1 in {2, 3}, row 2 in {1}; B is 4 x 40. Weights are A^T."""
    weights = np.zeros((4, 3), dtype=np.float32)
    weights[[0, 2], 0] = 1.0
    weights[[2, 3], 1] = 2.0
    weights[1, 2] = 3.0
    return payload_layer(tmp_path, "spmm", 40, weights)


def test_sparsert_worked_example_on_both_paths(three_rows):
    arch = simt({"sms": 1, "memory_latency": 400}, kernel="sparsert", sparsert_rows=(2,), sparsert_tile_n=(64,),
                instruction_bytes=16, registers_per_thread=32)
    plan = FAMILY.plan(arch, three_rows)
    (c,) = plan.candidates
    s = c.schedule
    # row blocks {0, 1} and {2}; one 40-column tile: 2 warps (32 + 8 columns), 64 threads, 32 + 2 registers
    assert (s.ctas, s.warps, s.threads_per_cta, s.registers_per_thread, s.shared_memory_per_cta) == (2, 4, 64, 34, 0)
    # distinct B rows 3 and 1 (one load each), non-zeros 4 and 1 (FFMA: 2 cycles), stores 2 and 1, set-up 2
    assert s.group_issue.tolist() == [3 + 8 + 2 + 2] * 2 + [1 + 2 + 1 + 2] * 2
    assert s.group_latency.tolist() == [400] * 4
    # B row k at byte 160 k: warp 0 reads 128 B (4 sectors), warp 1 32 B (1); C rows alike; code 11 and 5
    # instructions of 16 B: 6 and 3 sectors. No values, indices or row pointers are loaded.
    assert s.cta_l1_bytes.tolist() == [(15 + 10) * 32, (5 + 5) * 32]
    # the B loads are the CTAs' L1-cached sectors (rows 0, 2, 3: sectors 0-4, 10-14, 15-19; row 1: 5-9), apart from
    # the C stores and the code through the L2 port
    assert s.cta_l2_sectors.tolist() == [10 + 6, 5 + 3]
    assert s.cached_ptr.tolist() == [0, 15, 20]
    assert s.cached_sectors.tolist() == [*range(0, 5), *range(10, 20), *range(5, 10)]
    assert (s.dram_read_bytes, s.dram_write_bytes, s.dense_operand_bytes) == ((11 + 5) * 16 + 4 * 40 * 4, 3 * 40 * 4, 640)
    assert (s.products, s.fmas) == (5 * 40, 5 * 40)                    # every non-zero times each of B's 40 columns
    assert c.ctas_per_sm == 2
    for path in (FAMILY.fast, FAMILY.reference):
        k = path(plan, None)
        assert (k.cycles, k.sm_cycles, k.latency_cycles, k.issue_cycles, k.l1_cycles, k.l2_port_cycles) == (
            415, 415, 415 + 406, 8 + 3, 7 + 3, 16 + 7)
        assert (k.l2_cycles, k.dram_cycles, k.fmas, k.atomics, k.issue_slots) == (1, 2, 5 * 40, 0, 2 * 15 + 2 * 6)
        assert (k.l2_sectors, k.l1_hits, k.l1_misses) == (16 + 8 + 20, 0, 20)   # no B row shared: every sector misses


def test_sparsert_later_column_tile_reads_its_own_sectors_of_b(three_rows):
    """The worked example's A, rows (2,), tiles of 32 columns over B 4 x 40 FP32 (row k at byte 160 k): tile 0
    reads sectors 5k..5k+3 of each B row its block touches, tile 1 sector 5k+4. Block 0 touches rows 0, 2, 3,
    block 1 row 1; CTA = tile x 2 + block. L1 bytes: B sectors plus the C sectors of the block's rows in the tile
    (4 and 1)."""
    s = FAMILY.plan(simt({"sms": 1}, kernel="sparsert", sparsert_rows=(2,), sparsert_tile_n=(32,)),
                    three_rows).candidates[0].schedule
    assert s.cached_ptr.tolist() == [0, 12, 16, 19, 20]
    assert s.cached_sectors.tolist() == [0, 1, 2, 3, 10, 11, 12, 13, 15, 16, 17, 18, 5, 6, 7, 8, 4, 14, 19, 9]
    assert s.cta_l1_bytes.tolist() == [(12 + 2 * 4) * 32, (4 + 4) * 32, (3 + 2) * 32, (1 + 1) * 32]


def test_sparsert_autotuning_keeps_the_fastest_kernel_on_both_paths(three_rows):
    # one block of all 3 rows: 4 loads + 5 FFMAs x 2 + 3 stores + 2 = 19 issue, 419 chain: slower than 2 rows
    for rows, best in (((2, 3), 0), ((3, 2), 1)):
        arch = simt({"sms": 1, "memory_latency": 400}, kernel="sparsert", sparsert_rows=rows, sparsert_tile_n=(64, 128))
        plan = FAMILY.plan(arch, three_rows)
        assert len(plan.candidates) == 2                     # tiles wider than B's 40 columns are one kernel
        for path in (FAMILY.fast, FAMILY.reference):
            assert path(plan, None).candidate == best and path(plan, None).cycles == 415


def test_sparsert_cta_above_the_thread_limit_is_one_input_error(three_rows):
    arch = simt(kernel="sparsert", sparsert_tile_n=(2048,))
    layer = GemmLayer("wide", m=2048, k=4, n=3, weight_density=0.5)
    with pytest.raises(InputError, match="simt.threads_per_cta"):
        FAMILY.plan(arch, layer)


def test_sparsert_bad_tile_on_the_command_line(capsys, tmp_path):
    result = run_cli(capsys, "run", "--arch", "ampere_a100_simt", "--no-figure", "--quiet", "--workload",
                     "lenet_300_100", "--out", tmp_path, "--set", "simt.kernel=sparsert", "--set",
                     "simt.sparsert_tile_n=[0]")
    assert_one_line_error(result, "sparsert_tile_n")


@settings(derandomize=True, max_examples=40, deadline=None)
@given(m=st.integers(1, 70), k=st.integers(1, 90), n=st.integers(1, 90), density=st.sampled_from([0.05, 0.3, 1.0]),
       sms=st.integers(1, 4), rows=st.sampled_from([(1,), (8, 3), (2, 32)]), tiles=st.sampled_from([(64,), (8, 40)]),
       l2_port=st.sampled_from([7.5, 64.0]), l2_size=st.sampled_from([2048, 40 * 2**20]), warm=st.booleans(),
       sm_l1=st.booleans(), l1=st.sampled_from([(192 * 1024, (0, 8192)), (640, (0, 128)), (1024, (512,))]),
       icache=st.sampled_from([0, 256, 128 * 1024]), ways=st.sampled_from([0, 2]))
def test_sparsert_fast_and_reference_agree_on_every_counter(m, k, n, density, sms, rows, tiles, l2_port, l2_size, warm,
                                                            sm_l1, l1, icache, ways):
    # small L1s (5 lines, 4 lines) make the LRU evict; no sm_l1_kernels gives each CTA a private L1; an 8-sector
    # instruction cache evicts code blocks and never keeps the larger ones
    arch = simt({"sms": sms, "l2_to_sm_bandwidth": l2_port, "l2_size": l2_size}, kernel="sparsert",
                sparsert_rows=rows, sparsert_tile_n=tiles, warm_l2=warm, sm_l1_kernels=("sparsert",) if sm_l1 else (),
                l1_shared_memory_bytes=l1[0], shared_memory_carveouts=l1[1], instruction_cache_bytes=icache,
                l2_ways=ways)
    assert FAMILY.refinement(arch, GemmLayer("gemm", m=m, k=k, n=n, weight_density=density)) == []


@pytest.fixture()
def shared_rows(tmp_path):
    """A (2 x 4): both rows in columns {0, 2}; B is 4 x 32 (a B row is one 128-byte line, 4 sectors)."""
    weights = np.zeros((4, 2), dtype=np.float32)
    weights[[0, 2], :] = 1.0
    return payload_layer(tmp_path, "spmm", 32, weights)


@pytest.mark.parametrize(("sms", "sm_l1", "l1_bytes", "hits"), [
    (1, True, 192 * 1024, 8),    # both CTAs on one SM: the second finds B rows 0 and 2 (lines 0 and 2) in its L1
    (1, True, 128, 4),           # a one-line L1: LRU keeps line 2 (last filled), line 0 is evicted and misses again
    (1, False, 192 * 1024, 0),   # each CTA's L1 its own
    (2, True, 192 * 1024, 0),    # the CTAs land on different SMs: nothing shared
])
def test_sparsert_ctas_on_one_sm_share_its_l1_on_both_paths(shared_rows, sms, sm_l1, l1_bytes, hits):
    arch = simt({"sms": sms, "l2_to_sm_bandwidth": 64.0}, kernel="sparsert", sparsert_rows=(1,),
                sparsert_tile_n=(64,), sm_l1_kernels=("sparsert",) if sm_l1 else (), l1_shared_memory_bytes=l1_bytes,
                shared_memory_carveouts=(0,))
    plan = FAMILY.plan(arch, shared_rows)
    (c,) = plan.candidates
    # one row per CTA: 2 CTAs of one warp; each loads sectors 0-3 and 8-11; C stores 4 sectors, code 7 x 16 B: 4
    assert (c.schedule.ctas, c.ctas_per_sm, c.l1_lines) == (2, 2 if sms == 1 else 1, l1_bytes // 128)
    assert c.schedule.cached_sectors.tolist() == [0, 1, 2, 3, 8, 9, 10, 11] * 2
    assert c.schedule.cta_l2_sectors.tolist() == [8, 8]
    for path in (FAMILY.fast, FAMILY.reference):
        k = path(plan, None)
        assert (k.l1_hits, k.l1_misses, k.l2_sectors) == (hits, 16 - hits, 16 + 16 - hits)
        # the L2 port at 64 B / cycle: CTA 0 (8 + 8 sectors) 8 cycles, CTA 1 (8 + 8 - hits) fewer
        assert k.l2_port_cycles == 8 + (16 - hits) // 2


@pytest.mark.parametrize(("sms", "icache_bytes", "hits"), [
    (1, 128 * 1024, 6 + 3),   # one SM: CTAs 2 and 3 find the codes CTAs 0 and 1 fetched
    (1, 8 * 32, 0),           # 8 sectors: block 1's code (3) evicts block 0's (6), and block 0's then evicts block 1's
    (1, 5 * 32, 3),           # 5 sectors: block 0's code (6) never fits and streams each time; block 1's hits once
    (1, 0, 0),                # no instruction cache: every CTA fetches its code (the model before it)
    (2, 128 * 1024, 6 + 3),   # CTAs 0, 2 (block 0) on SM 0 and 1, 3 (block 1) on SM 1: each SM fetches its block once
    (2, 6 * 32, 6 + 3),       # a 6-sector cache holds block 0's 6-sector code exactly (and block 1's on the other SM)
])
def test_sparsert_code_is_fetched_once_per_sm_on_both_paths(three_rows, sms, icache_bytes, hits):
    """The worked example's A with 32-column tiles: 4 CTAs (CTA = tile x 2 + row block), block 0's code 11
    instructions of 16 B (6 sectors), block 1's 5 (3 sectors). Each CTA's L2-port sectors: its C stores (tile 0:
    8 and 4, tile 1: 2 and 1) plus its code, 33 in all, plus its B sectors missing in L1 (12, 4, 3, 1: all distinct,
    20 misses), less the code its SM's instruction cache holds."""
    arch = simt({"sms": sms, "l2_to_sm_bandwidth": 64.0}, kernel="sparsert", sparsert_rows=(2,),
                sparsert_tile_n=(32,), instruction_bytes=16, instruction_cache_bytes=icache_bytes)
    plan = FAMILY.plan(arch, three_rows)
    (c,) = plan.candidates
    s = c.schedule
    assert (s.code_block.tolist(), s.code_sectors.tolist()) == ([0, 1, 0, 1], [6, 3])
    assert s.cta_l2_sectors.tolist() == [8 + 6, 4 + 3, 2 + 6, 1 + 3]
    assert c.ctas_per_sm == 4 // sms
    for path in (FAMILY.fast, FAMILY.reference):
        k = path(plan, None)
        assert (k.instruction_cache_hits, k.l1_misses, k.l2_sectors) == (hits, 20, 33 + 20 - hits)
    assert FAMILY.refinement(arch, three_rows) == []


def test_sparsert_code_hits_shorten_the_ctas_that_wait_for_a_slot(three_rows):
    """One CTA slot (max_ctas_per_sm 1) and a 0.25 B / cycle L2 port: every CTA waits for the one before, each bound by
    its port (its sectors x 128 cycles, above its ~415-cycle chain: 14 + 12, 7 + 4, 8 + 3 less the 6 of its cached
    code, 4 + 1 less 3): the code the instruction cache holds shortens the kernel on both paths alike."""
    times = {}
    for icache in (0, 128 * 1024):
        arch = simt({"sms": 1, "l2_to_sm_bandwidth": 0.25, "memory_latency": 400}, kernel="sparsert",
                    sparsert_rows=(2,), sparsert_tile_n=(32,), instruction_bytes=16, instruction_cache_bytes=icache,
                    max_ctas_per_sm=1)
        plan = FAMILY.plan(arch, three_rows)
        assert FAMILY.refinement(arch, three_rows) == []
        times[icache] = FAMILY.fast(plan, None).sm_cycles
    # the last CTA's 2 sectors (256 cycles) fall under its chain: 1 load + 2 (FFMA) + 1 store + 2 set-up + 400
    assert times[0] == (26 + 11 + 11 + 5) * 128 and times[128 * 1024] == (26 + 11 + 5) * 128 + 406


def test_a_one_sector_instruction_cache_holds_a_one_sector_code_block(three_rows):
    """The example above with 2-byte instructions: block 0's 11 instructions are 22 bytes and block 1's 5 are 10, one
    sector each. Two SMs, each with a 32-byte (one-sector) instruction cache: SM 0 runs CTAs 0 and 2 (block 0), SM 1
    CTAs 1 and 3 (block 1); each SM's second CTA finds its block's one sector held: 2 hits, 4 - 2 code sectors and the
    C stores (8 + 4 + 2 + 1) plus the 20 B misses through the L2 port."""
    arch = simt({"sms": 2, "l2_to_sm_bandwidth": 64.0}, kernel="sparsert", sparsert_rows=(2,),
                sparsert_tile_n=(32,), instruction_bytes=2, instruction_cache_bytes=32)
    plan = FAMILY.plan(arch, three_rows)
    s = plan.candidates[0].schedule
    assert (s.code_block.tolist(), s.code_sectors.tolist()) == ([0, 1, 0, 1], [1, 1])
    for path in (FAMILY.fast, FAMILY.reference):
        k = path(plan, None)
        assert (k.instruction_cache_hits, k.l1_misses, k.l2_sectors) == (2, 20, 15 + 4 + 20 - 2)
