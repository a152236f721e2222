"""Broken objects fail check(); bad inputs to from_dense raise ValueError naming the parameter."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from compress_cases import CASE_IDS, FORMAT_CASES, FormatCase, sparse_array

from accel_sim.foundations.compress import (
    BSR,
    CSB,
    CSR,
    Bitmap,
    CompressedSparse,
    DenseFormat,
    EIEInterleavedCSC,
    FormatInvariantError,
    NOfM,
    RunLengthEncoded,
    SCNNZeroRun,
    SparseFormat,
)
from accel_sim.foundations.compress.formats.eie import EIEPESlice

EXAMPLE = sparse_array((12, 40), 0.15, np.float64, seed=7)
EXAMPLE[:, 5:30] = 0  # long zero gaps, so the relative-index formats need fillers
EXAMPLE[0, 0] = EXAMPLE[0, 39] = EXAMPLE[11, 39] = 2.5


def bump(array: np.ndarray, index: int, delta: int) -> np.ndarray:
    out = array.copy()
    out[index] += delta
    return out


def put(array: np.ndarray, index: int, value: int) -> np.ndarray:
    out = array.copy()
    out[index] = value
    return out


def with_pe0(fmt: Any, **changes: np.ndarray) -> Any:
    pes = (dataclasses.replace(fmt.pes[0], **changes), *fmt.pes[1:])
    return dataclasses.replace(fmt, pes=pes)


def swap_first_two_in_a_block(fmt: Any) -> Any:
    block = int(np.flatnonzero(np.diff(fmt.block_ptr) >= 2)[0])
    first = int(fmt.block_ptr[block])
    order = np.arange(fmt.values.size)
    order[[first, first + 1]] = [first + 1, first]
    return dataclasses.replace(fmt, row_index=fmt.row_index[order], col_index=fmt.col_index[order])


Corruption = Callable[[Any], SparseFormat]

CORRUPTIONS: dict[str, list[tuple[Corruption, str]]] = {
    "dense": [(lambda f: dataclasses.replace(f, data=np.float64(3.0)), "dimension")],
    "compressed": [
        (lambda f: dataclasses.replace(f, indices=bump(f.indices, 0, 1000)), "indices must lie"),
        (lambda f: dataclasses.replace(f, indptr=put(f.indptr, 1, -1)), "non-decreasing"),
        (lambda f: dataclasses.replace(f, indptr=f.indptr[:-1]), "entries"),
        (lambda f: dataclasses.replace(f, data=f.data * 0), "non-zeros"),
        (lambda f: dataclasses.replace(f, indices=f.indices[::-1].copy()), "increase strictly"),
        (lambda f: dataclasses.replace(f, index_bits=1), "index_bits"),
        (lambda f: dataclasses.replace(f, major_axis=1 - f.major_axis), "major_axis|indptr must have"),
    ],
    "eie": [
        (lambda f: with_pe0(f, rel_index=bump(f.pes[0].rel_index, 0, 20)), "rel_index outside"),
        (lambda f: with_pe0(f, values=f.pes[0].values * 0), "padding"),
        (lambda f: with_pe0(f, col_ptr=f.pes[0].col_ptr[::-1].copy()), "col_ptr"),
        (lambda f: with_pe0(f, rel_index=np.full_like(f.pes[0].rel_index, f.max_run)), "past the last local row"),
        (lambda f: dataclasses.replace(f, pes=f.pes[:-1]), "PE slices"),
        (lambda f: dataclasses.replace(f, pointer_bits=1), "pointer_bits"),
    ],
    "rle": [
        (lambda f: dataclasses.replace(f, runs=bump(f.runs, 0, 100)), "runs outside"),
        (lambda f: dataclasses.replace(f, values=f.values * 0), "placeholder"),
        (lambda f: dataclasses.replace(f, runs=np.full_like(f.runs, f.max_run)), "past the last"),
        (lambda f: dataclasses.replace(f, values=f.values[:-1]), "same length"),
    ],
    "csb": [
        (lambda f: dataclasses.replace(f, row_index=bump(f.row_index, 0, f.beta)), "row_index outside"),
        (lambda f: dataclasses.replace(f, block_ptr=f.block_ptr[:-1]), "entries"),
        (lambda f: dataclasses.replace(f, values=f.values * 0), "non-zeros"),
        (swap_first_two_in_a_block, "row-major"),
    ],
    "bsr": [
        (lambda f: dataclasses.replace(f, blocks=f.blocks * 0), "needs a non-zero"),
        (lambda f: dataclasses.replace(f, indices=bump(f.indices, 0, 1000)), "indices outside"),
        (lambda f: dataclasses.replace(f, blocks=f.blocks[:, :1]), "blocks must have shape"),
    ],
    "coo": [
        (lambda f: dataclasses.replace(f, coords=f.coords[::-1].copy()), "sorted"),
        (lambda f: dataclasses.replace(f, coords=f.coords + 100), "outside"),
        (lambda f: dataclasses.replace(f, values=f.values[1:]), "same length"),
    ],
    "bitmap": [
        (lambda f: dataclasses.replace(f, values=f.values[1:]), "set bits"),
        (lambda f: dataclasses.replace(f, mask=f.mask.astype(np.int8)), "boolean"),
    ],
    "nm": [
        (lambda f: dataclasses.replace(f, positions=f.positions[..., ::-1].copy()), "increase strictly"),
        (lambda f: dataclasses.replace(f, positions=f.positions + f.m), "positions outside"),
        (lambda f: dataclasses.replace(f, values=f.values[..., :0]), "values must have shape"),
        (lambda f: dataclasses.replace(f, n=f.m + 1), "n <= m"),
    ],
}
FAMILY = {"csr": "compressed", "csc": "compressed", "scnn": "rle"}


def corruption_cases() -> list[Any]:
    params = []
    for case in FORMAT_CASES:
        family = FAMILY.get(case.cls.name, case.cls.name)
        for number, (corrupt, message) in enumerate(CORRUPTIONS[family]):
            params.append(pytest.param(case, corrupt, message, id=f"{case.label}-{number}"))
    return params


@pytest.mark.parametrize(("case", "corrupt", "message"), corruption_cases())
def test_check_rejects_corrupted_objects(case: FormatCase, corrupt: Corruption, message: str) -> None:
    fmt = case.build(EXAMPLE)
    fmt.check()
    if message == "increase strictly" and getattr(fmt, "n", None) == 1:
        pytest.skip("one slot per group has no order to break")
    with pytest.raises(FormatInvariantError, match=message):
        corrupt(fmt).check()


def test_scnn_needs_a_count_field() -> None:
    fmt = SCNNZeroRun.from_dense(EXAMPLE)
    with pytest.raises(FormatInvariantError, match="count_bits"):
        dataclasses.replace(fmt, count_bits=0).check()


def test_nm_padding_slots_must_be_zero() -> None:
    nm = NOfM.from_dense(np.array([[1.0, 0, 0, 0, 2, 0]]), n=2, m=4)  # second group: [2 0 | pad pad]
    values = nm.values.copy()
    values[0, 1] = [2.0, 0.0]
    positions = nm.positions.copy()
    positions[0, 1] = [0, 3]  # position 3 of the last group is padding beyond the axis
    broken = dataclasses.replace(nm, values=np.array([[[1.0, 0.0], [2.0, 5.0]]]), positions=positions)
    with pytest.raises(FormatInvariantError, match="padding beyond the axis"):
        broken.check()


def test_eie_slice_type_is_exported() -> None:
    assert isinstance(EIEInterleavedCSC.from_dense(EXAMPLE, n_pes=2).pes[0], EIEPESlice)


# --- bad inputs -----------------------------------------------------------------------

TWO_D_ONLY = [CSR, CompressedSparse, EIEInterleavedCSC, CSB, BSR]


@pytest.mark.parametrize("cls", TWO_D_ONLY)
def test_two_d_formats_reject_other_ndims(cls: type[SparseFormat]) -> None:
    with pytest.raises(ValueError, match="dense must be 2-D"):
        cls.from_dense(np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="dense must be 2-D"):
        cls.from_dense(np.ones(3))


@pytest.mark.parametrize("case", FORMAT_CASES, ids=CASE_IDS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_every_format_rejects_non_finite_values(case: FormatCase, bad: float) -> None:
    dense = np.ones((4, 4))
    dense[1, 2] = bad
    with pytest.raises(ValueError, match="dense must contain only finite values"):
        case.cls.from_dense(dense, **case.params)


@pytest.mark.parametrize("cls", [DenseFormat, RunLengthEncoded, Bitmap, NOfM])
def test_scalars_and_non_numeric_arrays_are_rejected(cls: type[SparseFormat]) -> None:
    with pytest.raises(ValueError, match="dense must have at least 1 dimension"):
        cls.from_dense(np.float64(1.0))
    with pytest.raises(ValueError, match="dense must be a boolean, integer or real"):
        cls.from_dense(np.array(["a", "b"]))


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: NOfM.from_dense(np.ones((2, 4)), n=5, m=4), "n must be >= 1 and <= 4"),
        (lambda: NOfM.from_dense(np.ones((2, 4)), n=0, m=4), "n must be >= 1"),
        (lambda: NOfM.from_dense(np.ones((2, 4)), n=2, m=4), "violates 2:4 along axis 1: 2 group"),
        (lambda: NOfM.from_dense(np.ones((2, 4)), n=1, m=2, axis=2), "axis must be"),
        (lambda: CSR.from_dense(np.ones((2, 300)), index_bits=8), "index_bits=8 cannot hold the value 299"),
        (lambda: CSR.from_dense(np.ones((2, 3)), pointer_bits=2), "pointer_bits=2 cannot hold the value 6"),
        (lambda: CompressedSparse.from_dense(np.ones((2, 3)), major_axis=2), "major_axis must be"),
        (lambda: CSR.from_dense(np.ones((2, 3)), major_axis=1), "major_axis of CSR is 0"),
        (lambda: EIEInterleavedCSC.from_dense(np.ones((2, 3)), n_pes=0), "n_pes must be >= 1"),
        (lambda: EIEInterleavedCSC.from_dense(np.ones((2, 3)), index_bits=0), "index_bits must be >= 1"),
        (lambda: EIEInterleavedCSC.from_dense(np.ones((40, 3)), n_pes=1, pointer_bits=6), "pointer_bits=6"),
        (lambda: CSB.from_dense(np.ones((2, 3)), beta=0), "beta must be >= 1"),
        (lambda: BSR.from_dense(np.ones((2, 3)), block_size=(2, 0)), r"block_size\[1\] must be >= 1"),
        (lambda: BSR.from_dense(np.ones((2, 3)), block_size=(1, 2, 3)), "block_size must be an int or"),
        (lambda: RunLengthEncoded.from_dense(np.ones(3), run_bits=0), "run_bits must be >= 1"),
        (lambda: SCNNZeroRun.from_dense(np.ones(40), count_bits=3), "count_bits=3"),
        (lambda: CSR.from_dense(np.ones((2, 2))).storage(0), "value_bits must be >= 1"),
        (lambda: CSR.from_dense(np.ones((2, 2))).storage(2.5), "value_bits must be an integer"),  # type: ignore[arg-type]
    ],
)
def test_bad_parameters_raise_value_error_naming_them(build: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()
