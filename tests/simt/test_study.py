"""The SIMT studies on reduced grids: their tables, comparison rows and the bars they carry."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from accel_sim.foundations.workload import GemmLayer
from accel_sim.models.simt.family import FAMILY
from accel_sim.studies.gpu_sparse_common import (heavy_columns_layer, kernel_arch, lognormal_layer,
                                                 longest_warp_cycles, run)
from accel_sim.studies.gpu_sparse_deck import CONV_SHAPES
from accel_sim.studies.gpu_sparse_kernels import (ROW_SPLIT, SHAPES, SWIZZLE, crossover, csb_transpose,
                                                  gpu_sparse_kernels)


def test_gpu_sparse_kernels_rows_and_comparisons():
    out = gpu_sparse_kernels(shapes=SHAPES[4:5], sparsities=(0.5, 0.95), conv_shapes=CONV_SHAPES[3:])
    frame = out.results
    assert set(frame.kernel) == {"csr_vector", "sputnik", "merge", "sparsert", "bsr_8x8", "bsr_16x16", "2:4_tensor_core"}
    assert len(frame) == 2 * 6 + 1
    sputnik = frame[frame.kernel == "sputnik"].set_index("sparsity").speedup_own
    assert sputnik[0.95] > sputnik[0.5]                          # more sparsity, more work removed
    two_four = frame[frame.kernel == "2:4_tensor_core"].iloc[0]
    assert 1.0 < two_four.speedup_tc <= 2.0                      # at most the 2x math
    quantities = [c.quantity for c in out.comparisons]
    sparsert = [c for c in out.comparisons if "kernel sparsert" in c.quantity]
    assert len(sparsert) == 4                                    # cold and warm L2, 90 % and 95 %
    # the published figures sit on the rows of SparseRT's measurement condition (warm L2) only
    assert [c.published for c in sparsert if "warm L2" in c.quantity] == [3.4, 5.4]
    assert all(c.published is None for c in sparsert if "cold L2" in c.quantity)
    assert any("power-law rows: merge" in q for q in quantities)
    merge_row = next(c for c in out.comparisons if "power-law rows: merge" in c.quantity)
    assert merge_row.simulated >= 1.3                            # the issue's balance bar
    assert {"heavy_tailed", "lognormal_rows"} <= set(out.tables["balance"].matrix)   # the extra matrix is labelled
    assert sum("extra matrix, log-normal rows" in q for q in quantities) == 3     # merge, swizzle, reorder bound
    bounds = [c for c in out.comparisons if "any reordering of whole rows" in c.quantity]
    swizzles = [c for c in out.comparisons if "row swizzle speed-up" in c.quantity]
    assert len(bounds) == 2 and all(s.simulated <= b.simulated + 1e-9 for s, b in zip(swizzles, bounds))
    # the deck's kernels: SparseRT 3x3 against its published lower bound, CSB balanced, merge SpMV, ROMA; each row
    # names its condition
    deck = out.tables["deck"]
    assert set(deck.study) == {"sparsert_3x3", "csb_balance", "merge_spmv", "roma"}
    conv = next(c for c in out.comparisons if c.quantity.startswith("SparseRT 3x3 (the sparsert_conv kernel"))
    assert conv.published == 5.0 and "90% sparsity" in conv.quantity and "warm L2" in conv.quantity
    assert conv.simulated > deck[deck.study == "sparsert_3x3"].im2col_speedup.max()     # no im2col: fewer bytes
    balanced = [c for c in out.comparisons if c.quantity.startswith("CSB SpMM balanced")]
    assert len(balanced) == 2 and all("cold L2" in c.quantity for c in balanced)
    assert balanced[1].simulated > 1.5                                   # power-law block rows cut to the average
    merge_spmv = [c for c in out.comparisons if c.quantity.startswith("merge-based SpMV")]
    assert len(merge_spmv) == 3 and merge_spmv[1].simulated > 10         # the power-law rows: one warp per row trails


def test_row_swizzle_balances_the_warps_of_a_cta_but_not_the_longest_row(tmp_path):
    layer = lognormal_layer(tmp_path, rows=512, columns=512, batch=32)
    plain, swizzled = (run(kernel_arch(**config), layer) for config in (ROW_SPLIT, SWIZZLE))
    # sorted rows give each CTA warps of similar length: the CTAs' summed slowest-warp chains drop
    assert swizzled.metrics["latency_bound_cycles"] < 0.8 * plain.metrics["latency_bound_cycles"]
    # but neither kernel ends before the longest row's warp: the kernel time moves much less
    assert swizzled.cycles > 0.8 * plain.cycles
    longest = longest_warp_cycles(kernel_arch(**SWIZZLE), layer)
    assert longest == longest_warp_cycles(kernel_arch(**ROW_SPLIT), layer)     # one row per warp: order-free
    assert plain.cycles >= swizzled.cycles >= longest                         # swizzle within its reorder bound


def test_swizzle_launches_the_longest_rows_first_in_row_blocks_then_column_tiles(tmp_path):
    """Sputnik's SortedRowSwizzle and its grid (row blocks on blockIdx.x, column tiles on blockIdx.y): the first
    CTA of each column tile holds the longest rows."""
    layer = lognormal_layer(tmp_path, rows=256, columns=256, batch=64)
    plan = FAMILY.plan(kernel_arch(**SWIZZLE), layer)
    s = plan.candidates[0].schedule
    chains = np.bincount(s.group_warp, weights=s.group_issue + s.group_latency, minlength=s.warps)
    warp_chain_by_cta = [chains[s.warp_cta == c].max() for c in range(s.ctas)]
    per_tile = s.ctas // 2                                                     # 64 columns in two 32-column tiles
    for tile in range(2):
        part = warp_chain_by_cta[tile * per_tile:(tile + 1) * per_tile]
        assert part == sorted(part, reverse=True)                              # longest first in launch order
    assert FAMILY.layer_result(kernel_arch(**SWIZZLE), layer).metrics["longest_warp_cycles"] == chains.max()


def test_crossover_is_the_lowest_sparsity_reaching_one():
    summary = pd.DataFrame({"kernel": ["a"] * 3 + ["b"] * 2, "sparsity": [0.5, 0.8, 0.9, 0.5, 0.9],
                            "speedup_own": [0.5, 1.0, 2.0, 0.1, 0.9]})
    assert crossover(summary, "a", "speedup_own") == 0.8
    assert math.isnan(crossover(summary, "b", "speedup_own"))


def test_csb_transpose_bars():
    frame = csb_transpose(size=1024).results.set_index(["matrix", "kernel"])
    for matrix in ("fc_uniform", "heavy_tailed", "heavy_columns"):
        assert frame.loc[(matrix, "csb"), "ratio"] <= 1.2        # CSB serves A x and A^T x alike
    # CSR A^T x scatters: atomic requests to the L2 slices' atomic units (whether they slow it depends on what
    # bounds A x); the what-if of a doubled turn per request is never faster
    row = frame.loc[("fc_uniform", "csr_vector")]
    assert row.atx_atomics > 0 and 0 < row.atx_atomic_cycles <= row.atx_cycles
    assert row.atx_bound in ("sm", "l2", "dram", "atomic") and row.what_if_two_turns_ratio >= row.ratio


def test_heavy_columns_make_csr_transpose_the_slow_direction(tmp_path):
    """The transposed power-law matrix: CSR's A^T x adds into a few addresses of y from most rows; adds to one
    address are serialised on its slice's atomic unit, so that unit sets the time, and more rows mean more adds."""
    ratios = {}
    for size in (2048, 4096):
        layer = heavy_columns_layer(tmp_path, rows=size, columns=size)
        ax, atx = run(kernel_arch("csr_vector"), layer), run(kernel_arch("csr_vector", transpose=True), layer)
        m = atx.metrics
        assert m["atomic_cycles"] == atx.cycles > max(m["sm_cycles"], m["l2_cycles"], m["dram_cycles"])
        assert ax.metrics["atomics"] == 0 and m["atomics"] > 0
        ratios[size] = atx.cycles / ax.cycles
    assert ratios[4096] >= 2.0                                   # the issue's bar, on this matrix
    assert ratios[4096] > ratios[2048] > 1.0                     # the serialised adds grow with the rows
    layer = heavy_columns_layer(tmp_path, rows=4096, columns=4096)
    assert run(kernel_arch("csb"), layer).cycles == run(kernel_arch("csb", transpose=True), layer).cycles


def test_only_a_kernel_that_states_its_loads_in_flight_reports_them():
    """dense_gemv keeps one 16-byte load per lane in flight (every resident CTA's threads); other kernels state none."""
    layer = GemmLayer("gemv", m=1, k=1024, n=512)
    gemv = FAMILY.layer_result(kernel_arch("dense_gemv", threads_per_cta=128), layer)
    assert gemv.metrics["in_flight_bytes_per_sm"] == gemv.metrics["ctas_per_sm"] * 128 * 16 > 0
    assert "in_flight_bytes_per_sm" not in FAMILY.layer_result(kernel_arch("dense_simt"), layer).metrics
