"""Encoded tensors as plain JSON data, for ``accel-sim encode`` and for teaching."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np

from accel_sim.foundations.compress.formats import FORMATS, SparseFormat
from accel_sim.foundations.errors import InputError

MAX_INLINE_ELEMENTS = 1_000_000  # encode is for small, inspectable matrices


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def read_matrix(text: str) -> np.ndarray:
    """A ``.npy`` path or an inline nested list such as ``[[0,1],[2,0]]``."""
    path = Path(text)
    if path.suffix == ".npy":
        if not path.is_file():
            raise InputError.single(text, "", "file not found")
        try:
            array = np.load(path, allow_pickle=False, mmap_mode="r")
        except (ValueError, OSError) as err:
            raise InputError.single(text, "", f"not a readable .npy array: {err}") from None
        if array.size > MAX_INLINE_ELEMENTS:
            raise InputError.single(text, "", f"{array.size} elements; encode prints small matrices "
                                    f"(at most {MAX_INLINE_ELEMENTS})")
        return np.asarray(array)
    try:
        array = np.array(json.loads(text))
    except (json.JSONDecodeError, ValueError) as err:
        raise InputError.single("MATRIX", "", f"expected a .npy file or a nested list like [[0,1],[2,0]]: {err}") from None
    if array.dtype == object or array.ndim == 0 or not np.issubdtype(array.dtype, np.number):
        raise InputError.single("MATRIX", "", "expected a rectangular nested list of numbers")
    return array


def encode(matrix: np.ndarray, format_name: str, params: dict[str, int]) -> SparseFormat:
    if format_name not in FORMATS:
        raise InputError.single("--format", format_name, f"unknown format; known: {', '.join(FORMATS)}")
    try:
        return FORMATS[format_name].from_dense(matrix, **params)
    except (TypeError, ValueError) as err:
        raise InputError.single("--format", format_name, str(err)) from None


def encoded_json(encoded: SparseFormat, value_bits: int) -> dict[str, Any]:
    data = _plain(encoded)
    data["nnz"] = int(encoded.nnz)
    data["storage_bits"] = encoded.storage(value_bits).as_dict()
    return data
