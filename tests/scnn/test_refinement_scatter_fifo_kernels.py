"""Refinement of the FIFO scatter network's compiled loops (accel_sim/scnn/fast/scatter_fifo_kernel.py): on
generated layers every counter equals the SimPy reference and the numpy path, for the packed loop (8-bit lanes),
the product loop, and the unbounded packed loop's hand-over to the product loop when a queue passes 127. Each
runs as plain Python (always) and compiled by numba (when installed)."""
import dataclasses

import numpy as np
import pytest

from accel_sim import load_arch
from accel_sim.scnn.family import FAMILY
from accel_sim.scnn.fast import scatter_fifo, scatter_fifo_kernel
from accel_sim.scnn.fast.scatter_fifo_kernel import (HIGH, LOW, lane_drain, lane_max, packed_fits, pattern_table,
                                                     python_kernels)
from accel_sim.workload import ConvLayer
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
           {"scatter": "fifo", "scatter_fifo_depth": 120})                          # D + F I > 127: product loop
SEEDS = {"python": range(5), "numba": range(12)}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("choices", CHOICES, ids=lambda c: "-".join(f"{v}" for v in c.values()))
def test_loops_equal_the_reference_and_the_numpy_path(monkeypatch, backend, choices):
    kernels = kernels_of(backend)
    for seed in SEEDS[backend]:
        arch, layer = small_case(seed, "scnn" if seed % 4 else "scnn_sparse_a")
        arch = variant(arch, **choices)
        monkeypatch.setattr(scatter_fifo, "KERNELS", kernels)
        assert FAMILY.refinement(arch, layer) == [], (seed, layer, arch.scnn)
        looped = FAMILY.counters(arch, layer)[1]
        monkeypatch.setattr(scatter_fifo, "KERNELS", lambda: None)
        assert FAMILY.counters(arch, layer)[1] == looped, (seed, layer, arch.scnn)


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
    assert HIGH == 0x80 * LOW


def test_pattern_table_rotates_each_vectors_bank_counts():
    banks = 12
    terms = np.array([3, 4, 5, 11, 0, 0, 7, 7, 9, 10, 11, 2])
    i_elem = np.array([0, 3, 6, 8, 12])   # vectors (3 4 5), (11 0 0), (7 7), (9 10 11 2)
    pattern, first, table = pattern_table(i_elem, terms, banks)
    table = table.view(np.uint8).reshape(-1, 2 * banks, 32)
    assert pattern[0] != pattern[1] and first.tolist() == [3, 11, 7, 9]
    for v in range(4):
        counts = np.bincount(terms[i_elem[v]:i_elem[v + 1]], minlength=banks)
        for w in range(banks):   # a weight of term w moves each product to bank (activation term + w) mod A
            assert table[pattern[v], first[v] + w, :banks].tolist() == np.roll(counts, w).tolist()


def test_packed_fits_only_what_its_lanes_hold():
    assert packed_fits(32, 4, 16) and packed_fits(32, None, 16) and packed_fits(32, 111, 16)
    assert not packed_fits(32, 112, 16) and not packed_fits(33, 4, 16)
