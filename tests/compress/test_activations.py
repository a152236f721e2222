"""Synthetic post-ReLU activations: exact density, non-negative, seeded, clustered."""
from __future__ import annotations

import numpy as np
import pytest
from compress_cases import FAST
from hypothesis import given
from hypothesis import strategies as st

from accel_sim.foundations.compress import activation_mask, synthetic_activations


@FAST
@given(
    shape=st.lists(st.integers(1, 9), min_size=1, max_size=3).map(tuple),
    density=st.floats(0.0, 1.0),
    pattern=st.sampled_from(["uniform", "clustered"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_exact_density_non_negative_and_seeded(shape: tuple[int, ...], density: float, pattern: str, seed: int) -> None:
    x = synthetic_activations(shape, density=density, seed=seed, pattern=pattern)  # type: ignore[arg-type]
    assert x.shape == shape and x.dtype == np.float32
    assert np.count_nonzero(x) == int(np.floor(density * x.size + 0.5 + 1e-9))
    assert np.all(x >= 0) and np.all(np.isfinite(x))
    assert np.array_equal(x, synthetic_activations(shape, density=density, seed=seed, pattern=pattern))  # type: ignore[arg-type]


def test_different_seeds_differ() -> None:
    a = synthetic_activations((4, 16, 16), density=0.4, seed=1)
    assert not np.array_equal(a, synthetic_activations((4, 16, 16), density=0.4, seed=2))


def neighbour_agreement(mask: np.ndarray) -> float:
    """Fraction of horizontally / vertically adjacent pairs that are both non-zero or both zero."""
    same = [(mask[..., 1:, :] == mask[..., :-1, :]).mean(), (mask[..., :, 1:] == mask[..., :, :-1]).mean()]
    return float(np.mean(same))


def test_clustered_masks_are_spatially_coherent() -> None:
    uniform = activation_mask((8, 32, 32), density=0.4, seed=3, pattern="uniform")
    clustered = activation_mask((8, 32, 32), density=0.4, seed=3, pattern="clustered", cluster_size=5)
    assert uniform.sum() == clustered.sum()
    # Independent positions agree with probability 0.4^2 + 0.6^2 = 0.52; blobs far more often.
    assert neighbour_agreement(uniform) == pytest.approx(0.52, abs=0.03)
    assert neighbour_agreement(clustered) > 0.75


def test_float64_and_float16_dtypes() -> None:
    assert synthetic_activations((3, 3), density=1.0, seed=0, dtype=np.float64).dtype == np.float64
    tiny = synthetic_activations((50,), density=1.0, seed=0, dtype=np.float16)
    assert np.count_nonzero(tiny) == 50


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"density": 1.2}, r"density must be in \[0, 1\]"),
        ({"density": -0.5}, r"density must be in \[0, 1\]"),
        ({"pattern": "stripes"}, "pattern must be one of"),
        ({"cluster_size": 0}, "cluster_size must be >= 1"),
        ({"dtype": np.int32}, "dtype must be a floating dtype"),
        ({"shape": ()}, "shape must have at least one dimension"),
        ({"shape": (3, -2)}, r"shape\[1\] must be >= 0"),
    ],
)
def test_bad_inputs(kwargs: dict, message: str) -> None:
    arguments = {"shape": (4, 4), "density": 0.5, "seed": 0} | kwargs
    shape = arguments.pop("shape")
    with pytest.raises(ValueError, match=message):
        synthetic_activations(shape, **arguments)
