"""Atomic adds on the SIMT model, hand-derived and checked on both paths: a request per warp instruction and
sector, its L2 slice (sector modulo the slice count), the operations on its most-updated address serialised
in the slice's atomic unit, each slice a FIFO of the CTAs' demands in start order, the kernel not done before
every slice is."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from accel_sim.models.simt.family import FAMILY
from accel_sim.models.simt.fast import cta_demands
from accel_sim.models.simt.plan.schedule import atomic_demands, atomic_runs
from accel_sim.models.simt.spec import SgemmTile
from accel_sim.foundations.workload import GemmLayer
from tests.simt.archs import payload_layer, simt


def test_atomic_runs_lists_one_request_per_sector_of_each_run():
    cta, sector, serial = atomic_runs(np.array([3, 5]), np.array([10, 0]), np.array([2, 3]))
    assert (cta.tolist(), sector.tolist(), serial.tolist()) == ([3, 3, 5, 5, 5], [10, 11, 0, 1, 2], [1] * 5)


def test_requests_go_to_their_sector_s_slice_and_add_up_per_cta(two_rows):
    # row 0 (CTA 0): y sectors 0..3 (columns 0..31), then 4 (32..39); row 1 (CTA 1): sector 7 (column 63)
    arch = simt({"sms": 1}, kernel="csr_vector", transpose=True, threads_per_cta=32, l2_slices=2, l2_atomic_cycles=3)
    plan = FAMILY.plan(arch, two_rows)
    cta, slice_, cycles = atomic_demands(plan.machine, plan.candidates[0].schedule)
    assert (cta.tolist(), slice_.tolist(), cycles.tolist()) == ([0, 0, 1], [0, 1, 1], [3 * 3, 2 * 3, 1 * 3])


def test_adds_to_one_address_in_one_instruction_are_serialised(tmp_path):
    """csr_scalar A^T x, a row per lane: rows 0, 1, 2 start with column 5, so the warp's first iteration adds
    three times into y[5] (one request, 3 operations on one address); row 0's second non-zero adds into y[6]."""
    weights = np.zeros((16, 3), dtype=np.float32)
    weights[5, :] = 1.0
    weights[6, 0] = 1.0
    layer = payload_layer(tmp_path, "spmv", 1, weights)
    arch = simt({"sms": 1}, kernel="csr_scalar", transpose=True, threads_per_cta=32, l2_slices=4,
                l2_atomic_cycles=1000)
    plan = FAMILY.plan(arch, layer)
    s = plan.candidates[0].schedule
    assert (s.atomic_cta.tolist(), s.atomic_sector.tolist(), s.atomic_serial.tolist()) == ([0, 0], [0, 0], [3, 1])
    for path in (FAMILY.fast, FAMILY.reference):
        c = path(plan, None)
        assert c.atomics == 2 and c.atomic_cycles == (3 + 1) * 1000     # both requests on slice 0, one after the other
        assert c.cycles == c.atomic_cycles > c.sm_cycles                 # the atomic unit ends the kernel


@pytest.mark.parametrize("turn, expected", [(10_000, lambda t1: 6 * 10_000), (1, lambda t1: t1 + 1)])
def test_a_slice_serves_the_ctas_demands_in_start_order(two_rows, turn, expected):
    """One CTA slot: CTA 1 starts when CTA 0 ends (t1). One slice: CTA 0's 5 requests queue at 0, CTA 1's one at
    t1, so the slice is done at max(5 x turn, t1) + turn."""
    arch = simt({"sms": 1}, kernel="csr_vector", transpose=True, threads_per_cta=32, max_ctas_per_sm=1, l2_slices=1,
                l2_atomic_cycles=turn)
    plan = FAMILY.plan(arch, two_rows)
    t1 = int(max(1, *(d[0] for d in cta_demands(plan, plan.candidates[0]))))
    assert 5 * 10_000 > t1 > 5                                          # the two cases are the two branches of max
    for path in (FAMILY.fast, FAMILY.reference):
        c = path(plan, None)
        assert c.atomic_cycles == expected(t1)
        assert c.cycles == max(c.sm_cycles, c.l2_cycles, c.dram_cycles, c.atomic_cycles)


def test_atomic_requests_cost_one_l2_sector_and_one_write_back(two_rows):
    arch = simt({"sms": 1}, kernel="csr_vector", transpose=True, threads_per_cta=32)
    plan, c = FAMILY.counters(arch, two_rows)
    result = FAMILY.account(plan, c)
    writes = [a for a in result.actions if a.component == "l2" and a.action == "write"]
    assert c.atomics == 6 and [a.count for a in writes] == [6]
    assert FAMILY.refinement(arch, two_rows) == []


def test_each_column_of_b_adds_into_its_own_copy_of_y(two_rows):
    """Two columns of B (grid.y = 2): column 1's CTAs add into the y copy 64 x 4 B = 8 sectors after column 0's."""
    weights_layer = dataclasses.replace(two_rows, m=2)
    arch = simt({"sms": 1}, kernel="csr_vector", transpose=True, threads_per_cta=32)
    plan = FAMILY.plan(arch, weights_layer)
    s = plan.candidates[0].schedule
    assert s.atomic_cta.tolist() == [0] * 5 + [1] + [2] * 5 + [3]
    assert s.atomic_sector.tolist() == [0, 1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 15]
    assert FAMILY.refinement(arch, weights_layer) == []


def test_split_k_tiles_add_from_their_own_first_sector():
    """C (64 x 64, FP32) in 32 x 32 tiles, K in 2 slices: CTA (tile row i, tile column j, slice) adds 128 sectors from
    sector (i x 32 x 64 + j x 32) x 4 / 32 = 256 i + 4 j."""
    arch = simt({"sms": 1}, kernel="dense_simt", sgemm_tiles=(SgemmTile(32, 32, 8, 32, 32),), split_k=(2,))
    plan = FAMILY.plan(arch, GemmLayer("g", m=64, k=16, n=64))
    s = plan.candidates[1].schedule
    cta, sector = s.atomic_cta, s.atomic_sector   # the runs expanded
    firsts = sector[::128].tolist()
    assert firsts == [0, 0, 4, 4, 256, 256, 260, 260]
    assert cta[::128].tolist() == list(range(8)) and sector.size == 8 * 128


def test_merge_carry_out_of_a_wide_tile_is_one_request_per_sector(two_rows):
    """merge, one item per thread, B of 16 columns (one 16-column tile, 64 B: 2 sectors): warp 0's share ends inside
    row 0, so CTA 0 adds row 0's partial C row with 2 requests (sectors 0 and 1), one L2 sector each."""
    layer = dataclasses.replace(two_rows, m=16)
    arch = simt({"sms": 1}, kernel="merge", threads_per_cta=32, merge_items_per_thread=1)
    plan = FAMILY.plan(arch, layer)
    s = plan.candidates[0].schedule
    assert (s.atomic_cta.tolist(), s.atomic_sector.tolist(), s.atomics) == ([0, 0], [0, 1], 2)
    assert s.cta_l2_sectors.tolist()[0] == 14 + 2           # values 4 + indices 4 + search 6, the carry-out's 2
    assert FAMILY.refinement(arch, layer) == []
