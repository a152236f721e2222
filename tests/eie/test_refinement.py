"""Refinement of EIE: the fast path against the discrete-event reference, counter by counter,
and both against examples worked out by hand.

(a) fast == reference on every field of :class:`~accel_sim.models.eie.counters.EIECounters`: the 220
    generated cases (every spec switch of :mod:`tests.eie.cases`) and hypothesis cases for the
    switches those leave out (DRAM spill, its bandwidth / latency / 'calc' mode, LNZD fan-in);
    the reference's outputs equal the numpy functional model.
(b) small layers whose schedules, counts and outputs are derived by hand below (they catch a
    bug in the shared plan, which both paths would agree on).
(c) accounting of a hand example checked action by action, byte by byte; the storage fit checks
    at their exact boundaries.

The hand examples come first: they fail fastest (the mutation tool stops at the first failure).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.pipeline.catalog import load_arch
from accel_sim.models.eie import functional
from accel_sim.models.eie.family import FAMILY
from accel_sim.models.eie.plan import retime
from accel_sim.models.eie.plan.slices import slice_stats
from accel_sim.models.eie.reference import run
from accel_sim.foundations.errors import InputError, SimulationError
from accel_sim.foundations.contract import counter_differences
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.workload.layer import GemmLayer, OperandSource
from accel_sim.foundations.workload.loader import load_workload
from tests.eie.cases import N_CASES, generated_case


def assert_paths_agree(arch, layer):
    plan = FAMILY.plan(arch, layer)
    reference = run(plan)
    assert counter_differences(FAMILY.fast(plan), reference.counters) == []
    np.testing.assert_array_equal(reference.outputs, functional.outputs(plan))
    return reference.counters


# ---------------------------------------------------------------- (b) worked by hand

def payload_layer(tmp, name: str, weights, inputs) -> GemmLayer:
    """A layer whose operands are the given arrays (weights ``(k, n)``: row j = column j of EIE's W).
    Operands are cached by layer, so each distinct payload needs its own name."""
    weights, inputs = np.asarray(weights, np.float32), np.asarray(inputs, np.float32)
    path = tmp / f"{name}.npz"
    np.savez(path, weights=weights, inputs=inputs)
    return GemmLayer(name, m=inputs.shape[0], k=weights.shape[0], n=weights.shape[1],
                     operands=OperandSource(payload=str(path)))


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("eie_payloads")


# Example A: 2 PEs (PE0 rows 0, 2; PE1 rows 1, 3), 3 columns, LNZD latency 1, 8 entries per line.
#   column 0: rows 0, 2 (PE0: 2 entries, PE1: none); column 1: rows 1, 3 (PE1: 2); column 2: rows 2, 3
#   (one entry each, on local row 1: the row each PE's previous entry wrote, so both bypass).
WEIGHTS_A = [[1, 0, 2, 0], [0, 3, 0, 4], [0, 0, 5, 6]]
INPUTS_A = [[0.75, 0.5, 0.25]]   # 16-bit dynamic fixed point, 15 fraction bits: codes 24576, 16384, 8192


def example_a(tmp, depth: int, name: str = "a", inputs=INPUTS_A, **overrides):
    arch = load_arch("eie", {"eie.n_pes": 2, "eie.fifo_depth": depth, **overrides})
    return arch, payload_layer(tmp, name, WEIGHTS_A, inputs)


def both(arch, layer):
    plan = FAMILY.plan(arch, layer)
    fast, reference = FAMILY.fast(plan), run(plan)
    assert counter_differences(fast, reference.counters) == []
    return plan, fast, reference


def test_example_a_depth_1(tmp):
    # b0 = 1, lands 2: PE0 pops at 2 (cycles 2, 3), PE1 pops the empty slice at 2.
    # b1 = 2 (both popped at 2), lands 3: PE1 pops at 3 (cycles 3, 4), PE0 pops it at 4 (empty).
    # b2 waits for PE0's pop at 4 (1 stall cycle), lands 5: both pop at 5, one entry each. 6 cycles.
    # Starved: PE0 2 + 0 + 1, PE1 2 + 1 + 0; no tail.
    arch, layer = example_a(tmp, depth=1)
    plan, counters, reference = both(arch, layer)
    assert [b.cycle for b in run(plan, record=True).vectors[0].broadcasts] == [1, 2, 4]
    assert counters.as_dict() == dict(
        compute_cycles=6, spill_stall_cycles=0, broadcasts=3, fifo_full_stall_cycles=1, pe_starved_cycles=6,
        pe_tail_cycles=0, lnzd_activation_reads=3, fifo_pushes=6, fifo_pops=6, pointer_reads=12, spmat_reads=4,
        pe_entries=(3, 3), padding_entries=0, accumulator_bypasses=2, pe_busy_cycles=(3, 3), empty_slice_cycles=0,
        ideal_cycles=3, dram_spill_bytes=0)
    # outputs: W @ a, weights exact in the codebook (12 fraction bits), activations with 15
    exact = np.array(WEIGHTS_A, dtype=np.int64).T @ np.array([3, 2, 1])       # a = (3, 2, 1) / 4
    np.testing.assert_array_equal(reference.outputs[0], exact * (1 << 12) * (1 << 13))


def test_example_a_depth_2(tmp):
    # A 2-entry FIFO lets b2 go at 3: PE0 pops b1 (empty) and b2 at 4, done at 5; PE1 busy 3, 4, pops b2 at 5.
    arch, layer = example_a(tmp, depth=2)
    _, counters, _ = both(arch, layer)
    assert (counters.compute_cycles, counters.fifo_full_stall_cycles, counters.pe_starved_cycles,
            counters.pe_tail_cycles) == (6, 0, 5, 1)


def test_example_a_two_vectors_empty_slices_cost_a_cycle_lnzd_latency_2(tmp):
    # Vector 0 (L = 2): work (PE0, PE1) = (2, 1), (1, 2), (1, 1): b = 2, 3, 5; done at 7; starved 3 + 3.
    # Vector 1 broadcasts column 2 only: b = 2, both pop at 3 (one entry), done at 4; starved 3 + 3.
    # Its PE0 entry is on the row PE0 wrote last in vector 0: no bypass across vectors.
    arch, layer = example_a(tmp, 1, "a2", [[0.75, 0.5, 0.25], [0, 0, 0.25]], **{
        "eie.empty_column_costs_cycle": True, "eie.lnzd_cycles_per_level": 2})
    _, counters, _ = both(arch, layer)
    assert counters.as_dict() == dict(
        compute_cycles=11, spill_stall_cycles=0, broadcasts=4, fifo_full_stall_cycles=1, pe_starved_cycles=12,
        pe_tail_cycles=0, lnzd_activation_reads=6, fifo_pushes=8, fifo_pops=8, pointer_reads=16, spmat_reads=6,
        pe_entries=(4, 4), padding_entries=0, accumulator_bypasses=2, pe_busy_cycles=(5, 5), empty_slice_cycles=2,
        ideal_cycles=4, dram_spill_bytes=0)


def test_no_broadcast_takes_the_lnzd_latency(tmp):
    arch = load_arch("eie", {"eie.n_pes": 2, "eie.lnzd_cycles_per_level": 3})
    layer = payload_layer(tmp, "silent", WEIGHTS_A, [[0, 0, 0]])
    _, counters, reference = both(arch, layer)
    assert (counters.compute_cycles, counters.broadcasts, counters.pe_tail_cycles, counters.pe_starved_cycles) == (
        3, 0, 6, 0)
    assert not reference.outputs.any()


# Figure 3 (brief): one column, rows 2, 3 and 22 non-zero on 1 PE: v = [1, 2, 0, 3], z = [2, 0, 15, 2].
FIG3 = [[0, 0, 1, 2] + [0] * 18 + [3]]


def test_figure_3_padding_entry_on_narrow_sram_lines(tmp):
    # 16-bit lines hold 2 entries: 2 reads. L = 1, pop at 2, 4 entries: 6 cycles; 3 non-zeros: ideal 3.
    arch = load_arch("eie", {"eie.n_pes": 1, "eie.spmat_sram_width": 16})
    _, counters, _ = both(arch, payload_layer(tmp, "fig3", FIG3, [[0.75]]))
    assert (counters.compute_cycles, counters.pe_entries, counters.padding_entries, counters.spmat_reads,
            counters.ideal_cycles, counters.accumulator_bypasses, counters.pe_starved_cycles) == (6, (4,), 1, 2, 3, 0, 2)


def test_figure_3_with_2_bit_indices_pads_more(tmp):
    # Zero runs of at most 3: gap 2 -> (1, z=2); 0 -> (2, z=0); gap 18 -> 4 padding entries + (3, z=2).
    # 6-bit entries, 36-bit lines of 6 entries: 2 reads.
    arch = load_arch("eie", {"eie.n_pes": 1, "eie.index_bits": 2, "eie.spmat_sram_width": 36})
    _, counters, _ = both(arch, payload_layer(tmp, "fig3", FIG3, [[0.75]]))
    assert (counters.pe_entries, counters.padding_entries, counters.spmat_reads, counters.compute_cycles) == (
        (7,), 4, 2, 9)


@pytest.mark.parametrize(("mode", "latency", "bandwidth", "stall"), [("user", 0, 8, 1), ("user", 5, 3, 7),
                                                                      ("calc", 5, 3, 0)])
def test_spill_bytes_and_stall(tmp, mode, latency, bandwidth, stall):
    # 4 entries x 8 bits in a 1-byte SRAM: 24 bits over; 2 pointers x 16 bits in a 3-byte SRAM: 8 over -> 4 bytes.
    arch = load_arch("eie", {"eie.n_pes": 1, "eie.spmat_sram_size": 1, "eie.pointer_sram_size": 3,
                             "eie.sram_overflow": "dram_spill", "dram.bandwidth_mode": mode, "dram.latency": latency,
                             "dram.bandwidth": bandwidth})
    plan, counters, _ = both(arch, payload_layer(tmp, "fig3", FIG3, [[0.75]]))
    assert (counters.dram_spill_bytes, counters.spill_stall_cycles, counters.compute_cycles) == (4, stall, 6)
    result = FAMILY.account(plan, counters)
    assert (result.cycles, result.stall_cycles, result.dram_read_bytes) == (6 + stall, stall, 4)
    assert ActionCount("dram", "dram", "read", 4, 8) in result.actions
    assert result.actions[:3] == (ActionCount("act_queue", "register_file", "write", 1, 16 + 1),   # 1 column: 1 bit
                                  ActionCount("act_queue", "register_file", "read", 1, 16 + 1),
                                  ActionCount("pointer_read", "sram", "read", 2, 16, 1))   # 3 B over 2 banks: 1 B each
    assert result.actions[7] == ActionCount("arithmetic", "add_int", "op", 4, 5)   # 23 local rows: 5-bit address
    assert (result.metrics["padding_fraction"], result.metrics["max_pe_entries"]) == (0.25, 4.0)
    for count in (FAMILY.fast, FAMILY.reference):           # the max_cycles guard counts the spill's cycles
        assert count(plan, 6 + stall).spill_stall_cycles == stall
        if stall:
            with pytest.raises(SimulationError):
                count(plan, 5 + stall)


def test_spill_widens_pointers(tmp):
    # 4 entries need 3-bit pointers; with 2-bit pointers and dram_spill the pointers widen to 3 bits.
    arch = load_arch("eie", {"eie.n_pes": 1, "eie.pointer_bits": 2, "eie.sram_overflow": "dram_spill"})
    plan, counters, _ = both(arch, payload_layer(tmp, "fig3", FIG3, [[0.75]]))
    assert plan.pointer_bits == 3 and counters.dram_spill_bytes == 0
    assert FAMILY.account(plan, counters).actions[2] == ActionCount("pointer_read", "sram", "read", 2, 3, 16 * 1024)


def test_plan_slices_of_figure_2():
    # PE0's slices of the brief's Fig. 2: local rows 0..3 = rows 0, 4, 8, 12 of W.
    arch = load_arch("eie_4pe_example")
    plan = FAMILY.plan(arch, load_workload("eie_4pe_example").layers[0])
    pe0 = [column[:, 0].tolist() for column in (plan.slices.entries, plan.slices.nonzeros, plan.slices.first_row,
                                               plan.slices.last_row, plan.slices.pointer)]
    assert pe0 == [[3, 1, 2, 0, 2, 2, 1, 2],             # p_j+1 - p_j
                   [3, 1, 2, 0, 2, 2, 1, 2],             # no zero run over 15 in 4 rows: no padding
                   [0, 1, 0, -1, 0, 0, 0, 2],            # W0,0 W4,1 W0,2 (empty) W0,4 W0,5 W0,6 W8,7
                   [3, 1, 3, -1, 1, 3, 0, 3],            # W12,0 W4,1 W12,2 (empty) W4,4 W12,5 W0,6 W12,7
                   [0, 3, 4, 6, 6, 8, 10, 11]]           # the column pointer of Fig. 2


def test_worked_example_per_pe_work():
    # Broadcast columns 0, 2, 3, 4, 5, 7; PE0's slices there (Fig. 2's pointers) hold 3 + 2 + 0 + 2 + 2 + 2 entries.
    arch = load_arch("eie_4pe_example")
    plan, counters, _ = both(arch, load_workload("eie_4pe_example").layers[0])
    assert counters.pe_entries[0] == 11
    assert counters.pe_entries == (11, 10, 6, 14)                       # PE 3 busiest, PE 2 idles (tutorial 1)
    result = FAMILY.account(plan, counters)
    assert (result.cycles, result.metrics["max_pe_entries"], result.metrics["load_efficiency"]) == (16, 14.0, 41 / 64)


@pytest.mark.parametrize(("max_run", "entries", "first_row"), [(15, 4, 2), (3, 7, 2), (1, 13, 1)])
def test_plan_slices_of_figure_3(max_run, entries, first_row):
    # Rows 2, 3, 22: a gap g > max_run costs g // (max_run + 1) padding entries, the first on row max_run.
    stats = slice_stats(np.array(FIG3) != 0, 1, max_run)
    assert (stats.entries.item(), stats.nonzeros.item(), stats.first_row.item(), stats.last_row.item(),
            stats.pointer.item()) == (entries, 3, first_row, 22, 0)


@pytest.mark.parametrize("shape", [(1, 1), (7, 10), (33, 130), (64, 64)])
def test_plan_slices_counted_in_chunks_of_columns_equal_one_pass(monkeypatch, shape):
    mask = np.random.default_rng(sum(shape)).random(shape) < 0.3
    whole = slice_stats(mask, 4, 2)
    monkeypatch.setattr("accel_sim.models.eie.plan.slices.CHUNK_CELLS", 2 * shape[1] + 1)  # two columns of W per chunk
    chunked = slice_stats(mask, 4, 2)
    for field in ("entries", "nonzeros", "first_row", "last_row", "pointer"):
        np.testing.assert_array_equal(getattr(chunked, field), getattr(whole, field))


@pytest.mark.parametrize(("shape", "n_pes", "max_run"), [((1, 1), 1, 15), ((7, 10), 4, 2), ((33, 130), 3, 1),
                                                         ((64, 64), 8, 15), ((20, 300), 256, 3), ((5, 40), 64, 0),
                                                         ((20, 300), 4, 2)])   # gaps of 3+ rows: // 3, no shift
def test_plan_slices_of_positions_equal_the_mask_count(shape, n_pes, max_run):
    # The compiled pass over the non-zeros' positions (plain Python here, numba in the runs) and the numpy
    # path (the mask counted by slice_stats) give the same arrays, empty columns and slices included.
    from accel_sim.models.eie.plan.slices import position_counts, slice_stats_of_positions
    mask = np.random.default_rng(sum(shape)).random(shape) < 0.2
    mask[shape[0] // 2] = False
    expected = slice_stats(mask, n_pes, max_run)
    arrays = np.empty((5, shape[0], n_pes), dtype=np.int64)
    position_counts(np.flatnonzero(mask), shape[1], n_pes, max_run, *arrays)
    got = slice_stats_of_positions(np.flatnonzero(mask), shape, n_pes, max_run)
    for field, plain in zip(("entries", "nonzeros", "first_row", "last_row", "pointer"), arrays):
        np.testing.assert_array_equal(plain, getattr(expected, field))
        np.testing.assert_array_equal(getattr(got, field), getattr(expected, field))
        assert getattr(got, field).dtype == getattr(expected, field).dtype


# ---------------------------------------------------------------- (c) accounting and storage fit

def test_accounting_of_example_a(tmp):
    arch, layer = example_a(tmp, depth=1)
    plan, counters, _ = both(arch, layer)
    result = FAMILY.account(plan, counters)
    fifo_bits = 16 + 2                        # activation + column index (3 columns: 2 bits)
    assert result.actions == (
        ActionCount("act_queue", "register_file", "write", 6, fifo_bits),
        ActionCount("act_queue", "register_file", "read", 6, fifo_bits),
        ActionCount("pointer_read", "sram", "read", 12, 16, 16 * 1024),          # 32 KB over 2 banks
        ActionCount("spmat_read", "sram", "read", 4, 64, 128 * 1024),
        ActionCount("arithmetic", "register_file", "read", 6, 16),                # codebook lookups
        ActionCount("arithmetic", "mult_int", "op", 6, 16),
        ActionCount("arithmetic", "add_int", "op", 6, 16),
        ActionCount("arithmetic", "add_int", "op", 6, 1),                         # 2 local rows: 1-bit address
        ActionCount("act_rw", "register_file", "read", 3, 16, 0),                 # LNZD reads every activation
        ActionCount("act_rw", "register_file", "read", 4, 16, 0),                 # 6 entries - 2 bypasses
        ActionCount("act_rw", "register_file", "write", 6, 16, 0),
    )
    assert (result.cycles, result.compute_cycles, result.stall_cycles, result.macs_dense, result.macs_issued,
            result.macs_skipped, result.peak_macs_per_cycle) == (6, 6, 0, 12, 6, 6, 2)
    assert (result.sram_read_bytes, result.sram_write_bytes, result.dram_read_bytes, result.dram_write_bytes) == (
        (12 * 16 + 4 * 64) // 8, 0, 0, 0)
    assert dict(result.metrics) == {
        "load_efficiency": 0.5, "padding_fraction": 0.0, "ideal_cycles": 3.0, "broadcasts": 3.0, "entries": 6.0,
        "padding_entries": 0.0, "max_pe_entries": 3.0, "fifo_pushes": 6.0, "fifo_pops": 6.0, "pointer_reads": 12.0,
        "spmat_reads": 4.0, "codebook_lookups": 6.0, "accumulator_bypasses": 2.0, "stall_fifo_full_cycles": 1.0,
        "stall_pe_starved_cycles": 6.0, "stall_pe_tail_cycles": 0.0, "pe_empty_slice_cycles": 0.0, "spill_bytes": 0.0,
        "pointer_bits": 16.0, "pointer_sram_bytes": 32.0 * 1024}
    assert dict(result.operand_hashes) == plan.operands.hashes


def test_accounting_of_long_vectors_in_activation_sram(tmp):
    # 1 PE, 66 columns and 5 rows: 66 local inputs (> 65 registers: activation SRAM, 2 KB), 5 local rows
    # (3-bit address); every column holds rows 0 and 4 (z = 0, 3): per column 2 entries, one 64-bit line,
    # and no bypass (row 0 never follows row 0).
    weights = np.zeros((66, 5))
    weights[:, [0, 4]] = 1
    arch = load_arch("eie", {"eie.n_pes": 1, "eie.activation_registers": 65})
    plan, counters, _ = both(arch, payload_layer(tmp, "long", weights, np.full((1, 66), 0.75)))
    actions = FAMILY.account(plan, counters).actions
    assert actions[0] == ActionCount("act_queue", "register_file", "write", 66, 16 + 7)
    assert actions[7] == ActionCount("arithmetic", "add_int", "op", 132, 3)
    assert actions[8] == ActionCount("act_rw", "sram", "read", 66, 16, 2048)           # 66 > 65 registers
    assert actions[9] == ActionCount("act_rw", "register_file", "read", 132, 16, 0)
    assert (counters.accumulator_bypasses, counters.spmat_reads) == (0, 66)
    arch = load_arch("eie", {"eie.n_pes": 1, "eie.activation_registers": 66})
    assert FAMILY.layer_result(arch, plan.layer).actions[8] == ActionCount("act_rw", "register_file", "read", 66, 16, 0)


def test_an_empty_matrix_fits_1_bit_pointers(tmp):
    arch = load_arch("eie", {"eie.n_pes": 1, "eie.sram_overflow": "error", "eie.pointer_bits": 1})
    plan = FAMILY.plan(arch, payload_layer(tmp, "empty", np.zeros((2, 3)), [[0.75, 0.5]]))
    assert (plan.pointer_bits, plan.spill_bytes) == (1, 0)


@pytest.mark.parametrize(("overrides", "refused"), [
    ({"eie.spmat_sram_size": 4}, None), ({"eie.spmat_sram_size": 3}, "eie.spmat_sram_size"),
    ({"eie.pointer_bits": 3}, None), ({"eie.pointer_bits": 2}, "eie.pointer_bits"),
    ({"eie.pointer_sram_size": 4}, None), ({"eie.pointer_sram_size": 3}, "eie.pointer_sram_size"),
])
def test_storage_fit_at_its_boundaries(tmp, overrides, refused):
    # Figure 3's column on 1 PE: 4 entries of 8 bits (4 bytes), pointers p_0, p_1 of 16 bits (4 bytes), entries
    # addressable with 3-bit pointers.
    arch = load_arch("eie", {"eie.n_pes": 1, "eie.sram_overflow": "error", **overrides})
    layer = payload_layer(tmp, "fig3", FIG3, [[0.75]])
    if refused is None:
        assert FAMILY.plan(arch, layer).spill_bytes == 0
    else:
        with pytest.raises(InputError) as err:
            FAMILY.plan(arch, layer)
        assert [p.path for p in err.value.problems] == [refused]


@pytest.mark.parametrize(("overrides", "pointer_bits", "pointer_sram", "spmat_sram"), [
    ({}, 16, 32 * 1024, 128 * 1024),                                      # fits: the configured sizes
    ({"eie.spmat_sram_size": 3}, 16, 32 * 1024, 4),                       # 4 entries of 8 bits
    ({"eie.pointer_bits": 2}, 3, 32 * 1024, 128 * 1024),                  # p_1 = 4 needs 3 bits
    ({"eie.pointer_sram_size": 3, "eie.pointer_bits": 13}, 13, 4, 128 * 1024),   # 2 pointers x 13 bits
    # 3-bit indices: the gap of 18 before row 22 costs 2 padding entries; 5 entries of 7 bits = 35 bits: 5 bytes
    ({"eie.spmat_sram_size": 3, "eie.index_bits": 3, "eie.spmat_sram_width": 56}, 16, 32 * 1024, 5),
])
def test_grow_on_chip_sizes_what_does_not_fit_and_never_spills(tmp, overrides, pointer_bits, pointer_sram,
                                                                spmat_sram):
    # Figure 3's column on 1 PE, as above: each SRAM and the width grow to exactly what the layer needs.
    arch = load_arch("eie", {"eie.n_pes": 1, "eie.sram_overflow": "grow_on_chip", **overrides})
    plan, counters, _ = both(arch, payload_layer(tmp, "fig3", FIG3, [[0.75]]))
    assert (plan.pointer_bits, plan.pointer_sram_size, plan.spmat_sram_size) == (pointer_bits, pointer_sram, spmat_sram)
    assert (plan.spill_bytes, counters.dram_spill_bytes, counters.spill_stall_cycles) == (0, 0, 0)
    actions = {a.component: a for a in FAMILY.account(plan, counters).actions}
    assert (actions["pointer_read"].bits, actions["pointer_read"].capacity_bytes) == (pointer_bits, pointer_sram // 2)
    assert actions["spmat_read"].capacity_bytes == spmat_sram and "dram" not in actions
    metrics = FAMILY.account(plan, counters).metrics
    assert (metrics["pointer_bits"], metrics["pointer_sram_bytes"]) == (pointer_bits, pointer_sram)


def test_vgg6_needs_17_bit_pointers_and_52_kib_of_pointer_sram():
    """VGG-6 at 64 PEs (25,088 columns; about 100 K entries on the busiest PE) against the brief's PE:
    refused on both counts as the brief describes it, on chip with grow_on_chip (eie.yaml)."""
    from accel_sim.models.eie.plan.storage import storage_fit

    entries_per_pe = np.array([100_922, 90_000])
    spec = load_arch("eie").eie
    assert spec.sram_overflow == "grow_on_chip"
    fit = storage_fit("eie", "VGG-6", spec, 25_088, entries_per_pe)
    assert (fit.pointer_bits, fit.pointer_sram_size, fit.spmat_sram_size, fit.spill_bytes) == (
        17, -(-25_089 * 17 // 8), 128 * 1024, 0)
    with pytest.raises(InputError) as err:
        storage_fit("eie", "VGG-6", load_arch("eie", {"eie.sram_overflow": "error"}).eie, 25_088, entries_per_pe)
    assert {p.path for p in err.value.problems} == {"eie.pointer_bits", "eie.pointer_sram_size"}
    assert "100,922 entries" in str(err.value) and "needs 17 bits" in str(err.value)


# ---------------------------------------------------------------- (a) fast == reference

@pytest.mark.parametrize("seed", range(N_CASES))
def test_fast_equals_reference_on_generated_cases(seed):
    assert_paths_agree(*generated_case(seed))


def test_generated_cases_exercise_every_mechanism():
    """The cases above are not trivially easy: across them, FIFOs fill, padding entries and empty
    slices occur, the accumulator bypass is taken and several vectors run in one layer."""
    seen = dict.fromkeys(("fifo_full_stall_cycles", "padding_entries", "empty_slice_cycles", "accumulator_bypasses",
                          "pe_starved_cycles"), 0)
    multi_vector = 0
    for seed in range(0, N_CASES, 3):
        arch, layer = generated_case(seed)
        counters = FAMILY.fast(FAMILY.plan(arch, layer))
        for name in seen:
            seen[name] += getattr(counters, name) > 0
        multi_vector += layer.m > 1
    assert all(count >= 5 for count in seen.values()), seen
    assert multi_vector >= 5


@pytest.mark.parametrize("step_elements", [1, 200, 1 << 20])
@pytest.mark.parametrize("seed", range(4))
def test_many_vectors_repeated_and_silent_ones_in_any_step_size(tmp, monkeypatch, seed, step_elements):
    """The fast path solves all vectors of a layer at once, each distinct broadcast mask once: a
    layer with repeated masks (other values), an all-zero vector and vectors of different lengths,
    solved in steps of every size (one vector and one chunk per step up to all at once)."""
    import accel_sim.models.eie.fast as fast_path

    monkeypatch.setattr(fast_path, "STEP_ELEMENTS", step_elements)
    rng = np.random.default_rng(seed)
    k, n = int(rng.integers(20, 70)), int(rng.integers(8, 60))
    weights = rng.normal(size=(k, n)) * (rng.random((k, n)) < rng.choice([0.1, 0.4]))
    inputs = rng.random((7, k)) * (rng.random((7, k)) < rng.random((7, 1)))
    inputs[2] = 0                                          # a vector that broadcasts nothing
    inputs[4] = (inputs[1] != 0) * rng.random(k) + (inputs[1] != 0) * 0.01   # vector 1's columns, other values
    inputs[6] = inputs[0]
    arch = load_arch("eie", {"eie.n_pes": int(rng.integers(1, 9)), "eie.fifo_depth": int(rng.integers(1, 5)),
                             "eie.empty_column_costs_cycle": bool(seed % 2), "eie.index_bits": 2,
                             "eie.spmat_sram_width": 24})
    assert_paths_agree(arch, payload_layer(tmp, f"many{seed}_{step_elements}", weights, inputs))


@settings(derandomize=True, max_examples=60, deadline=None)
@given(k=st.integers(1, 40), n=st.integers(1, 60), m=st.integers(1, 3), n_pes=st.integers(1, 20),
       fanin=st.integers(2, 5), per_level=st.integers(0, 2), depth=st.integers(1, 4),
       density=st.sampled_from([0.05, 0.3, 0.8]), spmat_bytes=st.integers(1, 24), pointer_bytes=st.integers(1, 24),
       pointer_bits=st.integers(1, 6), mode=st.sampled_from(["user", "calc"]), latency=st.integers(0, 3),
       bandwidth=st.sampled_from([1, 2.5, 8]), seed=st.integers(0, 1000),
       policy=st.sampled_from(["dram_spill", "grow_on_chip"]))
def test_fast_equals_reference_with_dram_spill(k, n, m, n_pes, fanin, per_level, depth, density, spmat_bytes,
                                               pointer_bytes, pointer_bits, mode, latency, bandwidth, seed, policy):
    arch = load_arch("eie", {
        "eie.n_pes": n_pes, "eie.lnzd_fanin": fanin, "eie.lnzd_cycles_per_level": per_level, "eie.fifo_depth": depth,
        "eie.spmat_sram_size": spmat_bytes, "eie.pointer_sram_size": pointer_bytes, "eie.pointer_bits": pointer_bits,
        "eie.sram_overflow": policy, "dram.bandwidth_mode": mode, "dram.latency": latency,
        "dram.bandwidth": bandwidth})
    layer = GemmLayer("spill", m=m, k=k, n=n, weight_density=density, input_density=0.6,
                      operands=OperandSource(seed=seed))
    assert_paths_agree(arch, layer)


def test_retimed_plan_counts_as_a_fresh_plan():
    arch, layer = generated_case(4)
    plan = FAMILY.plan(arch, layer)
    for field, value in (("fifo_depth", 1), ("empty_column_costs_cycle", not arch.eie.empty_column_costs_cycle),
                         ("spmat_sram_width", 8), ("lnzd_cycles_per_level", 3), ("lnzd_fanin", 2)):
        fresh = FAMILY.plan(load_arch("eie", {**arch_overrides(arch), f"eie.{field}": value}), layer)
        assert FAMILY.fast(retime(plan, field, value)) == FAMILY.fast(fresh)
    with pytest.raises(ValueError, match="retime changes only"):
        retime(plan, "n_pes", 2)


def arch_overrides(arch):
    spec = arch.eie
    return {f"eie.{name}": getattr(spec, name) for name in ("n_pes", "fifo_depth", "index_bits", "spmat_sram_width",
                                                            "empty_column_costs_cycle", "lnzd_cycles_per_level")}


def test_max_cycles_guard(tmp):
    arch, layer = example_a(tmp, depth=1)
    plan = FAMILY.plan(arch, layer)
    assert FAMILY.fast(plan, max_cycles=6).compute_cycles == FAMILY.reference(plan, max_cycles=6).compute_cycles == 6
    for count in (FAMILY.fast, FAMILY.reference):
        with pytest.raises(SimulationError):
            count(plan, 5)


def test_plan_slices_without_numba_equal_the_compiled_pass(monkeypatch):
    # Without numba, slice_stats_of_positions builds the mask from the positions and counts it in numpy: the
    # same arrays (and types) as the compiled pass over the positions.
    from accel_sim.models.eie.plan import slices
    mask = np.random.default_rng(11).random((40, 90)) < 0.15
    index = np.flatnonzero(mask)
    compiled = slices.slice_stats_of_positions(index, mask.shape, 4, 3)
    monkeypatch.setattr(slices, "_compiled", lambda: None)
    fallback = slices.slice_stats_of_positions(index, mask.shape, 4, 3)
    for field in ("entries", "nonzeros", "first_row", "last_row", "pointer"):
        np.testing.assert_array_equal(getattr(fallback, field), getattr(compiled, field))
        assert getattr(fallback, field).dtype == getattr(compiled, field).dtype
