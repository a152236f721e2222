"""Reassignment with one-cycle chunks, where the fast path jumps whole epochs in closed form
(``accel_sim.models.pe_array.fast.reassignment._unit_epochs``): long reductions and skewed rows (whole
filters pruned, so idle rows steal for hundreds of cycles), every counter against the reference."""
from __future__ import annotations

import random

import numpy as np

import pytest

from accel_sim.foundations.contract import counter_differences
from accel_sim.models.pe_array.fast.datapath import chunk_cycles
from accel_sim.models.pe_array.fast.decoder import chunk_items
from accel_sim.models.pe_array.family import FAMILY
from accel_sim.foundations.workload import GemmLayer
from accel_sim.foundations.workload.layer import OperandSource
from tests.pe_array.test_refinement import gemm_with_operands, pe_array


def unit_case(seed: int):
    draw = random.Random(seed)
    vector = draw.choice([2, 4])
    rows = draw.choice([4, 8, 16])
    # one-cycle chunks: CSR chunks (full but the last) or bitmap chunks (any count up to the width)
    arch = pe_array(sparsity_support="reassignment", weight_format=("csr", "bitmap")[seed // 2 % 2], rows=rows, cols=1,
                    vector_width=vector, csr_entries_per_cycle=draw.randint(1, vector),
                    bitmap_bits_per_cycle=draw.randint(1, vector), reassign_window=draw.choice([2, 4, rows]),
                    reassign_policy=("in_order", "longest_first")[seed % 2], decoder_latency=draw.randint(0, 2))
    layer = GemmLayer("g", m=1, k=4 * draw.randint(16, 64), n=2 * draw.randint(1, rows),
                      weight_density=draw.choice([0.6, 0.3, 0.1]), input_density=0.5,
                      operands=OperandSource(weight_pattern=draw.choice(["filter", "unstructured", "block"]),
                                             block=2, seed=draw.randint(0, 9)))
    return arch, layer


@pytest.mark.parametrize("seed", range(32))
def test_epoch_jumps_agree_with_the_reference_on_every_counter(seed):
    arch, layer = unit_case(seed)
    plan = FAMILY.plan(arch, layer)
    (group,) = plan.groups
    items = chunk_items(arch.pe_array, group.weights)
    assert (chunk_cycles(items[items >= 0], arch.pe_array.vector_width) == 1).all()  # the jumping case
    assert counter_differences(FAMILY.fast(plan), FAMILY.reference(plan)) == []


def test_the_cases_steal_a_lot():
    """The cases above exercise the jumps: most of them move weights across the crossbar."""
    stealing = [FAMILY.fast(FAMILY.plan(*unit_case(seed))).crossbar_weights > 0 for seed in range(32)]
    assert sum(stealing) >= 16



def one_window_longest_first(tmp_path, name: str, nonzeros: list[int]):
    """Fast counters (checked equal to the reference's) of one window of ``len(nonzeros)`` rows, one
    pixel, one-cycle chunks of 1 entry, no latency, longest_first; filter i holds ``nonzeros[i]``."""
    k, rows = max(nonzeros), len(nonzeros)
    weights = np.zeros((k, rows))
    for filter_, count in enumerate(nonzeros):
        weights[:count, filter_] = 1
    layer = gemm_with_operands(tmp_path, name, weights, np.ones((1, k)))
    arch = pe_array(sparsity_support="reassignment", rows=rows, cols=1, vector_width=1, csr_entries_per_cycle=1,
                    decoder_latency=0, reassign_window=rows, reassign_policy="longest_first")
    plan = FAMILY.plan(arch, layer)
    fast = FAMILY.fast(plan)
    assert counter_differences(fast, FAMILY.reference(plan)) == []
    return fast


def test_epoch_whose_water_level_falls_below_the_longest_row(tmp_path):
    """Filters of 0, 0, 4 and 5 non-zeros, so rows 0 and 1 steal from the start. Cycle 0: rows 2, 3 take
    their own chunks (3 and 4 left); row 0 takes row 3's (3 and 3), row 1 row 2's (the tie to the lower
    row): 2 and 3 left. Cycle 1: own takes leave 1 and 2; row 0 takes row 3's, row 1 row 2's: 0 and 1.
    Cycle 2: row 3 takes its last chunk. 3 cycles, 4 weights stolen in 2 runs (row 0 from row 3, row 1
    from row 2). The jumped epoch is cycle 0: its 2 takes bring row 3 down to row 2's level (one take
    above the level) and split the remainder there in row order, the case a wrong remainder at the
    level gets wrong."""
    fast = one_window_longest_first(tmp_path, "level", [0, 0, 4, 5])
    assert (fast.compute_cycles, fast.row_busy_cycles, fast.macs_issued, fast.crossbar_weights, fast.macs_reassigned,
            fast.crossbar_psums) == (3, 9, 9, 4, 4, 2)


def test_epoch_taking_from_rows_tied_at_the_top(tmp_path):
    """Filters of 0, 3 and 3 non-zeros. Cycle 0: rows 1, 2 take their own chunks (2 and 2 left), row 0
    takes row 1's (the tie to the lower row): 1 and 2. Cycle 1: own takes leave 0 and 1, row 0 takes row
    2's last. 6 chunks on 3 rows in 2 cycles, 2 weights stolen in 2 runs. The jumped epoch is cycle 0,
    whose one take falls on rows tied at the longest count: the level is the top itself."""
    fast = one_window_longest_first(tmp_path, "tie", [0, 3, 3])
    assert (fast.compute_cycles, fast.row_busy_cycles, fast.crossbar_weights, fast.crossbar_psums) == (2, 6, 2, 2)
