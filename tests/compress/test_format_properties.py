"""Properties every storage format shares: exact round trip, invariants, nnz and storage."""
from __future__ import annotations

import numpy as np
import pytest
from compress_cases import CASE_IDS, FAST, FORMAT_CASES, FormatCase, sparse_array, sparse_matrices, sparse_tensors
from hypothesis import given

from accel_sim.foundations.compress import FORMATS, SparseFormat
from accel_sim.foundations.compress.formats.compressed import CSC, CSR, CompressedSparse


def assert_exact(fmt: SparseFormat, dense: np.ndarray) -> None:
    fmt.check()
    back = fmt.to_dense()
    assert back.shape == dense.shape
    assert back.dtype == dense.dtype
    assert np.array_equal(back, dense)
    assert fmt.shape == dense.shape
    assert fmt.nnz == np.count_nonzero(dense)


def assert_storage_consistent(fmt: SparseFormat) -> None:
    for value_bits in (1, 4, 16):
        storage = fmt.storage(value_bits)
        assert storage.values_bits == fmt.nnz * value_bits
        assert storage.total_bits == sum(v for k, v in storage.as_dict().items() if k != "total_bits")


@pytest.mark.parametrize("case", FORMAT_CASES, ids=CASE_IDS)
@FAST
@given(matrix=sparse_matrices())
def test_round_trip_on_random_matrices(case: FormatCase, matrix: np.ndarray) -> None:
    dense = case.prepare(matrix)
    fmt = case.build(matrix)
    assert_exact(fmt, dense)
    assert_storage_consistent(fmt)


@pytest.mark.parametrize("case", [c for c in FORMAT_CASES if c.any_ndim], ids=[c.label for c in FORMAT_CASES if c.any_ndim])
@FAST
@given(tensor=sparse_tensors())
def test_round_trip_on_nd_tensors(case: FormatCase, tensor: np.ndarray) -> None:
    fmt = case.build(tensor)
    assert_exact(fmt, case.prepare(tensor))
    assert_storage_consistent(fmt)


EDGE_MATRICES: dict[str, np.ndarray] = {
    "1x1_zero": np.zeros((1, 1), dtype=np.int32),
    "1x1_nonzero": np.full((1, 1), -7, dtype=np.int32),
    "all_zero": np.zeros((9, 17), dtype=np.float32),
    "all_dense": np.arange(1, 9 * 17 + 1, dtype=np.float64).reshape(9, 17),
    "one_long_column": np.array([0, 0, 1, 2] + [0] * 40 + [3], dtype=np.int16).reshape(-1, 1),
    "one_long_row": np.array([5] + [0] * 40 + [6], dtype=np.int16).reshape(1, -1),
    "empty_rows_and_columns": sparse_array((20, 24), 0.3, np.float64, seed=3),
}


@pytest.mark.parametrize("case", FORMAT_CASES, ids=CASE_IDS)
@pytest.mark.parametrize("name", EDGE_MATRICES)
def test_round_trip_on_edge_matrices(case: FormatCase, name: str) -> None:
    fmt = case.build(EDGE_MATRICES[name])
    assert_exact(fmt, case.prepare(EDGE_MATRICES[name]))
    assert_storage_consistent(fmt)


@pytest.mark.parametrize("case", FORMAT_CASES, ids=CASE_IDS)
def test_from_dense_copies_its_input(case: FormatCase) -> None:
    dense = case.prepare(sparse_array((8, 8), 0.5, np.float64, seed=1))
    fmt = case.cls.from_dense(dense, **case.params)
    expected = dense.copy()
    dense[...] = 99.0
    assert np.array_equal(fmt.to_dense(), expected)


@pytest.mark.parametrize("case", FORMAT_CASES, ids=CASE_IDS)
def test_formats_without_stored_zeros_have_no_padding(case: FormatCase) -> None:
    """A dense matrix whose sides are multiples of every block leaves no room for fillers,
    unused N:M slots or zeros inside blocks."""
    dense = case.prepare(np.arange(1, 24 * 24 + 1, dtype=np.float64).reshape(24, 24))
    assert case.build(dense).storage(8).padding_bits == 0


def test_registry_names_every_format_once() -> None:
    assert set(FORMATS) == {
        "dense", "compressed", "csr", "csc", "eie", "scnn", "rle", "csb", "bsr", "coo", "bitmap", "nm"
    }
    for name, cls in FORMATS.items():
        assert cls.name == name


@pytest.mark.parametrize("fmt", [CSR, CSC, CompressedSparse])
@pytest.mark.parametrize(("shape", "density"), [((1, 1), 0.0), ((7, 13), 0.3), ((64, 5), 0.9), ((33, 40), 1.0)])
def test_dense_storage_equals_the_encoded_storage(fmt, shape, density):
    # The size from the count of non-zeros is the size of the encoded matrix, part by part.
    rng = np.random.default_rng(shape[0] * shape[1])
    dense = np.where(rng.random(shape) < density, rng.standard_normal(shape), 0.0).astype(np.float32)
    for bits in (1, 8, 32):
        assert fmt.dense_storage(dense, bits) == fmt.from_dense(dense).storage(bits)
        assert fmt.dense_storage(dense.T, bits) == fmt.from_dense(np.ascontiguousarray(dense.T)).storage(bits)
