"""Refinement of the FIFO scatter network's compiled loops (accel_sim/models/scnn/fast/scatter_fifo_kernel.py): on
generated layers every counter equals the SimPy reference and the numpy path, for the packed loop (8-bit lanes),
the product loop, and the unbounded packed loop's hand-over to the product loop when a queue passes 127. Each
runs as plain Python (always) and compiled by numba (when installed)."""
import dataclasses
import types

import numpy as np
import pytest

from accel_sim import load_arch
from accel_sim.models.scnn.family import FAMILY
from accel_sim.models.scnn.fast import scatter_fifo, scatter_fifo_kernel
from accel_sim.models.scnn.fast.scatter_fifo_rows import xor_rows
from accel_sim.models.scnn.fast.scatter_fifo_kernel import (HIGH, LOW, lane_drain, lane_drain_one, lane_max, packed_fits,
                                                     pattern_table, python_kernels)
from accel_sim.models.scnn.plan.bank_mapping import xor_bank
from accel_sim.foundations.workload import ConvLayer
from tests.scnn._layers import small_case

BACKENDS = ["python", "numba"]


def kernels_of(backend: str):
    if backend == "python":
        return python_kernels
    if scatter_fifo_kernel.compiled() is None:
        pytest.skip("numba is not installed (an optional dependency)")
    return scatter_fifo_kernel.compiled


def variant(arch, **choices):
    return dataclasses.replace(arch, scnn=dataclasses.replace(arch.scnn, **choices))


CHOICES = ({"scatter": "fifo", "scatter_fifo_depth": 0}, {"scatter": "fifo", "scatter_fifo_depth": 1},
           {"scatter": "fifo", "scatter_fifo_depth": 4}, {"scatter": "fifo_unbounded"},
           {"scatter": "fifo", "scatter_fifo_depth": 2, "barrier": "group_channel"},
           {"scatter": "fifo", "scatter_fifo_depth": 3, "accumulator_banks": 12},    # not a power of two
           {"scatter": "fifo", "scatter_fifo_depth": 2, "accumulator_banks": 48},    # > 32 banks: product loop
           {"scatter": "fifo", "scatter_fifo_depth": 120},                          # D + F I > 127: product loop
           # DNNsim's coordinate rules: the XOR hash in the packed loop (banked, aligned strides), else the product
           # loop computing each product's bank from its output coordinate
           # (32 banks: the hash's bit 16 k_2 ^ y_1 ^ x_1 moves the bank)
           {"scatter": "fifo", "scatter_fifo_depth": 4, "bank_mapping": "dnnsim_xor", "accumulator_banks": 32},
           {"scatter": "fifo_unbounded", "bank_mapping": "dnnsim_xor", "accumulator_banks": 32},
           {"scatter": "fifo", "scatter_fifo_depth": 1, "bank_mapping": "dnnsim_xor", "accumulator_banks": 48},
           {"scatter": "fifo", "scatter_fifo_depth": 3, "out_of_plane": "slot_only"},
           {"scatter": "fifo", "scatter_fifo_depth": 2, "stride_phases": "dnnsim"},
           {"scatter": "fifo", "scatter_fifo_depth": 4, "bank_mapping": "dnnsim_xor", "out_of_plane": "slot_only",
            "stride_phases": "dnnsim", "barrier": "group_channel"})
SEEDS = {"python": range(5), "numba": range(12)}


def numpy_path_not_run(*args, **kwargs):
    raise AssertionError("the numpy path ran although the loops were given")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("choices", CHOICES, ids=lambda c: "-".join(f"{v}" for v in c.values()))
def test_loops_equal_the_reference_and_the_numpy_path(monkeypatch, backend, choices):
    kernels = kernels_of(backend)
    for seed in SEEDS[backend]:
        # stride_phases dnnsim pairs operands as DNNsim's SCNN does: design scnn only
        arch, layer = small_case(seed, "scnn" if seed % 4 or "stride_phases" in choices else "scnn_sparse_a")
        arch = variant(arch, **choices)
        monkeypatch.setattr(scatter_fifo, "KERNELS", kernels)
        monkeypatch.setattr(scatter_fifo, "segment_loads", numpy_path_not_run)
        assert FAMILY.refinement(arch, layer) == [], (seed, layer, arch.scnn)
        looped = FAMILY.counters(arch, layer)[1]
        monkeypatch.undo()
        monkeypatch.setattr(scatter_fifo, "KERNELS", lambda: None)
        assert FAMILY.counters(arch, layer)[1] == looped, (seed, layer, arch.scnn)


@pytest.mark.parametrize("backend", BACKENDS)
def test_border_vectors_share_the_lanes_of_32_banks(monkeypatch, backend):
    """slot_only on 32 banks (four words of 8-bit lanes): the packed loop counts the border I-vectors' products
    one by one into the lanes (:func:`product_words`), the others' from the table; a FIFO of depth 2 carries
    each bank's queue from one kind of step to the other, so a bank counted in the wrong word changes the
    cycles. Planes of at least 8 x 8 (interior vectors too), F = I = 4, dense-ish operands."""
    for seed in (22, 31):
        arch, layer = small_case(seed, "scnn")
        layer = dataclasses.replace(layer, in_h=max(layer.in_h, 8), in_w=max(layer.in_w, 8), input_density=0.9,
                                    weight_density=0.9)
        arch = variant(arch, scatter="fifo", scatter_fifo_depth=2, out_of_plane="slot_only", accumulator_banks=32,
                       mult_f=4, mult_i=4, bank_mapping="linear")
        monkeypatch.setattr(scatter_fifo, "KERNELS", kernels_of(backend))
        assert FAMILY.refinement(arch, layer) == [], seed
        looped = FAMILY.counters(arch, layer)[1]
        monkeypatch.setattr(scatter_fifo, "KERNELS", lambda: None)
        assert FAMILY.counters(arch, layer)[1] == looped, seed


def overflowing_case():
    """Dense 3 x 3 layer on one PE with 4 banks and 4 x 4 multipliers: 16 products a step on 4 banks, so
    unbounded queues grow by about 3 a step and pass 127 within a channel."""
    arch = load_arch("scnn", {"scnn.design": "scnn", "scnn.pe_rows": 1, "scnn.pe_cols": 1, "scnn.mult_f": 4,
                              "scnn.mult_i": 4, "scnn.accumulator_banks": 4, "scnn.scatter": "fifo_unbounded"})
    return arch, ConvLayer("dense", in_h=6, in_w=6, in_channels=2, out_channels=4, kernel_h=3, kernel_w=3,
                           pad_top=1, pad_bottom=1, pad_left=1, pad_right=1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_product_loop_alone_and_the_unbounded_hand_over(monkeypatch, backend):
    """The product loop on every sequence (packed_fits False) gives the same counters; four banks and
    unbounded queues overflow the packed lanes on some layers: those sequences are run again by the product
    loop, and the counters stay those of the numpy path."""
    kernels = kernels_of(backend)()
    handed = []

    def product(*args):
        handed.append(int(args[-1].sum()))
        return kernels["product"](*args)

    cases = [small_case(seed, "scnn") for seed in range(4)]
    cases = [overflowing_case()] + [(variant(arch, scatter="fifo", scatter_fifo_depth=2), layer)
                                    for arch, layer in cases]
    monkeypatch.setattr(scatter_fifo, "KERNELS", lambda: None)
    expected = [FAMILY.counters(arch, layer)[1] for arch, layer in cases]
    monkeypatch.setattr(scatter_fifo, "KERNELS", lambda: {"packed": kernels["packed"], "product": product})
    assert [FAMILY.counters(arch, layer)[1] for arch, layer in cases] == expected
    assert handed[0] > 0, "no unbounded sequence overflowed the packed lanes: the hand-over is untested"
    assert FAMILY.refinement(*cases[0]) == []
    monkeypatch.setattr(scatter_fifo, "packed_fits", lambda *args: False)
    assert [FAMILY.counters(arch, layer)[1] for arch, layer in cases] == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_xor_hash_runs_in_the_packed_loop(monkeypatch, backend):
    """DNNsim's XOR hash (banked, aligned strides, 32 banks, depth 4) takes the packed loop alone."""
    kernels = kernels_of(backend)()
    ran = []
    monkeypatch.setattr(scatter_fifo, "KERNELS", lambda: {"packed": lambda *a: ran.append("packed") or
                                                          kernels["packed"](*a),
                                                          "product": lambda *a: ran.append("product") or
                                                          kernels["product"](*a)})
    arch, layer = small_case(1, "scnn")
    arch = variant(arch, scatter="fifo", scatter_fifo_depth=4, bank_mapping="dnnsim_xor", accumulator_banks=32)
    FAMILY.counters(arch, layer)
    assert set(ran) == {"packed"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_wide_i_vectors_run_in_the_packed_loop(monkeypatch, backend):
    """I-vectors of 16 activations on 32 banks (2 x 16 multipliers, depth 4: 36 lanes' worth fits the packed
    loop): their pattern codes would pass 63 bits, so the patterns are told apart by their terms; the counters
    equal the reference's."""
    kernels = kernels_of(backend)()
    ran = []
    monkeypatch.setattr(scatter_fifo, "KERNELS", lambda: {"packed": lambda *a: ran.append("packed") or
                                                          kernels["packed"](*a), "product": kernels["product"]})
    arch = load_arch("scnn", {"scnn.design": "scnn", "scnn.pe_rows": 1, "scnn.pe_cols": 1, "scnn.mult_f": 2,
                              "scnn.mult_i": 16, "scnn.accumulator_banks": 32})
    layer = ConvLayer("wide", in_h=12, in_w=12, in_channels=3, out_channels=8, kernel_h=3, kernel_w=3, pad_top=1,
                      pad_bottom=1, pad_left=1, pad_right=1, input_density=0.9, weight_density=0.6)
    assert FAMILY.refinement(arch, layer) == []
    assert ran and set(ran) == {"packed"}


def packed(values) -> tuple:
    lanes = np.zeros(32, dtype=np.uint8)
    lanes[:len(values)] = values
    return tuple(lanes.view("<u8"))


def test_lane_arithmetic():
    rng = np.random.default_rng(5)
    for _ in range(50):
        values = rng.integers(0, 128, 32)
        assert lane_max(*packed(values)) == values.max()
        d = int(rng.integers(1, 129))
        drained = np.concatenate([np.frombuffer(np.uint64(lane_drain(w, d)).tobytes(), dtype=np.uint8)
                                  for w in packed(values)])
        assert drained.tolist() == np.maximum(values - d, 0).tolist()
        assert [lane_drain_one(w) for w in packed(values)] == [lane_drain(w, 1) for w in packed(values)]
    assert HIGH == 0x80 * LOW


def rotated_counts_hold(i_elem: np.ndarray, terms: np.ndarray, banks: int):
    """(pattern, first) of :func:`pattern_table`, after checking its table holds each vector's bank counts
    rotated by every weight term."""
    pattern, first, table = pattern_table(i_elem, terms, banks)
    table = table.view(np.uint8).reshape(-1, 2 * banks, 32)
    for v in range(i_elem.size - 1):
        counts = np.bincount(terms[i_elem[v]:i_elem[v + 1]], minlength=banks)
        for w in range(banks):   # a weight of term w moves each product to bank (activation term + w) mod A
            assert table[pattern[v], first[v] + w, :banks].tolist() == np.roll(counts, w).tolist(), (v, w)
    return pattern, first


def test_pattern_table_rotates_each_vectors_bank_counts():
    terms = np.array([3, 4, 5, 11, 0, 0, 7, 7, 9, 10, 11, 2])
    i_elem = np.array([0, 3, 6, 8, 12])   # vectors (3 4 5), (11 0 0), (7 7), (9 10 11 2)
    pattern, first = rotated_counts_hold(i_elem, terms, 12)
    assert pattern[0] != pattern[1] and first.tolist() == [3, 11, 7, 9]


@pytest.mark.parametrize("width", [20, 21])
def test_pattern_table_at_the_63_bit_code_boundary(width):
    """A pattern's code has a base-(A + 1) digit per slot: on 7 banks, vectors of 20 activations need codes
    below 8^20 = 2^60 (the code path), of 21 up to 8^21 = 2^63, which int64 cannot hold (the terms path)."""
    rng = np.random.default_rng(width)
    sizes = np.array([width, width, width - 1, 1, width])
    terms = rng.integers(0, 7, int(sizes.sum()))
    terms[2 * width:3 * width - 1] = terms[:width - 1]   # a shorter vector sharing the first one's terms
    pattern, _ = rotated_counts_hold(np.concatenate(([0], np.cumsum(sizes))), terms, 7)
    assert pattern[0] != pattern[2]


def test_xor_rows_hold_each_vectors_bank_counts_under_the_hash():
    """The packed loop's row of an I-vector and a weight counts the vector's products per bank of DNNsim's XOR
    hash on their output coordinates (:func:`~accel_sim.models.scnn.plan.bank_mapping.xor_bank`)."""
    arch = variant(load_arch("scnn"), bank_mapping="dnnsim_xor", mult_i=4, accumulator_banks=32)
    plan = types.SimpleNamespace(spec=arch.scnn)
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 5, 40)
    i_elem = np.concatenate(([0], np.cumsum(sizes)))
    a_pos = rng.integers(0, 40, (int(i_elem[-1]), 2))
    w_pos = np.stack((rng.integers(0, 6, 30), rng.integers(0, 6, 30), rng.integers(0, 64, 30)), axis=1)
    segment = np.repeat([0, 1], 20)
    rows = xor_rows(plan, i_elem, a_pos, segment, 2, w_pos)
    table = rows.table.view(np.uint8)
    for v in range(sizes.size):
        c = rows.c_start[segment[v]] + rows.i_local[v]
        for w in range(w_pos.shape[0]):
            at = (rows.c_base[c] + rows.w_key[w]) * 8
            acts = a_pos[i_elem[v]:i_elem[v + 1]]
            banks = xor_bank(arch.scnn, w_pos[w, 2], acts[:, 0] - w_pos[w, 0], acts[:, 1] - w_pos[w, 1])
            assert table[at:at + 32].tolist() == np.bincount(banks, minlength=32).tolist()


def test_packed_fits_only_what_its_lanes_hold():
    assert packed_fits(32, 4, 16) and packed_fits(32, None, 16) and packed_fits(32, 111, 16)
    assert not packed_fits(32, 112, 16) and not packed_fits(33, 4, 16)


SERIALISE_CHOICES = (
    # DNNsim's rules (classes of I-vectors only on stride 1 layers, or aligned strides)
    {"bank_mapping": "dnnsim_xor", "out_of_plane": "slot_only", "stride_phases": "dnnsim", "barrier": "group_channel"},
    {"bank_mapping": "dnnsim_xor", "out_of_plane": "slot_only", "barrier": "group_channel"},
    {"bank_mapping": "dnnsim_xor", "stride_phases": "dnnsim", "accumulator_banks": 48},   # a modulo, not a mask
    {"stride_phases": "dnnsim"})                                                          # additive: no classes


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("choices", SERIALISE_CHOICES, ids=lambda c: "-".join(f"{v}" for v in c.values()))
def test_serialise_loop_equals_the_reference_and_the_numpy_path(monkeypatch, backend, choices):
    """``scatter: serialise`` under a coordinate rule: the depth-0 loop (:func:`serialise_kernel`, I-vectors
    of one class counted once) gives the reference's and the numpy path's counters. Planes of at least
    12 x 12 (interior I-vectors too), dense-ish operands."""
    kernels = kernels_of(backend)()
    ran = []

    def serialise(*args):
        ran.append(1)
        return kernels["serialise"](*args)

    for seed in range(3 if backend == "python" else 8):
        arch, layer = small_case(seed, "scnn")
        layer = dataclasses.replace(layer, in_h=max(layer.in_h, 12), in_w=max(layer.in_w, 12), input_density=0.8,
                                    weight_density=0.8)
        arch = variant(arch, scatter="serialise", mult_f=4, mult_i=4, **{"accumulator_banks": 32, **choices})
        monkeypatch.setattr(scatter_fifo, "KERNELS", lambda: dict(kernels, serialise=serialise))
        assert FAMILY.refinement(arch, layer) == [], (seed, layer, arch.scnn)
        looped = FAMILY.counters(arch, layer)[1]
        monkeypatch.setattr(scatter_fifo, "KERNELS", lambda: None)
        assert FAMILY.counters(arch, layer)[1] == looped, (seed, layer, arch.scnn)
    assert ran


def test_vector_lanes_equal_the_word_loops():
    """The compiled packed loop's vector intrinsics against the plain-Python word loops on random blocks:
    ``lane_steps`` (a sequence's steps, 32 byte lanes in one register) equals :func:`sequence_steps` at depths
    0, 1 and 4 (steps that stall) and unbounded (lanes passing 127: the sequence fails), and ``lane_rows``
    equals :func:`combination_rows` with int32 and int64 weight keys."""
    if scatter_fifo_kernel.compiled() is None:
        pytest.skip("numba is not installed (an optional dependency)")
    from numba import njit
    from accel_sim.models.scnn.fast.scatter_fifo_kernel import (_lane_steps_compiled, _with, combination_rows,
                                                                lane_combination_rows, lane_sequence_steps,
                                                                sequence_steps)
    lane_steps, lane_rows = _lane_steps_compiled()
    steps = njit(_with(lane_sequence_steps, lane_steps=lane_steps))
    rows = njit(_with(lane_combination_rows, lane_rows=lane_rows))
    rng = np.random.default_rng(7)
    for depth, products in ((0, 16), (1, 16), (4, 16), (-1, 40)):
        held = []
        f_n = int(rng.integers(1, 6))
        loads = rng.binomial(products, 1 / 8, (30 * f_n, 32)).astype(np.uint8).view("<u8").reshape(-1)
        i_local = rng.integers(0, 30, 50)
        reach = np.uint64(0 if depth < 0 else 126 - depth) * LOW
        start = rng.integers(0, max(depth, 1) + 1, 32).astype(np.uint8).view("<u8")
        for v_lo, v_hi in ((0, 50), (3, 17), (5, 5)):   # (a failed sequence's cycles and queues are not used)
            queue, q = start.copy(), start.copy()
            expected = sequence_steps(loads, i_local, v_lo, v_hi, f_n, queue, depth, reach)
            got = steps(loads, i_local, v_lo, v_hi, f_n, q, depth, reach)
            assert got[1] == expected[1] and (not got[1] or (got[0] == expected[0] and q.tolist() == queue.tolist()))
            held.append(expected[1])
        assert depth >= 0 or not all(held), "no unbounded lane passed 127: the failure is untested"
    table = rng.integers(0, 1 << 62, 400, dtype=np.uint64)
    f_weight = np.concatenate(([0], np.cumsum(rng.integers(0, 5, 12))))
    for dtype in (np.int32, np.int64):
        w_key = (rng.integers(0, 90, int(f_weight[-1])) * 4).astype(dtype)
        expected, got = np.zeros(48, dtype=np.uint64), np.zeros(48, dtype=np.uint64)
        combination_rows(table, np.uint64(12), w_key, f_weight, 2, 9, expected, np.uint64(8))
        rows(table, np.uint64(12), w_key, f_weight, 2, 9, got, np.uint64(8))
        assert got.tolist() == expected.tolist()
