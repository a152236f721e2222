"""Refinement of the fast path's bank-conflict counting against a direct count.

A step's cycles are the most products any bank receives: with additive bank mappings the
product of activation term ``a`` and weight term ``w`` lands in bank ``(a + w) mod A``. The
fast path counts this with bit-sliced masks (A <= 32) or per-bank counts (any A); both must
equal a plain loop over the F x I products."""
import numpy as np
import pytest

from accel_sim.models.scnn.fast.crossbar import (EMPTY_SHIFT, activation_banks, max_bank_load, step_cycles,
                                          weight_multiplicity)


def random_steps(rng, banks, f, i, blocks=3, n_i=4, n_f=5):
    """Random ragged I-vectors (terms, -1 unused) and F-vectors (terms, -1 unused), per block."""
    acts = np.where(rng.random((blocks, n_i, i)) < 0.8, rng.integers(0, banks, (blocks, n_i, i)), -1)
    acts[:, :, 0] = rng.integers(0, banks, (blocks, n_i))      # every I-vector holds one activation at least
    weights = np.where(rng.random((blocks, n_f, f)) < 0.7, rng.integers(0, banks, (blocks, n_f, f)), -1)
    return acts, weights


def direct(acts, weights, banks):
    out = np.zeros(acts.shape[:2] + (weights.shape[1],), dtype=np.int64)
    for b in range(acts.shape[0]):
        for x in range(acts.shape[1]):
            for y in range(weights.shape[1]):
                load = np.zeros(banks, dtype=np.int64)
                for a in acts[b, x][acts[b, x] >= 0]:
                    for w in weights[b, y][weights[b, y] >= 0]:
                        load[(a + w) % banks] += 1
                out[b, x, y] = load.max()
    return out


@pytest.mark.parametrize("banks, f, i", [(banks, f, i) for banks in (1, 3, 4, 8, 31, 32, 33, 64, 100)
                                           for f, i in ((1, 4), (2, 2), (4, 3), (4, 4))]
                         + [(128, 8, 8), (512, 16, 16), (40, 16, 16)])   # the PE-granularity study's wide PEs
def test_step_cycles_equal_a_direct_count(banks, f, i):
    rng = np.random.default_rng(banks * 100 + f * 10 + i)
    acts, weights = random_steps(rng, banks, f, i)
    blocks, n_i, _ = acts.shape
    vector, slot = np.nonzero(acts.reshape(-1, i) >= 0)
    terms = acts.reshape(-1, i)[vector, slot]
    representation = activation_banks(vector, slot, terms, blocks * n_i, banks, i)
    rows = np.arange(blocks * n_i).reshape(blocks, n_i)
    shifts = np.where(weights >= 0, (banks - weights) % banks, 0).astype(np.uint64)
    shifts[weights < 0] = EMPTY_SHIFT
    cycles = step_cycles(representation, rows, np.ones(rows.shape, dtype=bool), shifts, banks)
    assert cycles.tolist() == direct(acts, weights, banks).tolist()
    padded = step_cycles(representation, rows, np.arange(n_i)[None, :] < 2, shifts, banks)
    assert (padded[:, 2:] == 0).all() and (padded[:, :2] == cycles[:, :2]).all()
    assert (weight_multiplicity(shifts.reshape(-1, f)) == [
        max(1, max((list(row[row >= 0]).count(t) for t in row[row >= 0]), default=1))
        for row in weights.reshape(-1, f)]).all()


def cycles_of(acts, weights, banks):
    """``step_cycles`` of one block of I-vectors (rows of terms) x F-vectors (rows of terms, -1 unused)."""
    acts, weights = np.asarray(acts)[None], np.asarray(weights)[None]
    vector, slot = np.nonzero(acts[0] >= 0)
    representation = activation_banks(vector, slot, acts[0][vector, slot], acts.shape[1], banks, acts.shape[2])
    shifts = np.where(weights >= 0, (banks - weights) % banks, 0).astype(np.uint64)
    shifts[weights < 0] = EMPTY_SHIFT
    rows = np.arange(acts.shape[1])[None]
    return step_cycles(representation, rows, np.ones(rows.shape, dtype=bool), shifts, banks)[0]


@pytest.mark.parametrize("banks", [4, 31, 32, 33, 64])
def test_every_single_product_lands_in_its_bank(banks):
    """One activation (term t) times one weight (term w): one product, one cycle, for every (t, w):
    the rotation wraps around all A banks (bit-sliced masks hold 2A <= 64 bits: A <= 32)."""
    terms = np.arange(banks)
    assert (cycles_of(terms[:, None], terms[:, None], banks) == 1).all()


@pytest.mark.parametrize("banks", [4, 32, 64])
@pytest.mark.parametrize("f, i", [(4, 4), (4, 1), (1, 4), (3, 2)])
def test_all_products_on_one_bank_serialise(banks, f, i):
    """I activations of one term times F weights of one term: all F x I products on one bank; one
    weight term off: F - 1 of them per activation stay together."""
    acts = np.full((1, i), 3)
    assert cycles_of(acts, np.full((1, f), 5), banks).tolist() == [[f * i]]
    off = np.full((1, f), 5)
    off[0, 0] = 6
    assert cycles_of(acts, off, banks).tolist() == [[max(f - 1, 1) * i]]


def test_bank_conflicts_serialise_products_on_one_bank():
    a = 32
    mask = np.uint64(0b1111)   # activations on banks 0..3
    doubled = np.array([[[mask | (mask << np.uint64(a))]]], dtype=np.uint64)
    # weight terms 0 and 1: banks {0..3} and {1..4} overlap on 1, 2, 3: two products each
    shifts = np.array([[[(a - 0) % a, (a - 1) % a, EMPTY_SHIFT, EMPTY_SHIFT]]], dtype=np.uint64)
    assert max_bank_load(doubled, shifts, a)[0, 0, 0] == 2
    shifts = np.array([[[(a - 8) % a, (a - 16) % a, 0, (a - 24) % a]]], dtype=np.uint64)
    assert max_bank_load(doubled, shifts, a)[0, 0, 0] == 1   # disjoint banks: one cycle
