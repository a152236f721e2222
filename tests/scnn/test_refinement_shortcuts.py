"""The fast path's shortcuts give exactly what they replace (issue 22): step costs looked up by
rotation class, stable radix orderings, non-zeros scanned in a transposed array's stored order,
and the convolution's blocked transposition of fully connected weights."""
import numpy as np
import pytest

from accel_sim.models.scnn.fast.crossbar import (EMPTY_SHIFT, activation_banks, mask_shifts, max_bank_load,
                                          rotation_classes, shift_masks, step_cost_table)
from accel_sim.models.scnn.fast.pe import busy_cycles
from accel_sim.models.scnn.fast.vectors import activation_elements, activation_vectors, weight_vectors
from accel_sim.models.scnn.family import FAMILY
from accel_sim.models.scnn.plan import operands
from accel_sim.models.scnn.plan.encoding import weight_storage_bits
from accel_sim.models.scnn.plan.nonzeros import stable_order, weight_nonzeros
from accel_sim.models.scnn.plan.tiling import conv_view
from accel_sim.foundations.workload import GemmLayer
from tests.scnn._layers import small_case


def _random_vectors(rng, banks, width, n, repeats):
    """``n`` vectors of 1..width bank terms drawn from ``repeats`` values (few values: many repeats)."""
    count = rng.integers(1, width + 1, n)
    vector = np.repeat(np.arange(n), count)
    slot = np.concatenate([np.arange(c) for c in count])
    term = rng.integers(0, repeats, vector.size) * rng.integers(1, banks, vector.size) % banks
    return vector, slot, term


@pytest.mark.parametrize("banks, width, repeats", [(32, 4, 32), (32, 4, 3), (8, 4, 8), (8, 2, 2), (4, 4, 2)])
def test_the_cost_of_a_step_is_the_cost_of_its_rotation_classes(banks, width, repeats):
    """Classes up to rotation (packed keys for one or two planes, plane-by-plane otherwise) and the
    table of their costs give every step's max_bank_load."""
    rng = np.random.default_rng(banks * 100 + repeats)
    vector, slot, term = _random_vectors(rng, banks, width, 400, repeats)
    acts = activation_banks(vector, slot, term, 400, banks, width)
    vector, slot, term = _random_vectors(rng, banks, width, 150, repeats)
    shifts = np.full((150, width), EMPTY_SHIFT, dtype=np.uint64)
    shifts[vector, slot] = term.astype(np.uint64)
    direct = max_bank_load(acts[:, None], shifts[None], banks)[0]
    i_class, i_rep = rotation_classes(acts, banks)
    f_class, f_rep = rotation_classes(shift_masks(shifts, banks), banks)
    assert i_rep.shape[1] < 400 and f_rep.shape[1] < 150     # the classes merge vectors
    table = step_cost_table(i_rep, mask_shifts(f_rep, banks, width), banks)
    assert np.array_equal(table[i_class[:, None], f_class[None, :]], direct)
    assert (table[-1] == 0).all() and (table[:, -1] == 0).all()   # padding costs nothing
    # the F-vectors' terms as I-vectors, every term rotated by 5: the same classes
    rotated = activation_banks(vector, slot, (term + 5) % banks, 150, banks, width)
    assert np.array_equal(rotation_classes(rotated, banks)[0],
                          rotation_classes(activation_banks(vector, slot, term, 150, banks, width), banks)[0])


@pytest.mark.parametrize("seed", range(40))
def test_busy_cycles_by_table_equal_busy_cycles_step_by_step(seed):
    arch, layer = small_case(seed, "scnn" if seed % 2 else "scnn_sparse_w")
    plan = FAMILY.plan(arch, layer)
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    for g in range(view.groups):
        weights = weight_vectors(spec, view, tiling, plan.weight_mask[g], plan.mask_nonzeros(g))
        acts = activation_vectors(spec, view, tiling, activation_elements(spec, view, tiling, plan.input_mask[0, g]))
        stepwise = busy_cycles(spec, tiling, acts, weights, table=False)
        assert np.array_equal(busy_cycles(spec, tiling, acts, weights, table=True), stepwise)
        assert np.array_equal(busy_cycles(spec, tiling, acts, weights), stepwise)


@pytest.mark.parametrize("seed", range(24))
def test_busy_cycles_per_segment_are_the_product_level_costs(seed):
    """barrier: group_channel needs each segment's busy cycles: by the crossbar's bank algebra (each
    path: step by step, by classes) they equal the product-level count and add up to the totals."""
    from accel_sim import load_arch
    from accel_sim.models.scnn.fast.products import product_busy
    arch, layer = small_case(seed, "scnn" if seed % 2 else "scnn_sparse_a")
    spec = arch.section("scnn")
    arch = load_arch("scnn", {f"scnn.{name}": getattr(spec, name) for name in (
        "design", "pe_rows", "pe_cols", "mult_f", "mult_i", "bank_mapping", "weight_order", "accumulator_banks",
        "accumulator_entries", "iaram_size")} | {"scnn.barrier": "group_channel"})
    plan = FAMILY.plan(arch, layer)
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    for g in range(view.groups):
        weights = weight_vectors(spec, view, tiling, plan.weight_mask[g], plan.mask_nonzeros(g))
        acts = activation_vectors(spec, view, tiling, activation_elements(spec, view, tiling, plan.input_mask[0, g]))
        products, _ = product_busy(plan, 0, g, weights)
        for table in (False, True):
            per_segment = busy_cycles(spec, tiling, acts, weights, table=table, per_segment=True)
            assert np.array_equal(per_segment, products)
            assert np.array_equal(per_segment.sum(axis=3), busy_cycles(spec, tiling, acts, weights, table=table))


@pytest.mark.parametrize("bound", [1, 7, 1 << 16, (1 << 16) + 5, 1 << 32, 1 << 40])
def test_stable_order_is_a_stable_argsort(bound):
    rng = np.random.default_rng(bound % 1000)
    keys = rng.integers(0, bound, 5000)
    assert np.array_equal(keys[stable_order(keys, bound)], np.sort(keys))
    assert np.array_equal(np.arange(5000)[stable_order(keys, bound)], np.argsort(keys, kind="stable"))
    ordered = np.sort(keys)
    assert stable_order(ordered, bound) == slice(None)      # already sorted: a view, no sort


def _fc(m=2, k=300, n=70):
    return GemmLayer("fc", m=m, k=k, n=n, weight_density=0.3, input_density=0.6)


@pytest.mark.parametrize("order", ["rs_then_k", "k_then_rs"])
def test_transposed_weights_encode_and_vectorise_as_their_contiguous_copy(order):
    """An FC layer's weights are a transposed view: scanned channel-major, the weight blocks and
    F-vectors are those of the same weights stored contiguously (np.nonzero's order)."""
    from accel_sim import load_arch
    arch = load_arch("scnn", {"scnn.weight_order": order, "scnn.mult_f": 4})
    plan = FAMILY.plan(arch, _fc())
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    transposed = plan.weights[0]
    assert not transposed.flags.c_contiguous
    contiguous = np.ascontiguousarray(transposed)
    k, c, _, _ = weight_nonzeros(transposed)
    assert (np.diff(c) >= 0).all() and not (np.diff(k) >= 0).all()   # channel-major, not np.nonzero's order
    assert np.array_equal(weight_storage_bits(spec, view, tiling, transposed, True, 16),
                          weight_storage_bits(spec, view, tiling, contiguous, True, 16))
    scanned = weight_vectors(spec, view, tiling, transposed != 0)
    reference = weight_vectors(spec, view, tiling, contiguous != 0)
    for field in ("segment", "group", "count", "shift", "seg_start", "multiplicity", "k", "vector", "term"):
        assert np.array_equal(getattr(scanned, field), getattr(reference, field)), field


def test_blocked_transposition_of_fc_weights_changes_no_sum(monkeypatch):
    """Tiles smaller than the matrix (and not dividing it): every output row is the matmul of a
    contiguous weight row, bit for bit the sums of the whole contiguous matrix."""
    layer = _fc(m=3, k=301, n=70)
    view = conv_view(layer)
    weights, inputs = operands.conv_operands(layer)
    whole = np.matmul(np.ascontiguousarray(weights[:, :, :, 0, 0])[None], inputs.reshape(3, 1, -1, 1))
    monkeypatch.setattr(operands, "TRANSPOSE_TILE", 16)
    blocked = operands.convolution(view, weights, inputs)
    assert np.array_equal(blocked.reshape(whole.shape), whole)


@pytest.mark.parametrize("bound", [5, 1 << 10, 1 << 20])
def test_distinct_keys_by_table_or_sort_are_np_unique(bound):
    """The class sums' distinct keys: a presence table for small bounds, a sort above (issue 22)."""
    from accel_sim.models.scnn.fast.pe import _distinct
    keys = np.random.default_rng(bound).integers(0, bound, 3000)
    distinct, inverse = _distinct(keys, bound)
    expected, expected_inverse = np.unique(keys, return_inverse=True)
    assert np.array_equal(distinct, expected) and np.array_equal(inverse, expected_inverse.reshape(-1))


@pytest.mark.parametrize("banks", [4, 6, 32, 64])
def test_bank_of_is_the_floor_mod_of_the_linear_address(banks):
    """bank_of's AND for a power-of-two bank count equals np.mod, negative offsets included."""
    from types import SimpleNamespace
    from accel_sim.models.scnn.plan.bank_mapping import bank_of
    spec = SimpleNamespace(bank_mapping="linear", accumulator_banks=banks, mult_f=2)
    tiling = SimpleNamespace(acc_h=5, acc_w=7)
    rng = np.random.default_rng(banks)
    k, y, x = (rng.integers(-50, 50, 500) for _ in range(3))
    assert np.array_equal(bank_of(spec, tiling, k, y, x), np.mod(35 * k + 7 * y + x, banks))


@pytest.mark.parametrize("seed", range(24))
def test_xor_bank_steps_by_code_classes_are_the_product_level_costs(seed, monkeypatch):
    """dnnsim_xor: each step costed once per (segment, I code class, F-vector) gives the product
    level's busy cycles, per segment (in chunks of any size, one entry at least)."""
    from accel_sim import load_arch
    from accel_sim.models.scnn.fast import bank_codes
    from accel_sim.models.scnn.fast.bank_codes import class_codes, xor_class_busy
    monkeypatch.setattr(bank_codes, "PAIRS_CHUNK", [1 << 20, 1, 5][seed % 3])
    from accel_sim.models.scnn.fast.products import product_busy
    arch, layer = small_case(seed, "scnn" if seed % 2 else "scnn_sparse_w")
    spec = arch.section("scnn")
    arch = load_arch("scnn", {f"scnn.{name}": getattr(spec, name) for name in (
        "design", "pe_rows", "pe_cols", "mult_f", "mult_i", "weight_order", "accumulator_banks",
        "accumulator_entries", "iaram_size")} | {"scnn.bank_mapping": "dnnsim_xor",
                                                "scnn.accumulator_banks": [8, 32, 64][seed % 3]})
    plan = FAMILY.plan(arch, layer)
    assert class_codes(plan)
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    for g in range(view.groups):
        weights = weight_vectors(spec, view, tiling, plan.weight_mask[g], plan.mask_nonzeros(g))
        assert np.array_equal(xor_class_busy(plan, 0, g, weights), product_busy(plan, 0, g, weights)[0])


@pytest.mark.parametrize("banks, scatter, out_of_plane", [(24, "serialise", "banked"), (6, "serialise", "banked"),
                                                         (24, "serialise", "slot_only"), (24, "fifo", "banked")])
def test_xor_banks_of_a_later_conv_group_of_three_filters(banks, scatter, out_of_plane):
    """dnnsim_xor hashes the LAYER's filter index k + conv group x Kg (low three bits). With Kg = 3
    filters per conv group the second group's k mod 8 is not the first's, and with a bank count that is
    not a power of two (24: banks 24-31 wrap onto 0-7; 6) a different k mod 8 is not just a relabelling
    of the banks: fast and reference (each product's bank) agree, whichever way the fast path costs the
    steps (serialise: code classes when out-of-plane products are banked, else product by product; fifo:
    the FIFO loop)."""
    from accel_sim import load_arch
    from accel_sim.foundations.contract import counter_differences
    from accel_sim.models.scnn.fast.bank_codes import class_codes
    from accel_sim.foundations.workload import ConvLayer
    arch = load_arch("scnn", {"scnn.bank_mapping": "dnnsim_xor", "scnn.accumulator_banks": banks, "scnn.scatter": scatter,
                              "scnn.out_of_plane": out_of_plane, "scnn.pe_rows": 2, "scnn.pe_cols": 2, "scnn.mult_f": 4,
                              "scnn.mult_i": 4})
    layer = ConvLayer("xor_groups", in_h=6, in_w=6, in_channels=4, out_channels=6, kernel_h=3, kernel_w=3, pad_top=1,
                      pad_bottom=1, pad_left=1, pad_right=1, groups=2, weight_density=0.6, input_density=0.6)
    plan = FAMILY.plan(arch, layer)
    assert plan.view.out_channels == 3 and class_codes(plan) == (out_of_plane == "banked")
    assert counter_differences(FAMILY.fast(plan, None), FAMILY.reference(plan, None)) == []


@pytest.mark.parametrize("seed", range(24))
def test_slot_only_steps_away_from_the_edges_by_the_crossbar_algebra(seed):
    """out_of_plane: slot_only: the I-vectors near an edge counted product by product plus the others
    by the crossbar's bank algebra give the product level's busy cycles."""
    from accel_sim import load_arch
    from accel_sim.models.scnn.fast.pe import _without
    from accel_sim.models.scnn.fast.products import border_split, border_vectors, product_busy
    arch, layer = small_case(seed + 100, "scnn" if seed % 2 else "scnn_sparse_a")
    spec = arch.section("scnn")
    arch = load_arch("scnn", {f"scnn.{name}": getattr(spec, name) for name in (
        "design", "pe_rows", "pe_cols", "mult_f", "mult_i", "bank_mapping", "weight_order", "accumulator_banks",
        "accumulator_entries", "iaram_size")} | {"scnn.out_of_plane": "slot_only"})
    plan = FAMILY.plan(arch, layer)
    assert border_split(plan)
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    for g in range(view.groups):
        weights = weight_vectors(spec, view, tiling, plan.weight_mask[g], plan.mask_nonzeros(g))
        acts = activation_vectors(spec, view, tiling, activation_elements(spec, view, tiling, plan.input_mask[0, g]))
        border = border_vectors(plan, 0, g, weights)
        split = product_busy(plan, 0, g, weights, border)[0] + busy_cycles(
            spec, tiling, _without(acts, border, spec.accumulator_banks), weights, per_segment=True)
        assert np.array_equal(split, product_busy(plan, 0, g, weights)[0])


def _vectors_by_hand(tile, segment, pe, width: int) -> list[list[int]]:
    """The elements of each I-vector: runs of equal (pass, segment, PE) cut every ``width``."""
    runs = list(zip(tile.tolist(), segment.tolist(), pe.tolist()))
    vectors = []
    for i, run in enumerate(runs):
        if i == 0 or run != runs[i - 1] or len(vectors[-1]) == width:
            vectors.append([])
        vectors[-1].append(i)
    return vectors


def _edge_layer(tmp_path):
    """6 x 6 plane, 3 x 3 all-ones filters, pad 1, two channels on 1 x 2 PEs of I = 2, an IARAM of 48 B
    (2 x 2 temporal tiles: rows 0-2 / 3-5, columns 0-3 / 4-5). Channel 0 is non-zero in rows 0-2 only,
    so pass 2 (rows 3-5, columns 0-3) starts at channel 1, PE 0, right after pass 1's channel 1,
    PE 1 (3 activations, then 5: input (5, 1) is zero)."""
    from accel_sim import load_arch
    from accel_sim.foundations.workload import ConvLayer
    from tests.scnn._layers import payload
    inputs = np.zeros((1, 2, 6, 6))
    inputs[0, 0, :3] = inputs[0, 1] = 1
    inputs[0, 1, 5, 1] = 0
    layer = ConvLayer("edges", in_h=6, in_w=6, in_channels=2, out_channels=2, kernel_h=3, kernel_w=3, pad_top=1,
                      pad_bottom=1, pad_left=1, pad_right=1,
                      operands=payload(tmp_path, "edges", np.ones((2, 2, 3, 3)), inputs))
    arch = load_arch("scnn", {"scnn.scatter": "serialise", "scnn.out_of_plane": "slot_only", "scnn.bank_mapping": "linear",
                              "scnn.pe_rows": 1, "scnn.pe_cols": 2, "scnn.mult_i": 2, "scnn.mult_f": 2,
                              "scnn.accumulator_banks": 4, "scnn.iaram_size": 48})
    plan = FAMILY.plan(arch, layer)
    tiling = plan.tiling
    assert (tiling.temporal_rows, tiling.temporal_cols, tiling.channel_chunks) == (2, 2, 1)
    return plan


def _phase_layer(tmp_path):
    """8 x 8 plane, stride 2, 3 x 3 all-ones filters, pad 1, one channel on one PE of I = 2, an IARAM of
    48 B (2 x 2 temporal tiles of 4 x 4). Only odd rows are non-zero (padded row phase 0), so each
    pass holds segments 0 and 1 (the column phases) and the next pass starts at segment 0; input
    (1, 0) is zero: pass 0's segment 1 has 3 activations."""
    from accel_sim import load_arch
    from accel_sim.foundations.workload import ConvLayer
    from tests.scnn._layers import payload
    inputs = np.zeros((1, 1, 8, 8))
    inputs[0, 0, 1::2] = 1
    inputs[0, 0, 1, 0] = 0
    layer = ConvLayer("phases", in_h=8, in_w=8, in_channels=1, out_channels=2, kernel_h=3, kernel_w=3, stride_h=2,
                      stride_w=2, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1,
                      operands=payload(tmp_path, "phases", np.ones((2, 1, 3, 3)), inputs))
    arch = load_arch("scnn", {"scnn.scatter": "serialise", "scnn.pe_rows": 1, "scnn.pe_cols": 1, "scnn.mult_i": 2,
                              "scnn.mult_f": 2, "scnn.accumulator_banks": 4, "scnn.iaram_size": 48})
    plan = FAMILY.plan(arch, layer)
    assert (plan.tiling.temporal_rows, plan.tiling.channel_chunks, plan.view.stride_h) == (2, 1, 2)
    return plan


@pytest.mark.parametrize("layer", [_edge_layer, _phase_layer])
def test_i_vectors_are_runs_of_one_pass_segment_and_pe(tmp_path, layer):
    """activation_vectors: an I-vector never mixes two (pass, segment, PE) runs, even when one pass's
    last run and the next pass's first are adjacent with no segment between (the two layers above);
    both paths count the layer the same."""
    from accel_sim.foundations.contract import counter_differences
    plan = layer(tmp_path)
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    tile, seg, pe, term = activation_elements(spec, view, tiling, plan.input_mask[0, 0])
    acts = activation_vectors(spec, view, tiling, (tile, seg, pe, term))
    vectors = _vectors_by_hand(tile, seg, pe, spec.mult_i)
    firsts = [v[0] for v in vectors]
    assert acts.count.tolist() == [len(v) for v in vectors]
    assert (acts.tile.tolist(), acts.segment.tolist(), acts.pe.tolist()) == (
        tile[firsts].tolist(), seg[firsts].tolist(), pe[firsts].tolist())
    assert counter_differences(FAMILY.fast(plan, None), FAMILY.reference(plan, None)) == []


def test_border_vectors_of_a_pass_whose_first_channel_is_empty(tmp_path):
    """slot_only's border flags, one per I-vector (:func:`_edge_layer`: pass 2's first run follows pass
    1's last with no channel between): an I-vector is near the edge iff one of its activations lies
    on the plane's border (row or column 0 or 5: a 3 x 3 kernel with pad 1 moves one of its products
    out of the plane). Both paths count the layer the same."""
    from accel_sim.foundations.contract import counter_differences
    from accel_sim.models.scnn.fast.products import border_split, border_vectors
    plan = _edge_layer(tmp_path)
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    assert border_split(plan)
    tile, seg, pe, _, qy, qx = activation_elements(spec, view, tiling, plan.input_mask[0, 0], positions=True)
    runs = list(zip(tile.tolist(), seg.tolist(), pe.tolist()))
    assert runs.index((2, 1, 0)) == runs.index((1, 1, 1)) + 3 and runs.count((2, 1, 0)) == 5
    on_border = (qy == 1) | (qy == 6) | (qx == 1) | (qx == 6)   # output-grid (y + 1, x + 1)
    expected = [bool(on_border[v].any()) for v in _vectors_by_hand(tile, seg, pe, spec.mult_i)]
    weights = weight_vectors(spec, view, tiling, plan.weight_mask[0], plan.mask_nonzeros(0))
    assert border_vectors(plan, 0, 0, weights).tolist() == expected
    assert counter_differences(FAMILY.fast(plan, None), FAMILY.reference(plan, None)) == []


@pytest.mark.parametrize("seed", range(8))
def test_dnnsim_truncated_outputs_move_additive_banks_as_the_reference_does(seed):
    """stride_phases: dnnsim with an additive bank mapping: a product truncated onto output row (column)
    0 moves its bank by acc_w (by 1); fast and reference agree on every counter (stride 2, padding 1)."""
    from accel_sim import load_arch
    from accel_sim.foundations.workload import ConvLayer
    rng = np.random.default_rng(seed)
    arch = load_arch("scnn", {"scnn.stride_phases": "dnnsim", "scnn.bank_mapping": ["linear", "channel_spread"][seed % 2],
                              "scnn.pe_rows": 2, "scnn.pe_cols": 2, "scnn.accumulator_banks": 8,
                              "scnn.accumulator_entries": 32})
    layer = ConvLayer(f"t{seed}", in_h=int(rng.integers(6, 11)), in_w=int(rng.integers(6, 11)), in_channels=3,
                      out_channels=4, kernel_h=3, kernel_w=3, stride_h=2, stride_w=2, pad_top=1, pad_bottom=1,
                      pad_left=1, pad_right=1, weight_density=0.7, input_density=0.8)
    assert FAMILY.refinement(arch, layer) == []


@pytest.mark.parametrize("seed", range(12))
def test_pair_loads_are_the_steps_of_every_two_activation_i_vector(seed):
    """An I-vector of two activations costs, against each F-vector, max_bank_load of its terms
    {t, t + d}: pair_loads sums them per (segment, group, d) from each F-vector's rotation
    differences (and its repeated rotations, counted apart)."""
    from accel_sim.models.scnn.fast.pe import pair_loads
    arch, layer = small_case(seed, "scnn" if seed % 2 else "scnn_sparse_w")
    plan = FAMILY.plan(arch, layer)
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    banks = spec.accumulator_banks
    weights = weight_vectors(spec, view, tiling, None, plan.mask_nonzeros(0))
    table = pair_loads(weights, banks)
    for d in range(banks):
        acts = activation_banks(np.zeros(2, dtype=np.int64), np.arange(2), np.array([3, 3 + d]) % banks, 1, banks, 2)
        costs = max_bank_load(acts[:, None], weights.shift[None], banks)[0, 0]
        expected = np.zeros(table.shape[:2], dtype=np.int64)
        np.add.at(expected, (weights.segment, weights.group), costs)
        assert np.array_equal(table[:, :, d], expected), d


@pytest.mark.parametrize("arch_name", ["scnn", "scnn_sparse_w", "scnn_sparse_a", "dcnn_opt"])
def test_fc_layers_read_as_their_non_zeros_count_what_the_full_weights_count(monkeypatch, arch_name):
    """A fully connected layer's plan reads the operands' non-zeros (no full-size weights or mask:
    SCNN's fast path never makes them) and its outputs' blocks are filled from them: the counters,
    the outputs and the encoded bits equal those of the plan built from the full weights."""
    from accel_sim import load_arch
    from accel_sim.models.scnn.fast import fast
    from accel_sim.foundations.workload.operands import _cached_operands
    arch = load_arch(arch_name)
    layer = GemmLayer("fc", m=2, k=300, n=600, weight_density=0.1, input_density=0.4)   # 3 blocks of rows
    _cached_operands.cache_clear()
    operands.layer_outputs.cache_clear()
    sparse = FAMILY.plan(arch, layer)
    counted = fast(sparse)
    if arch_name == "scnn":
        assert "weights" not in vars(sparse) and "weight_mask" not in vars(sparse)
    sparse_outputs = operands.layer_outputs(layer)
    monkeypatch.setattr("accel_sim.models.scnn.plan.sparse_fc", lambda *a: False)
    monkeypatch.setattr(operands, "sparse_fc", lambda *a: False)
    operands.layer_outputs.cache_clear()
    dense = FAMILY.plan(arch, layer)
    assert fast(dense) == counted
    assert operands.layer_outputs(layer).tobytes() == sparse_outputs.tobytes()
    for name in ("weight_chip_bits", "weight_dram_bits", "output_bits", "input_bits"):
        assert np.array_equal(getattr(sparse, name), getattr(dense, name)), name
    assert np.array_equal(sparse.weights, dense.weights) and np.array_equal(sparse.weight_mask, dense.weight_mask)
    operands.layer_outputs.cache_clear()
    _cached_operands.cache_clear()


@pytest.mark.parametrize("seed", range(30))
def test_step_sums_per_group_with_groups_missing_from_segments(seed):
    """Step by step, an I-vector's steps are summed per output-channel group over the runs of its
    segment's F-vectors; with the last groups (or the first) missing from some channels (their
    weights removed) the sums still equal those by rotation classes."""
    from accel_sim import load_arch
    arch, layer = small_case(seed, "scnn")
    spec = arch.section("scnn")   # one PE of 4 x 4 multipliers: I-vectors of 3 and 4 activations take steps
    arch = load_arch("scnn", {f"scnn.{name}": getattr(spec, name) for name in (
        "design", "bank_mapping", "weight_order", "accumulator_banks", "accumulator_entries")}
        | {"scnn.pe_rows": 1, "scnn.pe_cols": 1, "scnn.mult_i": 4, "scnn.mult_f": 4})
    plan = FAMILY.plan(arch, layer)
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    rng = np.random.default_rng(seed)
    k, c, r, s = (np.asarray(v) for v in plan.mask_nonzeros(0))
    group = k // tiling.kc
    dropped = rng.random(view.channels) < (0.5 if seed % 2 else 1.0)   # every channel: the last block too
    keep = ~(dropped[c] & ((group == tiling.out_groups - 1) | (group == 0) * (seed % 3 == 0)))
    weights = weight_vectors(spec, view, tiling, None, tuple(v[keep] for v in (k, c, r, s)))
    acts = activation_vectors(spec, view, tiling, activation_elements(spec, view, tiling, plan.input_mask[0, 0]))
    for per_segment in (False, True):
        assert np.array_equal(busy_cycles(spec, tiling, acts, weights, table=False, per_segment=per_segment),
                              busy_cycles(spec, tiling, acts, weights, table=True, per_segment=per_segment))


@pytest.mark.parametrize("seed", range(16))
def test_activation_elements_equal_on_every_path(seed, monkeypatch):
    """activation_elements: the compiled element loop, the same loop as plain Python and the numpy path (no numba)
    list the same non-zeros (pass, segment, PE, bank term, output-grid position) in the same order, on small
    generated layers (temporal tiles, channel chunks, strides, DNNsim's stride phases)."""
    from accel_sim.models.scnn.fast import vectors
    from tests.scnn._layers import chunked_case
    arch, layer = small_case(seed, "scnn") if seed < 12 else chunked_case(seed, "scnn")
    if seed % 3 == 2:
        import dataclasses
        arch = dataclasses.replace(arch, scnn=dataclasses.replace(arch.scnn, stride_phases="dnnsim"))
    plan = FAMILY.plan(arch, layer)
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    found = {}
    for name, path in (("compiled", vectors._compiled_elements), ("python", lambda: vectors.element_lists),
                       ("numpy", lambda: None)):
        monkeypatch.setattr(vectors, "_compiled_elements", path)
        found[name] = [activation_elements(spec, view, tiling, plan.input_mask[0, g], positions=positions)
                       for g in range(view.groups) for positions in (False, True)]
    for lists in found.values():
        assert [len(e) for e in lists] == [len(e) for e in found["numpy"]]
        for mine, expected in zip(lists, found["numpy"]):
            assert all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(mine, expected))
