"""Generated operand tensors shared between processes: a folder keyed by their spec hash.

Several studies of one ``reproduce all`` run read the same generated layers (the EIE studies
all read the nine benchmark layers; the SCNN and Cnvlutin studies the same pruned AlexNet,
GoogLeNet and VGG-16 layers), each in its own worker process, so the in-process cache of
:func:`accel_sim.foundations.workload.operands.layer_operands` cannot share them. Within
:func:`shared_operands`, the first process to generate a large tensor writes it to the folder
under its spec hash (:func:`accel_sim.foundations.workload.operands.spec_hash`: the tensor is a pure
function of that text) and every later one reads it back instead of generating it again. The
bits read are the bits written (sparse tensors as the flat positions and values of their
non-zero bit patterns, so a ``-0.0`` stays ``-0.0``), so results do not depend on the cache.

Outside the block (the default) nothing is written anywhere. ``reproduce all`` uses a
temporary folder removed when the run ends.
"""
from __future__ import annotations

import os
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

MIN_ELEMENTS = 1 << 18      # smaller tensors are generated in about a millisecond: not worth a file
SPARSE_BELOW = 1 / 2        # at most this fraction non-zero: stored as positions + values (8 bytes each)

_folder: Path | None = None


@contextmanager
def shared_operands(folder: Path) -> Iterator[None]:
    """Within the block, generated tensors of at least :data:`MIN_ELEMENTS` go through ``folder``
    (which must exist); processes forked inside the block share it."""
    global _folder
    previous, _folder = _folder, Path(folder)
    try:
        yield
    finally:
        _folder = previous


def through_cache(key: str, shape: tuple[int, ...], make: Callable[[], np.ndarray]) -> np.ndarray:
    """The tensor ``make()`` returns, read from the shared folder when a process wrote it there under
    ``key`` (its spec hash), else made and written there (outside :func:`shared_operands`: made)."""
    if _folder is None or int(np.prod(shape)) < MIN_ELEMENTS:
        return make()
    path = _folder / f"{key}.npz"
    try:
        return _read(path)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):   # not written yet, or unreadable: make it
        pass
    array = make()
    _write(path, array)
    return array


def _read(path: Path) -> np.ndarray:
    with np.load(path, allow_pickle=False) as archive:
        if "dense" in archive:
            return archive["dense"]
        array = np.zeros(tuple(archive["shape"]), dtype=archive["values"].dtype)
        array.reshape(-1)[archive["index"]] = archive["values"]
        return array


def _write(path: Path, array: np.ndarray) -> None:
    """Written under a name of this process, then renamed: a reader never sees half a file. A
    failed write (disk full) only loses the sharing."""
    flat = np.ascontiguousarray(array).reshape(-1)
    index = np.flatnonzero(flat.view(np.uint32 if flat.dtype.itemsize == 4 else np.uint64))   # -0.0 kept
    if flat.size <= 1 << 31:   # every operand (MAX_OPERAND_ELEMENTS): positions fit 32 bits
        index = index.astype(np.int32)
    partial = path.with_name(f"{path.stem}.{os.getpid()}.partial")
    try:
        with open(partial, "wb") as file:
            if index.size <= SPARSE_BELOW * flat.size:
                np.savez(file, shape=np.array(array.shape, dtype=np.int64), index=index, values=flat[index])
            else:
                np.savez(file, dense=array)
        os.replace(partial, path)
    except OSError:
        partial.unlink(missing_ok=True)
