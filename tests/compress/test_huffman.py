"""Canonical Huffman coding: exact round trip, Shannon bounds, determinism."""
from __future__ import annotations

import numpy as np
import pytest
from compress_cases import FAST
from hypothesis import given
from hypothesis import strategies as st

from accel_sim.foundations.compress import huffman_code_lengths, huffman_decode, huffman_encode
from accel_sim.foundations.compress.huffman import symbol_counts

symbol_streams = st.lists(st.integers(-3, 20), min_size=1, max_size=300).map(np.array)


@FAST
@given(stream=symbol_streams)
def test_round_trip_and_entropy_bounds(stream: np.ndarray) -> None:
    result = huffman_encode(stream)
    assert np.array_equal(huffman_decode(result), stream)
    assert result.coded_bits == result.bits.size
    assert result.coded_bits >= result.entropy_bits - 1e-9
    if len(result.code_lengths) > 1:
        assert result.coded_bits < result.entropy_bits + result.n_symbols
    else:
        assert result.coded_bits == result.n_symbols  # one symbol: 1 bit each, entropy 0


@FAST
@given(stream=symbol_streams)
def test_code_is_prefix_free_and_satisfies_kraft(stream: np.ndarray) -> None:
    codes = huffman_encode(stream).codes()
    words = sorted(codes.values())
    assert all(not b.startswith(a) for a, b in zip(words, words[1:]))
    kraft = sum(2.0 ** -len(word) for word in words)
    assert kraft == 1.0 or len(words) == 1


def test_known_code() -> None:
    result = huffman_encode(np.array([1, 1, 2, 3, 3, 3, 3]))
    assert result.code_lengths == {3: 1, 1: 2, 2: 2}
    assert result.codes() == {3: "0", 1: "10", 2: "11"}
    assert result.coded_bits == 4 * 1 + 2 * 2 + 1 * 2
    assert result.entropy_bits == pytest.approx(-(4 * np.log2(4 / 7) + 2 * np.log2(2 / 7) + np.log2(1 / 7)))


def test_ties_are_broken_deterministically() -> None:
    counts = {5: 1, 1: 1, 3: 1, 2: 1, 4: 1}
    assert huffman_code_lengths(counts) == huffman_code_lengths(dict(reversed(list(counts.items()))))
    first = huffman_encode(np.array([4, 2, 9, 9, 2, 4, 7]))
    second = huffman_encode(np.array([4, 2, 9, 9, 2, 4, 7]))
    assert np.array_equal(first.bits, second.bits)


def test_skewed_relative_indices_beat_fixed_width() -> None:
    """EIE's 4-bit relative indices are mostly small: Huffman codes them in fewer bits."""
    runs = np.random.default_rng(0).geometric(0.5, size=2000).clip(max=16) - 1
    result = huffman_encode(runs)
    assert result.coded_bits < 4 * runs.size
    assert result.bits_per_symbol < 2.1


def test_empty_and_single_symbol_streams() -> None:
    empty = huffman_encode(np.array([], dtype=np.int64))
    assert (empty.coded_bits, empty.entropy_bits) == (0, 0.0)
    assert huffman_decode(empty).size == 0
    single = huffman_encode(np.array([5, 5, 5]))
    assert (single.coded_bits, single.entropy_bits) == (3, 0.0)


def test_decode_preserves_dtype() -> None:
    stream = np.array([3, 0, 3], dtype=np.uint8)
    assert huffman_decode(huffman_encode(stream)).dtype == np.uint8


def test_bad_inputs() -> None:
    with pytest.raises(ValueError, match="symbols must be integers"):
        huffman_encode(np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match="symbols must be 1-D"):
        huffman_encode(np.zeros((2, 2), dtype=int))


@pytest.mark.parametrize(("dtype", "low", "high"), [(np.int64, 0, 16), (np.uint8, 0, 256), (np.int32, 0, 1 << 17),
                                                    (np.int64, -3, 9), (np.int64, 0, 1 << 40), (bool, 0, 2)])
def test_symbol_counts_equal_numpy_unique(dtype, low, high):
    # The table count (small non-negative symbols) and the sort (the others) give np.unique's arrays and dtypes.
    stream = np.random.default_rng(high % 97).integers(low, high, size=3000).astype(dtype)
    values, counts = symbol_counts(stream)
    expected_values, expected_counts = np.unique(stream, return_counts=True)
    for got, expected in ((values, expected_values), (counts, expected_counts)):
        np.testing.assert_array_equal(got, expected)
        assert got.dtype == expected.dtype
