"""Shared test data for the compress tests: the format table and array generators."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from accel_sim.foundations.compress import (
    BSR,
    COO,
    CSB,
    CSC,
    CSR,
    Bitmap,
    CompressedSparse,
    DenseFormat,
    EIEInterleavedCSC,
    NOfM,
    RunLengthEncoded,
    SCNNZeroRun,
    SparseFormat,
    apply_mask,
    nm_mask,
)

FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DTYPES: tuple[type[np.generic], ...] = (np.int8, np.int32, np.float32, np.float64)
DENSITIES = (0.0, 0.05, 0.2, 0.5, 0.9, 1.0)


@dataclass(frozen=True)
class FormatCase:
    """One format with one parameter set, plus the input preparation it needs."""

    label: str
    cls: type[SparseFormat]
    params: dict[str, Any] = field(default_factory=dict)
    prepare: Callable[[np.ndarray], np.ndarray] = lambda x: x
    any_ndim: bool = False

    def build(self, dense: np.ndarray) -> SparseFormat:
        return self.cls.from_dense(self.prepare(dense), **self.params)


def _nm(n: int, m: int, axis: int) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: apply_mask(x, nm_mask(x, n=n, m=m, axis=axis))


FORMAT_CASES: tuple[FormatCase, ...] = (
    FormatCase("dense", DenseFormat, any_ndim=True),
    FormatCase("csr", CSR),
    FormatCase("csc", CSC),
    FormatCase("compressed_axis1", CompressedSparse, {"major_axis": 1}),
    FormatCase("eie_1pe", EIEInterleavedCSC, {"n_pes": 1, "index_bits": 1}),
    FormatCase("eie_3pe", EIEInterleavedCSC, {"n_pes": 3, "index_bits": 2}),
    FormatCase("eie_default", EIEInterleavedCSC),
    FormatCase("rle_2bit", RunLengthEncoded, {"run_bits": 2}, any_ndim=True),
    FormatCase("rle_default", RunLengthEncoded, any_ndim=True),
    FormatCase("scnn_1bit", SCNNZeroRun, {"run_bits": 1}, any_ndim=True),
    FormatCase("scnn_default", SCNNZeroRun, any_ndim=True),
    FormatCase("csb_2", CSB, {"beta": 2}),
    FormatCase("csb_3", CSB, {"beta": 3}),
    FormatCase("csb_default", CSB),
    FormatCase("bsr_2", BSR, {"block_size": 2}),
    FormatCase("bsr_2x3", BSR, {"block_size": (2, 3)}),
    FormatCase("coo", COO, any_ndim=True),
    FormatCase("bitmap", Bitmap, any_ndim=True),
    FormatCase("nm_2_4", NOfM, {"n": 2, "m": 4}, _nm(2, 4, -1), any_ndim=True),
    FormatCase("nm_1_4_axis0", NOfM, {"n": 1, "m": 4, "axis": 0}, _nm(1, 4, 0), any_ndim=True),
    FormatCase("nm_4_8", NOfM, {"n": 4, "m": 8}, _nm(4, 8, -1), any_ndim=True),
)
CASE_IDS = [case.label for case in FORMAT_CASES]


def sparse_array(
    shape: tuple[int, ...], density: float, dtype: type[np.generic], seed: int, empty_lines: bool = True
) -> np.ndarray:
    """A random array with exact-valued non-zeros, optionally with whole zero rows / columns."""
    rng = np.random.default_rng(seed)
    magnitudes = rng.integers(1, 100, size=shape) * rng.choice([-1, 1], size=shape)
    values = magnitudes * 0.375 if np.dtype(dtype).kind == "f" else magnitudes
    array = np.where(rng.random(shape) < density, values, 0).astype(dtype)
    if empty_lines and len(shape) >= 2:
        array[rng.random(shape[0]) < 0.2] = 0
        array[..., rng.random(shape[-1]) < 0.2] = 0
    return array


@st.composite
def sparse_matrices(draw: st.DrawFn, max_side: int = 12) -> np.ndarray:
    shape = (draw(st.integers(1, max_side)), draw(st.integers(1, max_side)))
    return sparse_array(
        shape, draw(st.sampled_from(DENSITIES)), draw(st.sampled_from(DTYPES)), draw(st.integers(0, 2**32 - 1))
    )


@st.composite
def sparse_tensors(draw: st.DrawFn) -> np.ndarray:
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=4)))
    return sparse_array(
        shape, draw(st.sampled_from(DENSITIES)), draw(st.sampled_from(DTYPES)), draw(st.integers(0, 2**32 - 1))
    )


@st.composite
def float_arrays(draw: st.DrawFn, min_ndim: int = 1, max_ndim: int = 3) -> np.ndarray:
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=min_ndim, max_size=max_ndim)))
    scale = draw(st.sampled_from([1e-3, 1.0, 50.0]))
    return np.random.default_rng(draw(st.integers(0, 2**32 - 1))).standard_normal(shape) * scale
