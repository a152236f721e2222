"""Pruning masks: exact density targets, structure constraints, determinism, bad inputs."""
from __future__ import annotations

import numpy as np
import pytest
from compress_cases import FAST, float_arrays
from hypothesis import given
from hypothesis import strategies as st

from accel_sim.foundations.compress import (
    apply_mask,
    block_mask,
    filter_mask,
    kernel_mask,
    load_balanced_mask,
    magnitude_mask,
    nm_mask,
    random_mask,
    threshold_mask,
    vector_mask,
)

densities = st.floats(0.0, 1.0)


def expected_count(density: float, total: int) -> int:
    """The documented rule: nearest integer, halves up."""
    return int(np.floor(density * total + 0.5 + 1e-9))


@FAST
@given(weights=float_arrays(), density=densities)
def test_magnitude_mask_meets_density_and_keeps_the_largest(weights: np.ndarray, density: float) -> None:
    mask = magnitude_mask(weights, density=density)
    assert mask.dtype == np.bool_ and mask.shape == weights.shape
    assert mask.sum() == expected_count(density, weights.size)
    if mask.any() and not mask.all():
        assert np.abs(weights[mask]).min() >= np.abs(weights[~mask]).max()


@pytest.mark.parametrize(("density", "total", "kept"), [(0.35, 10, 4), (0.25, 10, 3), (0.5, 7, 4), (0.09, 100, 9)])
def test_density_rounding_rule_is_half_up(density: float, total: int, kept: int) -> None:
    assert magnitude_mask(np.arange(1.0, total + 1), density=density).sum() == kept


@FAST
@given(weights=float_arrays(min_ndim=1, max_ndim=3), n_m=st.sampled_from([(2, 4), (1, 4), (4, 8), (1, 1), (3, 3)]))
def test_nm_mask_satisfies_the_constraint(weights: np.ndarray, n_m: tuple[int, int]) -> None:
    n, m = n_m
    mask = nm_mask(weights, n=n, m=m, axis=-1)
    length = weights.shape[-1]
    full_groups = length // m
    grouped = mask[..., : full_groups * m].reshape(*mask.shape[:-1], full_groups, m)
    assert np.all(grouped.sum(axis=-1) == n)
    assert np.all(mask[..., full_groups * m :].sum(axis=-1) == min(n, length % m))
    if length % m == 0:
        assert mask.mean() == n / m


def test_nm_mask_keeps_the_largest_of_each_group_along_the_chosen_axis() -> None:
    weights = np.array([[1.0, -9.0, 3.0, 2.0], [5.0, 0.5, -0.1, 7.0]])
    assert nm_mask(weights, n=2, m=4).astype(int).tolist() == [[0, 1, 1, 0], [1, 0, 0, 1]]
    column_pairs = np.array([[1.0, -9.0, -0.2, 2.0], [5.0, 0.5, 0.1, 7.0]])
    assert nm_mask(column_pairs, n=1, m=2, axis=0).astype(int).tolist() == [[0, 1, 1, 0], [1, 0, 0, 1]]


@FAST
@given(
    rows=st.integers(1, 12), cols=st.integers(1, 12), block=st.sampled_from([1, 2, 3, (2, 4)]), density=densities,
    seed=st.integers(0, 1000),
)  # fmt: skip
def test_block_mask_keeps_whole_blocks(rows: int, cols: int, block: int | tuple[int, int], density: float, seed: int) -> None:
    weights = np.random.default_rng(seed).standard_normal((rows, cols))
    mask = block_mask(weights, block_size=block, density=density)
    br, bc = (block, block) if isinstance(block, int) else block
    grid = (-(-rows // br), -(-cols // bc))
    padded = np.zeros((grid[0] * br, grid[1] * bc), dtype=bool)
    padded[:rows, :cols] = mask
    tiles = padded.reshape(grid[0], br, grid[1], bc)
    kept_blocks = tiles.any(axis=(1, 3))
    assert kept_blocks.sum() == expected_count(density, grid[0] * grid[1])
    assert np.array_equal(mask, np.repeat(np.repeat(kept_blocks, br, 0), bc, 1)[:rows, :cols])
    if rows % br == 0 and cols % bc == 0:
        assert mask.sum() == expected_count(density, grid[0] * grid[1]) * br * bc


def test_vector_kernel_and_filter_granularities() -> None:
    rng = np.random.default_rng(4)
    conv = rng.standard_normal((8, 6, 3, 3))
    kernels = kernel_mask(conv, density=0.25)
    per_kernel = kernels.sum(axis=(2, 3))
    assert set(np.unique(per_kernel)) <= {0, 9} and (per_kernel == 9).sum() == 12
    filters = filter_mask(conv, density=0.5)
    assert filters.sum(axis=(1, 2, 3)).tolist().count(6 * 9) == 4 and filters.sum() == 4 * 54
    channels = filter_mask(conv, density=1 / 3, axis=1)
    assert (channels.sum(axis=(0, 2, 3)) == 8 * 9).sum() == 2 and channels.sum() == 2 * 72
    rows = vector_mask(conv, density=0.5)  # kernel rows of length S
    assert set(np.unique(rows.sum(axis=-1))) <= {0, 3} and rows.sum() == 0.5 * conv.size
    chunks = vector_mask(rng.standard_normal((4, 10)), density=0.5, length=4)  # 3 chunks per row, last of 2
    assert chunks.sum(axis=None) in range(12, 25)


def test_group_importance_is_the_l1_norm() -> None:
    weights = np.array([[1.0, 1.0, 1.0, 1.0], [3.0, 0.0, 0.0, 0.0], [-2.5, 0.0, 0.0, 0.0]])
    assert filter_mask(weights, density=1 / 3).astype(int)[:, 0].tolist() == [1, 0, 0]


@FAST
@given(
    rows=st.integers(1, 20), cols=st.integers(1, 8), n_pes=st.integers(1, 6), density=densities, seed=st.integers(0, 99)
)
def test_load_balanced_mask_gives_pes_equal_work(rows: int, cols: int, n_pes: int, density: float, seed: int) -> None:
    weights = np.random.default_rng(seed).standard_normal((rows, cols))
    mask = load_balanced_mask(weights, density=density, n_pes=n_pes)
    assert mask.sum() == expected_count(density, weights.size)
    per_pe = np.array([mask[pe::n_pes].sum() for pe in range(n_pes)])
    capacity = np.array([weights[pe::n_pes].size for pe in range(n_pes)])
    # As even as capacity allows: a PE more than one below the busiest one is full.
    assert np.all(per_pe >= np.minimum(capacity, per_pe.max() - 1))


def test_load_balance_differs_from_global_magnitude_pruning() -> None:
    weights = np.ones((4, 4))
    weights[0] = 10.0  # all the large weights sit on PE 0
    assert magnitude_mask(weights, density=0.25)[0].all()
    balanced = load_balanced_mask(weights, density=0.25, n_pes=4)
    assert [balanced[pe::4].sum() for pe in range(4)] == [1, 1, 1, 1]


def test_threshold_mask_is_deep_compressions_rule() -> None:
    weights = np.array([-3.0, -1.0, 0.0, 1.0, 3.0])
    std = weights.std()
    assert threshold_mask(weights, quality=1.0).tolist() == (np.abs(weights) > std).tolist()
    assert threshold_mask(weights, quality=0.0).sum() == 4


def test_random_mask_is_exact_and_seeded() -> None:
    a = random_mask((30, 7), density=0.3, seed=5)
    assert a.sum() == 63
    assert np.array_equal(a, random_mask((30, 7), density=0.3, seed=5))
    assert not np.array_equal(a, random_mask((30, 7), density=0.3, seed=6))


def test_masks_are_deterministic_and_ties_keep_the_first() -> None:
    weights = np.ones((3, 4))
    assert magnitude_mask(weights, density=0.25).ravel().tolist() == [True] * 3 + [False] * 9
    assert np.array_equal(nm_mask(weights, n=2, m=4), nm_mask(weights.copy(), n=2, m=4))


def test_apply_mask_zeroes_pruned_weights_and_keeps_dtype() -> None:
    weights = np.array([[1, -2], [3, 4]], dtype=np.int8)
    pruned = apply_mask(weights, np.array([[True, False], [False, True]]))
    assert pruned.tolist() == [[1, 0], [0, 4]] and pruned.dtype == np.int8
    with pytest.raises(ValueError, match="mask must be a boolean array of shape"):
        apply_mask(weights, np.ones((2, 2)))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda w: magnitude_mask(w, density=-0.1), r"density must be in \[0, 1\]"),
        (lambda w: magnitude_mask(w, density=float("nan")), r"density must be in \[0, 1\]"),
        (lambda w: nm_mask(w, n=5, m=4), "n must be >= 1 and <= 4"),
        (lambda w: nm_mask(w, n=2, m=0), "m must be >= 1"),
        (lambda w: block_mask(w[0], block_size=2, density=0.5), "weights must be 2-D"),
        (lambda w: block_mask(w, block_size=0, density=0.5), "block_size must be >= 1"),
        (lambda w: kernel_mask(w, density=0.5), "weights must be 4-D"),
        (lambda w: filter_mask(w[0], density=0.5), "weights must have at least 2 dimension"),
        (lambda w: vector_mask(w, density=0.5, axis=3), "axis must be"),
        (lambda w: vector_mask(w, density=0.5, length=0), "length must be >= 1"),
        (lambda w: load_balanced_mask(w, density=0.5, n_pes=0), "n_pes must be >= 1"),
        (lambda w: threshold_mask(w, quality=-1.0), "quality must be"),
        (lambda w: magnitude_mask(np.full((2, 2), np.inf), density=0.5), "weights must contain only finite"),
        (lambda w: random_mask((2, -1), density=0.5, seed=0), r"shape\[1\] must be >= 0"),
    ],
)
def test_bad_inputs_raise_value_error_naming_the_parameter(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        call(np.ones((4, 8)))
